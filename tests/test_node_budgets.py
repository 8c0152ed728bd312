"""Node budgets (Gibson et al. 2012, sec. 5: cost as histories visited): ``solve(nodes=...)``
runs whole iterations up to the first one past the budget and past each ``eval_nodes``
point, in chunks whose length the clock sets; the chunks never change the run."""
from __future__ import annotations

import numpy as np
import pytest

import rcfr.run.engine as run_module
from rcfr.run.engine import solve
from rcfr.solvers.run import make_solver


def _run(scheme: str, seed: int):
    return solve("leduc", scheme, nodes=60_000, eval_nodes=20_000, seed=seed)


@pytest.mark.parametrize("scheme", ["os", "es", "as", "cs"])
def test_a_node_budget_stops_at_the_first_iteration_past_each_point(monkeypatch, scheme):
    long = _run(scheme, 5)
    monkeypatch.setattr(run_module, "CHUNK_SECONDS", 1e-9)  # a chunk of one iteration
    short = _run(scheme, 5)
    assert (short.iterations, short.curve, short.curve_nodes) == (
        long.iterations, long.curve, long.curve_nodes)
    for name in ("strategy_", "avg_weights_"):
        assert np.array_equal(getattr(short.solver, name), getattr(long.solver, name))
    # each evaluation point and the end: the first whole iteration past 20k, 40k, 60k nodes
    assert len(long.curve) == 3
    for (iteration, _), nodes, point in zip(long.curve, long.curve_nodes,
                                            (20_000, 40_000, 60_000), strict=True):
        fresh = make_solver("leduc", scheme, seed=5).run(iteration - 1)
        assert fresh.nodes_visited < point <= nodes
        assert fresh.run(1).nodes_visited == nodes

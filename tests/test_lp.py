"""The sequence-form LP against known game values and independent matrix-game LPs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.optimize import linprog

from rcfr.core.errors import RcfrError
from rcfr.forms.compile import compile_game
from rcfr.forms.history.tree import GameTree
from rcfr.lp import LPSolution, solve_lp

LEDUC_VALUE = -0.085606


def _matrix_game_value(M: np.ndarray) -> float:
    """Value of the zero-sum matrix game M (row player maximises), by the textbook LP:
    max v s.t. M^T p >= v, sum p = 1, p >= 0."""
    m, n = M.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-M.T, np.ones((n, 1))])
    A_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n),
        A_eq=A_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    assert res.status == 0
    return float(-res.fun)


def _check_valid(tree: GameTree, sol: LPSolution) -> None:
    S = tree.num_sequences
    assert sol.strategy.shape == (S,) and sol.strategy.dtype == np.float64
    assert sol.realization.shape == (S,) and sol.realization.dtype == np.float64
    assert np.all(sol.strategy >= 0.0)
    assert np.all(sol.realization >= 0.0)
    padded = np.concatenate([sol.realization, [1.0, 1.0]])  # empty sequences weigh 1
    for i in range(tree.num_infosets):
        start = tree.infoset_seq_start[i]
        stop = start + tree.infoset_num_actions[i]
        assert sol.strategy[start:stop].sum() == pytest.approx(1.0, abs=1e-12)
        parent = padded[tree.infoset_parent_seq[i]]
        assert sol.realization[start:stop].sum() == pytest.approx(parent, abs=1e-8)
        if parent <= 1e-12:  # unreachable under the plan: uniform play
            n = stop - start
            np.testing.assert_allclose(sol.strategy[start:stop], np.full(n, 1.0 / n))


def _bilinear_value(tree: GameTree, realization: np.ndarray) -> float:
    padded = np.concatenate([realization, [1.0, 1.0]])
    x0 = padded[tree.terminal_seq[0]]
    x1 = padded[tree.terminal_seq[1]]
    return float(np.sum(tree.terminal_coef * x0 * x1))


def test_kuhn_value() -> None:
    tree = compile_game("kuhn")
    sol = solve_lp(tree)
    assert sol.value == pytest.approx(-1.0 / 18.0, abs=1e-9)
    _check_valid(tree, sol)


def test_kuhn_bilinear_value_matches() -> None:
    tree = compile_game("kuhn")
    sol = solve_lp(tree)
    assert _bilinear_value(tree, sol.realization) == pytest.approx(sol.value, abs=1e-8)


def test_leduc_value_and_canonical_agree() -> None:
    values = []
    for spec in ("leduc", "leduc(canonical=true)"):
        tree = compile_game(spec)
        sol = solve_lp(tree)
        assert sol.value == pytest.approx(LEDUC_VALUE, abs=1e-5)
        _check_valid(tree, sol)
        assert _bilinear_value(tree, sol.realization) == pytest.approx(sol.value, abs=1e-7)
        values.append(sol.value)
    assert values[0] == pytest.approx(values[1], abs=1e-8)


def test_rps_uniform() -> None:
    tree = compile_game("rps")
    sol = solve_lp(tree)
    assert sol.value == pytest.approx(0.0, abs=1e-8)
    np.testing.assert_allclose(sol.strategy, np.full(6, 1.0 / 3.0), atol=1e-8)
    np.testing.assert_allclose(sol.realization, np.full(6, 1.0 / 3.0), atol=1e-8)
    _check_valid(tree, sol)


@pytest.mark.parametrize("seed", range(6))
def test_random_matrix_games(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m, n = rng.integers(1, 7, size=2)
    M = rng.normal(size=(m, n)).round(3)
    tree = compile_game(f"matrix(payoffs={json.dumps(M.tolist())})")
    sol = solve_lp(tree)
    assert sol.value == pytest.approx(_matrix_game_value(M), abs=1e-8)
    _check_valid(tree, sol)
    # the row strategy guarantees the value; the column strategy holds the row player to it
    p = sol.strategy[:m]
    q = sol.strategy[m:]
    assert np.min(p @ M) == pytest.approx(sol.value, abs=1e-8)
    assert np.max(M @ q) == pytest.approx(sol.value, abs=1e-8)


def test_unreached_infosets_are_uniform() -> None:
    from rcfr.lp import _behavioural

    tree = compile_game("kuhn")
    strategy = _behavioural(tree, np.zeros(tree.num_sequences))
    expected = np.repeat(1.0 / tree.infoset_num_actions, tree.infoset_num_actions)
    np.testing.assert_allclose(strategy, expected)


def test_accepts_game_object_and_string() -> None:
    tree = compile_game("kuhn")
    assert solve_lp("kuhn").value == pytest.approx(solve_lp(tree.game).value, abs=1e-12)


def test_solver_failure_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    import rcfr.lp as lp

    class _Failed:
        status = 2
        x = None
        fun = None
        message = "The problem is infeasible.\n(HiGHS Status 8)"

    monkeypatch.setattr(lp, "linprog", lambda *a, **k: _Failed())
    with pytest.raises(RcfrError, match="failed") as excinfo:
        solve_lp("kuhn")
    assert "\n" not in str(excinfo.value)

"""The run engine (docs/architecture.md, "One loop"): a run compiles its game once and sets its
solver up once, however many segments its evaluation schedule cuts it into; every driver takes
exactly the options the declarations (rcfr.solvers.options) give it."""

from __future__ import annotations

import pytest

import rcfr
import rcfr.forms.compile as compile_module
import rcfr.run.engine as engine
from rcfr.core.errors import RcfrError
from rcfr.core.names import DEEP_ALGORITHMS, FP_ALGORITHMS
from rcfr.run import RunHooks, RunSpec, Solver, run_spec
from rcfr.run.schedule import log_schedule
from rcfr.solvers.deep import make_deep_solver
from rcfr.solvers.fp import make_fp_solver
from rcfr.solvers.options import OPTIONS, RUN
from rcfr.solvers.run import make_solver


class _Counted:
    """A solver that counts the ``setup()`` calls made on it (the solver's own calls, inside
    ``run``, go to the solver itself)."""

    def __init__(self, solver, setups: list) -> None:
        self.solver, self.setups = solver, setups

    def __getattr__(self, name):
        return getattr(self.solver, name)

    def setup(self) -> None:
        self.setups.append(self.solver.iteration)
        self.solver.setup()


def _count_loads(monkeypatch) -> list:
    """The games :func:`rcfr.forms.compile.compile_game` loads (a compiled form passes
    through without one)."""
    loads, load = [], compile_module.load_game
    monkeypatch.setattr(compile_module, "load_game", lambda g: loads.append(g) or load(g))
    return loads


def test_a_segmented_run_compiles_its_game_once_and_sets_its_solver_up_once(monkeypatch):
    """A log schedule cuts the run into one segment per point (six here); the game is still
    compiled once and the solver set up once, before the first timed iteration."""
    loads, setups = _count_loads(monkeypatch), []
    make = engine.make_solver
    monkeypatch.setattr(engine, "make_solver",
                        lambda *a, **k: _Counted(make(*a, **k), setups))
    spec = RunSpec(game="kuhn", algorithm="cfr+", iterations=300, eval_log=2)
    result = run_spec(spec, RunHooks())
    assert [p["iterations"] for p in result.points] == log_schedule(300, 2)  # six segments
    assert loads == ["kuhn"]
    assert setups == [0]
    assert result.iterations == 300


def test_the_api_compiles_once_and_sets_up_once(monkeypatch):
    loads, setups = _count_loads(monkeypatch), []
    solver = _Counted(make_solver(rcfr.compile_game("kuhn"), "cfr"), setups)
    loads.clear()
    result = rcfr.solve("kuhn", "cfr", 120, eval_every=40, solver=solver)
    assert loads == ["kuhn"] and setups == [0]
    assert [it for it, _ in result.curve] == [40, 80, 120]


@pytest.mark.parametrize("algorithm", ["cfr+", "os", "xfp", "sd-cfr"])
def test_every_driver_keeps_the_solver_protocol(algorithm):
    """The regret loop, the fictitious-play and deep drivers and a solver through an
    abstraction are all :class:`rcfr.run.protocol.Solver`."""
    assert isinstance(make_solver("kuhn", algorithm), Solver)


def test_an_abstracted_solver_keeps_the_protocol_and_is_measured_on_the_full_game():
    result = rcfr.solve("leduc(canonical=true)", "cfr", 20, abstraction="J.QK")
    assert result.policy.tree.num_sequences == 672  # the full game's strategy
    assert result.solver.tree.num_sequences == 308  # run by the abstract game's solver
    assert result.evaluation == rcfr.evaluate("leduc(canonical=true)", result.policy)


def _sample(option):
    """A value of ``option``'s type that its checks accept where they can."""
    if option.choices:
        return option.choices[0]
    if option.default is not None and option.default is not False:
        return option.default
    return {int: 2, float: 0.5, bool: True, str: "onehot"}[option.type]


@pytest.mark.parametrize("algorithm", [*FP_ALGORITHMS, *DEEP_ALGORITHMS])
def test_a_driver_reads_exactly_the_options_its_declaration_gives_it(algorithm):
    """Every option declared for ``algorithm`` reaches its driver, and the driver refuses
    every other one (``alternating``, the regret loop's, is the factory's to refuse): a driver
    that silently read an option the declarations do not give it (sd-cfr took dream's
    ``policy_steps``) fails here."""
    build = make_fp_solver if algorithm in FP_ALGORITHMS else make_deep_solver
    tree = rcfr.compile_game("kuhn")
    for option in OPTIONS:
        if option.group == RUN or option.name in ("seed", "alternating"):
            continue
        value = _sample(option)
        if algorithm in option.algorithms:
            try:
                build(tree, algorithm, **{option.name: value})
            except RcfrError as exc:  # a value its own checks refuse: read, not ignored
                assert "takes no option" not in str(exc), option.name
        else:
            with pytest.raises((TypeError, RcfrError)):
                build(tree, algorithm, **{option.name: value})


def test_the_committed_store_keeps_every_run_by_its_hash():
    """The 704 paper-budget runs committed in docs/data/paper_runs.db: each stored spec, read
    by today's RunSpec, hashes to the hash it is stored under (moving RunSpec into the engine
    changed no run's identity)."""
    from pathlib import Path

    from rcfr.experiments.store import Store

    db = Path(__file__).resolve().parents[1] / "docs" / "data" / "paper_runs.db"
    store = Store(db, create=False, readonly=True)
    runs = store.runs()
    assert len(runs) == 704
    assert all(RunSpec.from_dict(r["spec"]).hash == r["hash"] for r in runs)
    assert len({r["hash"] for r in runs}) == 704


def test_the_api_takes_the_form_and_refuses_unknown_options():
    """``rcfr.solve(..., form="public")`` solves the public form (as ``--form public``); an
    option no algorithm declares is one RcfrError, not a TypeError from a constructor."""
    from rcfr.forms.public.tree import PublicTree

    result = rcfr.solve("kuhn", "cfr+", 10, form="public")
    assert isinstance(result.policy.tree, PublicTree)
    assert result.evaluation.exploitability == pytest.approx(
        rcfr.solve("kuhn", "cfr+", 10, form="history").evaluation.exploitability, abs=1e-12)
    with pytest.raises(RcfrError, match="unknown option 'bogus'"):
        rcfr.solve("kuhn", "cfr+", 10, bogus=1)

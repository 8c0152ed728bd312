"""One run path (issue 22): ``rcfr solve`` builds a RunSpec from its options and runs it
through the function a sweep's runs go through, so a command line and a sweep cell with the
same options are one run (one hash, the same numbers); the options are declared once
(rcfr.solvers.options) and the command line, RunSpec and make_solver derive from them."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import typer

from rcfr.cli import SOLVE_OWN, app, main
from rcfr.core.errors import RcfrError
from rcfr.experiments import RunSpec, Store, parse_sweep, run_sweep
from rcfr.experiments.spec import SPEC_OPTIONS
from rcfr.solvers.loop import ALGORITHMS
from rcfr.solvers.options import NUMERIC, OPTION, OPTIONS
from rcfr.solvers.run import ALL_ALGORITHMS, make_solver

# the command line and the same run as a sweep spec's base (the sweep's names and defaults:
# alternating updates, evaluation every eval_every iterations or eval_nodes nodes)
CASES = {
    "tabular": (["kuhn", "-a", "dcfr", "--alpha", "2", "--gamma", "3", "-n", "120",
                 "--eval-every", "40"],
                {"game": "kuhn", "algorithm": "dcfr", "alpha": 2.0, "gamma": 3.0,
                 "iterations": 120, "eval_every": 40}),
    "regression": (["kuhn", "-a", "rcfr+", "--regressor", "best-first", "--leaves", "12",
                    "--bootstrap", "--features", "onehot", "-n", "60", "--eval-every", "20",
                    "--simultaneous"],
                   {"game": "kuhn", "algorithm": "rcfr+", "regressor": "best-first",
                    "leaves": 12, "bootstrap": True, "features": "onehot", "iterations": 60,
                    "eval_every": 20, "alternating": False}),
    "sampling": (["kuhn", "-a", "os", "--epsilon", "0.4", "--seed", "5", "--nodes", "30000"],
                 {"game": "kuhn", "algorithm": "os", "epsilon": 0.4, "seed": 5,
                  "nodes": 30000, "eval_nodes": 3000}),  # ten evaluations, as solve's default
}


def _solve_json(capsys, args) -> dict:
    code = main(["solve", *map(str, args), "--json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    return json.loads(cap.out)


def _probs(path) -> np.ndarray:
    with np.load(path, allow_pickle=False) as data:
        return np.array(data["probs"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_command_line_and_a_sweep_cell_are_one_run(capsys, tmp_path, case):
    args, base = CASES[case]
    out = tmp_path / "cli.npz"
    info = _solve_json(capsys, [*args, "--out", out])
    sweep = parse_sweep({"name": case, "base": base, "seeds": [base.get("seed", 0)],
                         "grid": {"algorithm": [base["algorithm"]]}})
    (spec,) = sweep.runs
    assert info["run"] == spec.hash
    with Store(tmp_path / "r.db") as store:
        summary = run_sweep(sweep, store, backend="inline")
        assert summary.done == 1, summary.errors
        row, points = store.run(spec.hash), store.points(spec.hash)
        stored = _probs(store.strategy_path(spec.hash))
    assert row["exploitability"] == info["exploitability"]
    assert row["value"] == info["value"]
    assert (row["iterations"], row["nodes"]) == (info["iterations"], info["nodes_visited"])
    assert row["complexity"] == info.get("complexity")
    assert [[p["iterations"], p["exploitability"]] for p in points] == info["curve"]
    assert [p["nodes"] for p in points] == info["curve_nodes"]
    assert len(points) >= 3
    np.testing.assert_array_equal(stored, _probs(out))


def test_the_solve_command_shows_each_declared_option_once(capsys):
    command = typer.main.get_command(app).commands["solve"]
    names = [p.name for p in command.params]
    assert len(names) == len(set(names))
    declared = {o.cli_name for o in OPTIONS if o.cli}
    own = set(SOLVE_OWN)  # the game and the files, limits and output format of one call
    assert set(names) == declared | own and not declared & own
    assert not own & {o.name for o in OPTIONS}  # no run option is spelled out by hand
    spellings = [s for p in command.params for s in (*p.opts, *p.secondary_opts)]
    assert len(spellings) == len(set(spellings))
    by_name = {p.name: p for p in command.params}
    for o in OPTIONS:
        if o.cli:
            param = by_name[o.cli_name]
            assert [s for d in o.cli for s in d.split("/")] == \
                [*param.opts, *param.secondary_opts], o.name
            assert param.help == o.help and param.default == o.on_cli_default, o.name
    assert main(["solve", "--help"]) == 0
    text = capsys.readouterr().out
    for o in OPTIONS:
        for flag in o.cli:
            assert flag.split("/")[0] in text, flag
    # a RunSpec has one field per declared option (and the sweep's own), nothing else
    assert [f.name for f in dataclasses.fields(RunSpec)] == \
        ["game", *(o.name for o in OPTIONS), *(o.name for o in SPEC_OPTIONS)]


def test_run_specs_refuse_unknown_keys_and_check_the_declared_ranges():
    with pytest.raises(RcfrError, match=r"^colour: unknown key; a run takes abstraction, "):
        RunSpec.from_dict({"game": "kuhn", "iterations": 10, "colour": "red"})
    for key, value, message in [("seed", -1, "seed: must be a whole number from 0"),
                                ("eval_every", -1, "eval_every: must be >= 0, got -1"),
                                ("iterations", 2**63, "iterations: must be at most"),
                                ("epsilon", float("nan"), "epsilon: expected a number")]:
        with pytest.raises(RcfrError, match=message):
            RunSpec.from_dict({"game": "kuhn", "iterations": 10, key: value})
    # a flag a run records only when on: off and unset are the same run
    plain = RunSpec(game="kuhn", algorithm="es", iterations=10)
    assert RunSpec(game="kuhn", algorithm="es", iterations=10, minibatch=False) == plain


def _sample(option):
    return {"regressor": "tabular", "features": "onehot", "average_regressor": "tabular",
            "average_target": "strategy", "dtype": "float32", "storage": "int16", "rule": "cfr+",
            "prune": "partial",
            "criterion": "squared_error", "hidden": "8", "step": "harmonic",
            "baseline": "table", "backend": "numpy", "network": "mlp", "lock": "lock.toml"}.get(
        option.name, {int: 4, float: 0.5, bool: True}.get(option.type))


def test_make_solver_refuses_what_the_declarations_say_an_algorithm_ignores():
    refused = 0
    for o in OPTIONS:
        if not o.algorithms:
            continue
        for algorithm in ALL_ALGORITHMS:
            if algorithm in o.algorithms or algorithm in o.schemes:
                continue
            with pytest.raises(RcfrError, match=o.flag):
                make_solver("kuhn", algorithm, **{o.name: _sample(o)})
            refused += 1
    for o in OPTIONS:  # the numeric options of the rules, for the tabular algorithms
        if o.group != NUMERIC:
            continue
        value = {"gamma0": 15.0, "horizon": 100}.get(o.name, 0.5)  # (in range)
        for algorithm in ALGORITHMS:
            if algorithm in o.rules:
                make_solver("kuhn", algorithm, **{o.name: value})
            else:
                with pytest.raises(RcfrError, match=f"{o.flag} applies to"):
                    make_solver("kuhn", algorithm, **{o.name: value})
                refused += 1
    assert refused > 50
    assert OPTION["minibatch"].flag == "--minibatch" and OPTION["alternating"].flag == \
        "--simultaneous"

"""The CLI's regression and sampling algorithms: --algorithm rcfr|rcfr+|cs|es|os|as, their
options, the --nodes budget and the JSON fields they add."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_cli as run

import rcfr
from rcfr.solvers.rcfr import RCFRSolver


def run_json(capsys, *args):
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_rcfr_json_matches_api(capsys):
    info = run_json(capsys, "solve", "leduc(canonical=true)", "-a", "rcfr+", "--leaves", "302",
                    "-n", "200", "--bootstrap")
    assert info["complexity"] <= 302
    assert info["complexity_share"] == pytest.approx(info["complexity"] / 672)
    tree = rcfr.compile_game("leduc(canonical=true)")
    api = RCFRSolver(tree, "rcfr+", leaves=302, bootstrap=True).run(200)
    assert info["exploitability"] == pytest.approx(
        rcfr.exploitability(tree, api.average_policy()), abs=1e-12)
    assert info["nodes_visited"] == 200 * 2 * tree.num_nodes


def test_tabular_rcfr_cli_equals_cfr(capsys):
    a = run_json(capsys, "solve", "kuhn", "-a", "rcfr", "--regressor", "tabular", "-n", "300")
    b = run_json(capsys, "solve", "kuhn", "-a", "cfr", "-n", "300")
    assert a["exploitability"] == b["exploitability"]
    assert a["complexity"] == b["complexity"] == 24


def test_sampling_nodes_budget(capsys):
    info = run_json(capsys, "solve", "kuhn", "-a", "es", "--nodes", "100000", "--seed", "3")
    assert 100000 <= info["nodes_visited"] < 100000 + 200  # whole iterations, small overshoot
    again = run_json(capsys, "solve", "kuhn", "-a", "es", "--nodes", "100000", "--seed", "3")
    assert again["exploitability"] == info["exploitability"]  # seeded: reproducible
    assert len(info["curve"]) == len(info["curve_nodes"]) >= 10
    assert info["curve_nodes"] == sorted(info["curve_nodes"])
    assert info["exploitability"] < 0.05


@pytest.mark.parametrize("args, message", [
    (["-a", "as", "--tau", "0.5"], "tau"),
    (["-a", "as", "--beta", "-1"], "beta"),
    (["-a", "os", "--epsilon", "0"], "epsilon"),
    (["-a", "os", "--epsilon", "1.5"], "epsilon"),
    (["-a", "cfr", "--tau", "2"], "sampling schemes"),
    (["-a", "cfr+", "--leaves", "10"], "applies to rcfr"),
    (["-a", "rcfr", "--leaves", "0"], "leaf budget"),
    (["-a", "rcfr", "--regressor", "forest"], "unknown regressor"),
    (["-a", "rcfr", "--link", "poly:1"], "p > 1"),
    (["-a", "rcfr", "--link", "exp:0"], "temperature"),
    (["-a", "es", "--nodes", "0"], "--nodes"),
    (["-a", "nope"], "unknown algorithm"),
])
def test_bad_options(capsys, args, message):
    code, out, err = run(capsys, "solve", "kuhn", *args)
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith("error:") and message in err
    assert "Traceback" not in err


def test_current_strategy_output(capsys, tmp_path):
    avg, cur = tmp_path / "avg.npz", tmp_path / "cur.npz"
    info = run_json(capsys, "solve", "kuhn", "-a", "rcfr", "--regressor", "tabular", "-n", "50",
                    "-o", avg, "--out-current", cur)
    assert info["out_current"] == str(cur)
    solver = RCFRSolver("kuhn", "rcfr", regressor="tabular").run(50)
    tree = solver.tree
    np.testing.assert_array_equal(rcfr.TabularPolicy.load(cur, tree).probs,
                                  solver.current_policy().probs)
    np.testing.assert_allclose(rcfr.TabularPolicy.load(avg, tree).probs,
                               solver.average_policy().probs)

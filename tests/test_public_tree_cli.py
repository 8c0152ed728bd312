"""The public form on the command line: --form on solve and evaluate, both forms in games."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli as run


def test_games_shows_both_forms(capsys):
    code, out, err = run(capsys, "games", "kuhn", "goofspiel", "liars_dice", "--json")
    assert code == 0, err
    rows = {r["name"]: r for r in json.loads(out)}
    assert rows["kuhn"]["public_nodes"] == 9 and rows["kuhn"]["histories"] == 58
    assert rows["liars_dice"]["public_nodes"] == 8191
    assert 0 < rows["liars_dice"]["public_mb"] < rows["liars_dice"]["history_mb"]
    assert rows["goofspiel"]["public_nodes"] is None  # no public form: bids are hidden
    code, out, _ = run(capsys, "games", "kuhn")
    assert code == 0 and "public" in out and "\t9\t" in out  # piped: tab-separated


def test_solve_and_evaluate_on_the_public_form(capsys, tmp_path):
    path = tmp_path / "kuhn.npz"
    code, out, err = run(capsys, "solve", "kuhn", "--form", "public", "-n", "500", "-o", path,
                         "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["exploitability"] < 2e-3 and info["nodes_visited"] == 500 * 2 * 58
    assert info["value"] == pytest.approx(-1 / 18, abs=2e-3)
    code, out, err = run(capsys, "evaluate", "kuhn", path, "--form", "public", "--json")
    assert code == 0, err
    assert json.loads(out)["exploitability"] == pytest.approx(info["exploitability"], abs=1e-12)
    code, out, err = run(capsys, "solve", "leduc(canonical=true)", "--form", "public", "-a", "es",
                         "-n", "1000", "--json")
    assert code == 0, err
    assert json.loads(out)["exploitability"] < 1.0 and json.loads(out)["nodes_visited"] > 0
    code, out, err = run(capsys, "evaluate", "liars_dice", "--uniform", "--form", "public",
                         "--json")
    assert json.loads(out)["exploitability"] == pytest.approx(0.78074432, abs=1e-8)


@pytest.mark.parametrize("args", [
    ("solve", "leduc", "--form", "public", "-a", "rcfr"),  # the thesis features: history
    ("solve", "leduc", "--form", "public", "-a", "es", "--leaves", "4"),
    ("solve", "kuhn", "--form", "public", "--leaves", "4"),
    ("solve", "kuhn", "--form", "sideways"),
    ("evaluate", "goofspiel", "--uniform", "--form", "public"),
])
def test_bad_form_requests_are_one_line_errors(capsys, args):
    code, _, err = run(capsys, *args)
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("error: ")

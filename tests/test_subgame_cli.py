"""``rcfr resolve`` against a near-equilibrium blueprint: by default it re-solves until the
result is no more exploitable than the blueprint, or says in one line why not; the smallest
margin comes with what it means; time budgets are finite."""

from __future__ import annotations

import json

import pytest
from conftest import one_line_error, run_cli

from rcfr.evaluate import evaluate
from rcfr.policy import TabularPolicy


@pytest.fixture(scope="module")
def close_blueprint(tmp_path_factory):
    """The README's Leduc blueprint, shorter: CFR+ on the full game, 2,000 iterations (about
    0.15 mbb/g), on which 1,000 CFR+ iterations per gadget, the old default, leave the
    re-solved strategy more exploitable than the blueprint."""
    from rcfr.cli import main

    path = tmp_path_factory.mktemp("bp") / "leduc.npz"
    assert main(["solve", "leduc", "-a", "cfr+", "-n", "2000", "-o", str(path)]) == 0
    return path


def test_default_resolve_is_not_worse_than_the_blueprint(close_blueprint, capsys):
    """The README's line (``rcfr resolve leduc leduc.npz --method reach-maxmargin``) ends no
    worse than the blueprint; the old default (1,000 CFR+ iterations per gadget) ended worse,
    and says why in one line."""
    code, out, _ = run_cli(capsys, "resolve", "leduc", close_blueprint, "--method",
                           "reach-maxmargin", "--json")
    assert code == 0
    info = json.loads(out)
    assert info["exploitability"] <= info["blueprint_exploitability"]
    assert not info["worse_than_blueprint"] and "warning" not in info
    assert info["iterations"] > 1000  # it took more than one round
    code, out, _ = run_cli(capsys, "resolve", "leduc", close_blueprint, "--method",
                           "reach-maxmargin", "-a", "cfr+", "-n", "1000")
    assert code == 0
    assert "(1,000 iterations per subgame)" in out
    warnings = [line for line in out.splitlines() if "warning:" in line]
    assert len(warnings) == 1
    assert "more exploitable than the blueprint" in warnings[0] and "-n" in warnings[0]


def test_margin_is_explained(close_blueprint, capsys, tmp_path):
    """A negative smallest margin is explained (the gadgets are not solved precisely enough;
    for the estimated variants, or the alternative values are not attainable); a capped
    re-solve that stays worse says to raise the cap; the file written is the result."""
    out_file = tmp_path / "re.npz"
    code, out, _ = run_cli(capsys, "resolve", "leduc", close_blueprint, "--max-iterations",
                           "50", "-o", out_file)
    assert code == 0
    margin = next(line for line in out.splitlines() if "smallest margin" in line)
    value = float(margin.split()[2].rstrip(":"))
    assert value < 0 and "not solved to the precision needed" in margin
    assert "(50 iterations per subgame)" in out
    assert "raise --max-iterations" in out
    re_solved = evaluate(TabularPolicy.load(out_file, "leduc"))
    assert f"{re_solved.exploitability:.6g}" in out
    code, out, _ = run_cli(capsys, "resolve", "leduc", close_blueprint, "--values",
                           "blueprint", "--method", "maxmargin", "-n", "50", "--json")
    info = json.loads(out)
    assert code == 0 and info["min_margin"] < 0
    assert "not attainable" in info["margin"]
    code, out, _ = run_cli(capsys, "resolve", "leduc", close_blueprint, "--method", "unsafe",
                           "-n", "20", "--json")
    assert code == 0 and "no guarantee" in json.loads(out)["margin"]


@pytest.mark.parametrize("seconds", ["inf", "1e308", "nan", "0", "-1", "86401"])
def test_seconds_must_be_finite(close_blueprint, capsys, seconds):
    """``--seconds inf`` (or absurd values) once ran forever: one ``error:`` line, exit 2."""
    code, _, err = run_cli(capsys, "resolve", "leduc", close_blueprint, "--seconds", seconds)
    assert "--seconds must be a positive number" in one_line_error(code, err)


def test_max_iterations_is_a_count(close_blueprint, capsys):
    code, _, err = run_cli(capsys, "resolve", "leduc", close_blueprint, "--max-iterations", "0")
    assert "--max-iterations must be positive" in one_line_error(code, err)

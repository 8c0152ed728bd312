"""The ``rcfr`` command line, called in-process through ``rcfr.cli.main`` (plus one real
subprocess): JSON output against known values, human output, and one-line errors with exit
code 2 for every kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli as run

from rcfr.policy import TabularPolicy

KUHN_VALUE = -1.0 / 18.0
LEDUC_UNIFORM_EXPL = 2.373611  # 2.3736111... in both the plain and the canonical form
KUHN_UNIFORM_EXPL = 0.458333  # 11/24




def run_json(capsys, *args: str):
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    assert err == ""
    return json.loads(out)


def assert_one_line_error(code: int, err: str) -> str:
    assert code == 2
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error:")
    assert len(lines[0]) > len("error: ")
    return lines[0]


def load_probs(path: Path) -> np.ndarray:
    with np.load(path, allow_pickle=False) as data:
        return np.array(data["probs"])


# -- games -----------------------------------------------------------------------------------


def test_games_json_sizes(capsys):
    rows = run_json(capsys, "games")
    assert isinstance(rows, list)
    by_name = {r["name"]: r for r in rows}
    assert {"kuhn", "leduc", "leduc(canonical=true)", "rps"} <= set(by_name)
    kuhn = by_name["kuhn"]
    assert (kuhn["histories"], kuhn["terminals"], kuhn["infosets"], kuhn["sequences"]) == (
        58, 30, 12, 24)
    leduc = by_name["leduc"]
    assert (leduc["histories"], leduc["infosets"], leduc["sequences"]) == (9457, 936, 2184)
    canon = by_name["leduc(canonical=true)"]
    assert (canon["infosets"], canon["sequences"]) == (288, 672)
    rps = by_name["rps"]
    assert (rps["infosets"], rps["sequences"]) == (2, 6)


# -- solve / evaluate / lp -------------------------------------------------------------------


def test_solve_kuhn_json_then_evaluate(capsys, tmp_path):
    f = tmp_path / "kuhn.npz"
    info = run_json(capsys, "solve", "kuhn", "--algorithm", "cfr+", "--iterations", "2000",
                    "--eval-every", "500", "--out", f)
    for key in ("game", "algorithm", "iterations", "seconds", "value", "exploitability",
                "nash_conv", "out", "curve"):
        assert key in info
    assert info["game"] == "kuhn"
    assert info["algorithm"] == "cfr+"
    assert info["iterations"] == 2000
    assert info["seconds"] > 0
    assert abs(info["value"] - KUHN_VALUE) < 1e-3
    assert 0 <= info["exploitability"] < 1e-3
    assert info["nash_conv"] == pytest.approx(2 * info["exploitability"], rel=1e-12, abs=1e-15)
    assert info["out"] == str(f)
    curve = info["curve"]
    assert [p[0] for p in curve] == [500, 1000, 1500, 2000]
    assert curve[-1][1] < curve[0][1]
    assert curve[-1][1] == pytest.approx(info["exploitability"], abs=1e-12)
    assert f.is_file()

    ev = run_json(capsys, "evaluate", "kuhn", f)
    assert {"value", "best_response_values", "exploitability", "nash_conv"} <= set(ev)
    assert abs(ev["exploitability"] - info["exploitability"]) < 1e-12
    assert abs(ev["value"] - info["value"]) < 1e-12
    assert len(ev["best_response_values"]) == 2
    # NashConv: the sum of both players' gains from best-responding
    br0, br1 = ev["best_response_values"]
    assert ev["nash_conv"] == pytest.approx((br0 - ev["value"]) + (br1 + ev["value"]),
                                            abs=1e-12)


@pytest.mark.parametrize("game, expected", [
    ("leduc", LEDUC_UNIFORM_EXPL),
    ("leduc(canonical=true)", LEDUC_UNIFORM_EXPL),
    ("kuhn", KUHN_UNIFORM_EXPL),
])
def test_evaluate_uniform(capsys, game, expected):
    ev = run_json(capsys, "evaluate", game, "--uniform")
    assert abs(ev["exploitability"] - expected) < 1e-6
    assert ev["nash_conv"] == pytest.approx(2 * ev["exploitability"], abs=1e-12)


def test_lp_kuhn_value(capsys):
    res = run_json(capsys, "lp", "kuhn")
    assert abs(res["value"] - KUHN_VALUE) < 1e-9
    assert res["exploitability"] < 1e-9


def test_human_output_mentions_exploitability_and_mbb(capsys, tmp_path):
    f = tmp_path / "k.npz"
    code, out, err = run(capsys, "solve", "kuhn", "-n", "50", "--out", f)
    assert code == 0, err
    assert "exploitability" in out
    assert "mbb/g" in out
    assert "kuhn" in out
    code, out, err = run(capsys, "evaluate", "kuhn", f)
    assert code == 0, err
    assert "exploitability" in out
    assert "mbb/g" in out
    code, out, err = run(capsys, "evaluate", "leduc", "--uniform")
    assert code == 0, err
    assert "2.37361" in out  # the exploitability, in chips
    assert "mbb/g" in out
    # rock-paper-scissors is no poker game: no mbb/g
    code, out, err = run(capsys, "evaluate", "rps", "--uniform")
    assert code == 0, err
    assert "exploitability" in out
    assert "mbb/g" not in out


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["solve", "kuhn", "--iterations", "0"],
    ["solve", "kuhn", "--iterations", "-5"],
    ["solve", "kuhn", "--iterations", "abc"],
    ["solve", "kuhn", "--algorithm", "nope", "-n", "10"],
    ["solve", "leduc(canonical=", "-n", "1"],
    ["evaluate", "leduc(canonical=", "--uniform"],
    ["solve", "leduc(foo=1)", "-n", "1"],
    ["games", "leduc(foo=1)"],
    ["lp", "nosuchgame"],
])
def test_bad_arguments(capsys, args):
    code, out, err = run(capsys, *args)
    assert_one_line_error(code, err)


def test_unknown_game_lists_known_games(capsys):
    code, _, err = run(capsys, "solve", "nosuchgame", "-n", "10")
    line = assert_one_line_error(code, err)
    assert "nosuchgame" in line
    for name in ("kuhn", "leduc", "rps"):
        assert name in line


def test_iteration_errors_name_the_option(capsys):
    for bad in ("0", "-5", "abc"):
        code, _, err = run(capsys, "solve", "kuhn", "--iterations", bad)
        line = assert_one_line_error(code, err)
        assert "iterations" in line
        if bad != "abc":
            assert bad in line


def test_unknown_parameter_named(capsys):
    code, _, err = run(capsys, "evaluate", "leduc(foo=1)", "--uniform")
    line = assert_one_line_error(code, err)
    assert "foo" in line


def _bad_files(folder: Path) -> dict[str, Path]:
    files = {}
    leduc = folder / "leduc.npz"
    TabularPolicy.uniform("leduc").save(leduc)
    files["other game"] = leduc
    rnd = folder / "random.npz"
    rnd.write_bytes(np.random.default_rng(0).bytes(512))
    files["random bytes"] = rnd
    real = folder / "real.npz"
    TabularPolicy.uniform("kuhn").save(real)
    data = real.read_bytes()
    trunc = folder / "truncated.npz"
    trunc.write_bytes(data[: len(data) // 2])
    files["truncated"] = trunc
    plain = folder / "plain.npz"
    np.savez(plain, probs=TabularPolicy.uniform("kuhn").probs)
    files["no header"] = plain
    files["missing"] = folder / "does_not_exist.npz"
    files["directory"] = folder
    return files


@pytest.mark.parametrize("kind", ["other game", "random bytes", "truncated", "no header",
                                  "missing", "directory"])
def test_bad_strategy_files(capsys, tmp_path, kind):
    path = _bad_files(tmp_path)[kind]
    code, out, err = run(capsys, "evaluate", "kuhn", path)
    line = assert_one_line_error(code, err)
    assert out == ""
    if kind == "other game":
        assert "leduc" in line and "kuhn" in line


def test_evaluate_needs_exactly_one_of_file_and_uniform(capsys, tmp_path):
    code, _, err = run(capsys, "evaluate", "kuhn")
    assert_one_line_error(code, err)
    f = tmp_path / "k.npz"
    TabularPolicy.uniform("kuhn").save(f)
    code, _, err = run(capsys, "evaluate", "kuhn", f, "--uniform")
    assert_one_line_error(code, err)


def test_real_subprocess_exit_code_and_one_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "rcfr", "solve", "nosuchgame", "--out", str(tmp_path / "x.npz")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    assert "known games" in lines[0]
    assert not (tmp_path / "x.npz").exists()


# -- files -----------------------------------------------------------------------------------


def test_out_into_missing_folder(capsys, tmp_path):
    target = tmp_path / "no" / "such" / "folder" / "x.npz"
    code, out, err = run(capsys, "solve", "kuhn", "-n", "10", "--out", target)
    line = assert_one_line_error(code, err)
    assert "does not exist" in line
    assert not target.parent.exists()


def test_failed_solve_leaves_no_file(capsys, tmp_path):
    target = tmp_path / "x.npz"
    code, _, err = run(capsys, "solve", "kuhn", "--algorithm", "nope", "-n", "10",
                       "--out", target)
    assert_one_line_error(code, err)
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_successful_save_leaves_no_temp_files(capsys, tmp_path):
    out_file, ckpt = tmp_path / "avg.npz", tmp_path / "state.npz"
    code, _, err = run(capsys, "solve", "kuhn", "-n", "20", "--out", out_file,
                       "--checkpoint", ckpt)
    assert code == 0, err
    kept = ["avg.npz", "state.npz", "state.npz.curve.json"]  # (the curve beside a checkpoint)
    assert sorted(p.name for p in tmp_path.iterdir()) == kept
    # saving over an existing file also leaves nothing behind
    code, _, err = run(capsys, "solve", "kuhn", "-n", "30", "--out", out_file)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == kept
    assert TabularPolicy.load(out_file).metadata["iterations"] == 30


def test_resume_matches_uninterrupted_run(capsys, tmp_path):
    ckpt, half, resumed, full = (tmp_path / n for n in ("c.npz", "half.npz", "res.npz",
                                                         "full.npz"))
    a = run_json(capsys, "solve", "kuhn", "--algorithm", "cfr+", "--iterations", "500",
                 "--checkpoint", ckpt, "--out", half)
    assert a["iterations"] == 500
    assert a["checkpoint"] == str(ckpt)
    b = run_json(capsys, "solve", "kuhn", "--algorithm", "cfr+", "--resume", ckpt,
                 "--iterations", "500", "--out", resumed)
    assert b["iterations"] == 1000
    c = run_json(capsys, "solve", "kuhn", "--algorithm", "cfr+", "--iterations", "1000",
                 "--out", full)
    p_res, p_full, p_half = load_probs(resumed), load_probs(full), load_probs(half)
    assert p_res.shape == p_full.shape == (24,)
    np.testing.assert_allclose(p_res, p_full, rtol=0, atol=1e-15)
    assert not np.allclose(p_half, p_full, rtol=0, atol=1e-9)  # the resume did move on
    assert abs(b["exploitability"] - c["exploitability"]) < 1e-15


def test_a_resumed_solves_curve_goes_on_from_the_earlier_points(capsys, tmp_path):
    """``--checkpoint FILE`` keeps the evaluation points beside it (``FILE.curve.json``), so a
    run resumed from it reports the whole curve, equal to an uninterrupted run's; a new run
    with the same checkpoint drops the old points; a damaged curve file is one error line."""
    ckpt = tmp_path / "c.npz"
    base = ("solve", "kuhn", "-a", "cfr+", "--eval-every", "20", "--iterations", "100")
    first = run_json(capsys, *base, "--checkpoint", ckpt)
    assert [i for i, _ in first["curve"]] == [20, 40, 60, 80, 100]
    assert (tmp_path / "c.npz.curve.json").is_file()
    second = run_json(capsys, *base, "--resume", ckpt, "--checkpoint", tmp_path / "d.npz")
    straight = run_json(capsys, "solve", "kuhn", "-a", "cfr+", "--eval-every", "20",
                        "--iterations", "200")
    assert [i for i, _ in second["curve"]] == list(range(20, 201, 20))
    assert second["curve"] == straight["curve"]  # bit for bit
    assert second["curve_nodes"] == straight["curve_nodes"]
    third = run_json(capsys, *base, "--resume", tmp_path / "d.npz")  # read, not written
    assert [i for i, _ in third["curve"]] == list(range(20, 301, 20))
    # a new run at the same checkpoint: the old points are gone (evaluated nowhere: no file)
    run_json(capsys, "solve", "kuhn", "-a", "cfr+", "--iterations", "10", "--eval-every", "0",
             "--checkpoint", ckpt)
    assert not (tmp_path / "c.npz.curve.json").exists()
    fresh = run_json(capsys, "solve", "kuhn", "-a", "cfr+", "--iterations", "10",
                     "--eval-every", "5", "--checkpoint", ckpt)
    again = run_json(capsys, "solve", "kuhn", "-a", "cfr+", "--iterations", "10",
                     "--eval-every", "5", "--resume", ckpt)
    assert [i for i, _ in fresh["curve"]] == [5, 10]
    assert [i for i, _ in again["curve"]] == [5, 10, 15, 20]
    point = ('{"iterations": 20, "nodes": 232, "seconds": 0.1, "exploitability": %s, '
             '"value": null}')
    for bad in ('{"points": [{"iterations": "x"}]}', '{"points": [%s]}' % (point % "NaN"),
                '{"points": [%s], "seconds": "1"}' % (point % "0.5"), "[]", "\xff"):
        (tmp_path / "d.npz.curve.json").write_text(bad)
        code, out, err = run(capsys, *base, "--resume", tmp_path / "d.npz")
        assert code == 2 and err.count("error:") == 1 and "not a curve file" in err, bad
        assert "Traceback" not in err


def test_resume_with_other_algorithm_fails(capsys, tmp_path):
    ckpt = tmp_path / "cfr.npz"
    target = tmp_path / "out.npz"
    code, _, err = run(capsys, "solve", "kuhn", "--algorithm", "cfr", "-n", "20",
                       "--checkpoint", ckpt)
    assert code == 0, err
    code, _, err = run(capsys, "solve", "kuhn", "--algorithm", "cfr+", "-n", "20",
                       "--resume", ckpt, "--out", target)
    line = assert_one_line_error(code, err)
    assert "cfr" in line
    assert not target.exists()


def test_resume_with_other_game_fails(capsys, tmp_path):
    ckpt = tmp_path / "kuhn_ckpt.npz"
    code, _, err = run(capsys, "solve", "kuhn", "-n", "20", "--checkpoint", ckpt)
    assert code == 0, err
    code, _, err = run(capsys, "solve", "rps", "-n", "20", "--resume", ckpt)
    line = assert_one_line_error(code, err)
    assert "kuhn" in line
    # a policy file is not a checkpoint
    pol = tmp_path / "pol.npz"
    TabularPolicy.uniform("kuhn").save(pol)
    code, _, err = run(capsys, "solve", "kuhn", "-n", "20", "--resume", pol)
    assert_one_line_error(code, err)


# -- regressions -----------------------------------------------------------------------------


def test_bad_checkpoint_path_fails_before_writing_anything(capsys, tmp_path):
    out = tmp_path / "o.npz"
    code, _, err = run(capsys, "solve", "kuhn", "-n", "10", "--out", out,
                       "--checkpoint", tmp_path / "missing" / "c.npz")
    assert "does not exist" in assert_one_line_error(code, err)
    assert not out.exists()
    code, _, err = run(capsys, "solve", "kuhn", "-n", "10", "--out", tmp_path)
    assert "directory" in assert_one_line_error(code, err)


def test_paths_with_brackets_are_printed_verbatim(capsys, tmp_path):
    folder = tmp_path / "a["
    folder.mkdir()
    out = folder / "[red]k.npz"
    code, text, err = run(capsys, "solve", "kuhn", "-n", "10", "--out", out)
    assert code == 0, err
    assert str(out) in text
    code, text, err = run(capsys, "evaluate", "kuhn", out)
    assert code == 0, err
    assert str(out) in text


def test_saved_files_follow_the_umask(capsys, tmp_path):
    import os

    old = os.umask(0o022)
    try:
        assert run(capsys, "solve", "kuhn", "-n", "10", "--out", tmp_path / "p.npz")[0] == 0
    finally:
        os.umask(old)
    assert (tmp_path / "p.npz").stat().st_mode & 0o777 == 0o644


def test_resume_with_other_averaging_fails(capsys, tmp_path):
    ckpt = tmp_path / "c.npz"
    assert run(capsys, "solve", "kuhn", "-n", "10", "--checkpoint", ckpt)[0] == 0
    code, _, err = run(capsys, "solve", "kuhn", "-n", "10", "--resume", ckpt,
                       "--averaging", "quadratic")
    assert "averaging" in assert_one_line_error(code, err)


def test_checkpoint_is_not_a_strategy(capsys, tmp_path):
    ckpt = tmp_path / "c.npz"
    assert run(capsys, "solve", "kuhn", "-n", "10", "--checkpoint", ckpt)[0] == 0
    code, _, err = run(capsys, "evaluate", "kuhn", ckpt)
    assert "is not a rcfr.policy file" in assert_one_line_error(code, err)


def test_averaging_uniform_solves_and_reports_its_run(capsys, tmp_path):
    """Issue 30: ``--averaging`` was passed twice after the solve (a TypeError traceback)."""
    from rcfr.experiments import RunSpec
    from rcfr.solvers import CFRSolver

    f = tmp_path / "k.npz"
    info = run_json(capsys, "solve", "kuhn", "--averaging", "uniform", "-n", "50", "--out", f)
    assert info["iterations"] == 50 and f.is_file()
    assert info["run"] == RunSpec(game="kuhn", iterations=50, eval_every=5,
                                  averaging="uniform").hash
    api = CFRSolver("kuhn", "cfr+", averaging="uniform").run(50)
    np.testing.assert_array_equal(load_probs(f), api.average_policy().probs)
    linear = run_json(capsys, "solve", "kuhn", "-n", "50")  # cfr+'s own averaging differs
    assert linear["exploitability"] != info["exploitability"]


def test_piped_tables_keep_whole_numbers_and_headers():
    # piped or redirected, a table is tab-separated: Rich sized it to 80 columns and cut the
    # numbers and headers to "hist…" (issue 30)
    done = subprocess.run([sys.executable, "-m", "rcfr", "games", "leduc", "liars_dice"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split("\t") == ["game", "histories", "terminals", "infosets", "sequences",
                                    "history MiB", "public nodes", "public MiB"]
    rows = {line.split("\t")[0]: line.split("\t") for line in lines[1:3]}
    assert rows["leduc"][1:5] == ["9,457", "5,520", "936", "2,184"]
    assert rows["liars_dice"][1:5] == ["294,883", "147,420", "24,576", "49,140"]
    assert "…" not in done.stdout

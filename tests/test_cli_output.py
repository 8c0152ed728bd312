"""What the commands print for a user: the files they wrote, ``play --json`` for scripts, and
the notes beside results that would otherwise look wrong."""

from __future__ import annotations

import io
import json

from conftest import run_cli as run

import rcfr


def test_lp_names_the_file_it_wrote(capsys, tmp_path):
    path = tmp_path / "eq.npz"
    code, out, err = run(capsys, "lp", "kuhn", "-o", path)
    assert code == 0, err
    assert f"equilibrium -> {path}" in out and path.is_file()


def test_play_json_is_one_summary_object(capsys, monkeypatch, tmp_path):
    """play --json: the dialogue goes to stderr and stdout holds one object whose payoffs are
    the hands' (the same seed and input play the same hands as without --json)."""
    path = tmp_path / "eq.npz"
    tree = rcfr.compile_game("kuhn")
    rcfr.TabularPolicy(tree, rcfr.solve_lp(tree).strategy).save(path)
    moves = "pass\npass\npass\npass\npass\npass\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(moves))
    code, plain, _ = run(capsys, "play", "kuhn", path, "--hands", "3", "--seed", "4")
    assert code == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(moves))
    code, out, err = run(capsys, "play", "kuhn", path, "--hands", "3", "--seed", "4", "--json")
    assert code == 0
    info = json.loads(out)  # the whole of stdout is the one object
    assert info["game"] == "kuhn" and info["seat"] == 0 and info["hands"] == 3
    won = [ln.split() for ln in err.splitlines() if ln.split()[:2] in (["you", "win"],
                                                                      ["you", "lose"],
                                                                      ["you", "tie"])]
    assert info["payoffs"] == [{"win": 1, "lose": -1, "tie": 0}[w[1]] * float(w[2])
                               for w in won]
    assert info["total"] == sum(info["payoffs"]) and info["played"] == len(won)
    assert info["ended_early"] == (info["played"] < 3)
    assert f"{info['total']:+g} in all" in plain  # the same hands as the plain session
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, _ = run(capsys, "play", "kuhn", path, "--json")
    info = json.loads(out)
    assert info["played"] == 0 and info["per_hand"] is None and info["ended_early"] is True


def test_nfsp_counts_episodes_and_says_how_many_it_needs(capsys):
    code, out, err = run(capsys, "solve", "kuhn", "-a", "nfsp", "--episodes", "40", "--envs",
                         "8", "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["episodes"] == info["iterations"] >= 40 and info["nodes_visited"] is None
    assert any("millions of episodes" in n for n in info["notes"])
    code, out, _ = run(capsys, "solve", "kuhn", "-a", "nfsp", "--episodes", "40", "--envs", "8")
    first = out.splitlines()[0]
    assert f"{info['episodes']:,} episodes in" in first and "nodes" not in first
    assert "note: nfsp learns from self-play" in out


def test_a_linear_model_with_too_few_features_says_it_plateaus(capsys):
    """f-RCFR with 8 hashed features (80) cannot fit Leduc's 468 information sets a player: the
    output says so; with 50 (500 features) it does not."""
    code, out, err = run(capsys, "solve", "leduc", "-a", "rcfr", "--regressor", "ridge",
                         "--features", "hashing:8", "-n", "1")
    assert code == 0, err
    assert "note: the linear model has 80 features (--features hashing:8) for 468 " \
           "information sets" in out
    info = json.loads(run(capsys, "solve", "leduc", "-a", "rcfr", "--regressor", "ridge",
                          "--features", "hashing:50", "-n", "1", "--json")[1])
    assert info["notes"] == []


def test_the_plain_result_prints_when_no_time_passed(capsys):
    # a run measured at 0 seconds has no rate (None): the line leaves it out (it was a TypeError)
    import dataclasses

    import rcfr
    from rcfr.cli import _print_solve

    result = dataclasses.replace(rcfr.solve("kuhn", "cfr", iterations=3), seconds=0.0)
    info = result.to_dict() | {"notes": []}
    assert info["iterations_per_second"] is None
    _print_solve(result, info, result.solver.tree, None)
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("cfr on kuhn: 3 iterations") and "it/s" not in first

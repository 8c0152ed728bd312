"""Playing against a saved strategy (``rcfr play``): scripted input, payoffs that agree with
the evaluator, and one-line errors."""

import io

import numpy as np
import pytest

import rcfr
from rcfr.cli import main
from rcfr.play import play_hand


@pytest.fixture(scope="module")
def kuhn_eq():
    tree = rcfr.compile_game("kuhn")
    return rcfr.TabularPolicy(tree, rcfr.solve_lp(tree).strategy)


def test_always_pass_earns_its_expected_value(kuhn_eq):
    """A human who always passes, as player 0, against the equilibrium: the mean payoff over
    many hands matches the exact value of that profile."""
    tree = kuhn_eq.tree
    rng = np.random.default_rng(0)
    out: list[str] = []
    payoffs = [play_hand(kuhn_eq, 0, rng, lambda: "pass", out.append) for _ in range(4000)]
    passive = kuhn_eq.probs.copy()
    p0 = tree.player_sequences(0)
    passive[p0.start:p0.stop] = np.where(tree.seq_action[p0.start:p0.stop] == 0, 1.0, 0.0)
    exact = rcfr.expected_value(tree, rcfr.TabularPolicy(tree, passive))
    se = np.std(payoffs) / np.sqrt(len(payoffs))
    assert abs(np.mean(payoffs) - exact) < 4 * se
    assert any(line.startswith("strategy: ") for line in out)


def test_scripted_session(capsys, monkeypatch, tmp_path, kuhn_eq):
    path = tmp_path / "eq.npz"
    kuhn_eq.save(path)
    monkeypatch.setattr("sys.stdin", io.StringIO("7\nraise\nbet\n1\n1\n"))
    code = main(["play", "kuhn", str(path), "--hands", "5", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("pick a number from 0 to 1") == 2  # "7" and "raise" are refused
    assert "end of input" in out or "you played 5 hand(s)" in out
    lines = [ln for ln in out.splitlines() if ln.startswith("you ") and
             ln.split()[1] in ("win", "lose", "tie")]
    total = sum((1 if ln.split()[1] == "win" else -1 if ln.split()[1] == "lose" else 0)
                * float(ln.split()[2]) for ln in lines)
    summary = [ln for ln in out.splitlines() if ln.startswith("you played")][0]
    assert f"{total:+g} in all" in summary


@pytest.mark.parametrize("args, message", [
    (["--seat", "2"], "--seat must be 0 or 1"),
    (["--hands", "0"], "--hands must be positive"),
])
def test_play_errors(capsys, tmp_path, kuhn_eq, args, message):
    path = tmp_path / "eq.npz"
    kuhn_eq.save(path)
    code = main(["play", "kuhn", str(path), *args])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and message in err


def test_play_with_another_games_strategy(capsys, tmp_path, kuhn_eq):
    path = tmp_path / "eq.npz"
    kuhn_eq.save(path)
    code = main(["play", "leduc", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "not for 'leduc'" in err

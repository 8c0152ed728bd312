"""Multi-round Bluff solved round by round, last rounds first (rcfr.abstraction.rounds), against the
sequence-form LP of each round's history form with the continuation values as payoffs."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from rcfr.abstraction.rounds import multi_round_best_responses, round_states, solve_multi_round
from rcfr.forms.compile import compile_game
from rcfr.forms.public.tree import compile_public
from rcfr.games.liars_dice import LiarsDice
from rcfr.lp import solve_lp
from rcfr.policy import TabularPolicy, convert_policy


def _lp_rounds(dice, dice2, opener, faces):
    """Player 0's equilibrium value of every round ``(d0, d1, o)`` and the LP's strategy on its
    public round tree: each round's history form (its player 0 is the opener), whose
    terminals, +-1 for the round's winner and loser, pay instead player 0's value of the state
    the round leads to (the game's end: +-1), solved by the LP, fewest dice first."""
    values, policies = {}, {}
    for d0, d1, o in round_states(dice, dice2, opener):
        after = []
        for loser in (0, 1):  # the real player who loses this round
            left = [d0, d1]
            left[loser] -= 1
            nxt = {"first": 0, "loser": loser, "winner": 1 - loser}[opener]
            after.append((1.0 if loser == 1 else -1.0) if left[loser] == 0
                         else values[(left[0], left[1], nxt)])
        own, other = (d0, d1) if o == 0 else (d1, d0)
        game = LiarsDice(dice=own, faces=faces, dice2=other)
        h = compile_game(game, form="history")
        assert np.all(np.abs(h.terminal_utility) == 1.0)
        sign = 1.0 if o == 0 else -1.0  # the round's player 0 is real player o
        win, lose = sign * after[1 - o], sign * after[o]
        utility = np.where(h.terminal_utility > 0, win, lose)
        reach = np.abs(h.terminal_coef)
        h = dataclasses.replace(h, terminal_utility=utility, terminal_coef=reach * utility)
        lp = solve_lp(h)
        values[(d0, d1, o)] = sign * lp.value
        policies[(d0, d1, o)] = convert_policy(TabularPolicy(h, lp.strategy),
                                               compile_public(game)).probs
    return values, policies


@pytest.mark.parametrize("opener", ["loser", "winner"])
def test_multi_round_bluff_is_solved_round_by_round(opener):
    """Bluff(2,1) with three faces over rounds: the LP's round strategies are exploitable for
    nothing in the whole game (the evaluator and the decomposition agree); CFR+ on the public
    round trees (2000 iterations a round, last rounds first) reaches every round's LP value to
    2e-5 (measured 3e-6 at most) and a multi-round exploitability below 1e-4 (measured 5e-6
    and 6e-6)."""
    want, lp_policies = _lp_rounds(2, 1, opener, 3)
    assert abs(np.mean(multi_round_best_responses(2, 1, opener, 3, lp_policies))) < 1e-9
    sol = solve_multi_round(2, 1, opener, faces=3, algorithm="cfr+", iterations=2000)
    assert set(sol.values) == set(want)
    for state, value in want.items():
        assert sol.values[state] == pytest.approx(value, abs=2e-5)
    assert sol.value == sol.values[(2, 1, 0)]
    assert 0.0 <= sol.exploitability < 1e-4
    assert max(sol.round_exploitability.values()) < 1e-4


def test_rounds_on_the_command_line(capsys):
    """``rcfr solve liars_dice(...) --rounds OPENER``: the rounds' values and the whole game's
    exploitability as JSON; Bluff(2,1) with two faces opened by the loser is worth 15/16 to
    player 0 (the LP of its rounds; CFR+ 500 iterations a round: within 1e-4).  Files, other
    games and unknown rules are one-line errors."""
    from rcfr.cli import main

    want, _ = _lp_rounds(2, 1, "loser", 2)
    assert want[(2, 1, 0)] == pytest.approx(15 / 16, abs=1e-9)
    code = main(["solve", "liars_dice(dice=2,dice2=1,faces=2)", "--rounds", "loser", "-n", "500",
                 "--json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    info = json.loads(cap.out)
    assert info["value"] == pytest.approx(15 / 16, abs=1e-4) and info["exploitability"] < 1e-4
    assert info["round_values"]["1-1-1"] == pytest.approx(want[(1, 1, 1)], abs=1e-4)
    for args in (["kuhn", "--rounds", "loser"], ["liars_dice", "--rounds", "sideways"],
                 ["liars_dice", "--rounds", "first", "--checkpoint", "x.npz"]):
        code = main(["solve", *args, "-n", "5"])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and err.startswith("error: ")


def test_round_strategies_are_saved_loaded_and_evaluated(capsys, tmp_path):
    """The LP's round strategies of two-face Bluff(2,1) (the loser opens) written by
    ``save_multi_round`` evaluate, on the command line, to the LP value 15/16 with no
    exploitability; ``solve --rounds -o`` writes what ``evaluate --rounds`` reads back to the
    solve's own figures; the wrong game, rule, kind of file or a damaged round are one-line
    errors."""
    from rcfr.abstraction.rounds import save_multi_round
    from rcfr.cli import main
    from rcfr.core.fileio import read_npz, write_npz

    game = "liars_dice(dice=2,dice2=1,faces=2)"
    _, lp_policies = _lp_rounds(2, 1, "loser", 2)
    path = tmp_path / "lp.npz"
    save_multi_round(path, 2, 1, "loser", 2, lp_policies)
    assert main(["evaluate", game, str(path), "--rounds", "loser", "--json"]) == 0
    ev = json.loads(capsys.readouterr().out)
    assert ev["value"] == pytest.approx(15 / 16, abs=1e-9) and ev["exploitability"] < 1e-9
    out = tmp_path / "cfr.npz"
    assert main(["solve", game, "--rounds", "loser", "-n", "300", "-o", str(out), "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)
    assert main(["evaluate", game, str(out), "--rounds", "loser", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["value"] == pytest.approx(solved["value"], abs=1e-12)
    assert again["exploitability"] == pytest.approx(solved["exploitability"], abs=1e-12)
    arrays, meta = read_npz(out, "rcfr.multi-round-policy")
    arrays["round_1_1_1"] = -arrays["round_1_1_1"]
    write_npz(tmp_path / "bad.npz", arrays, meta)
    for args, message in [
            ([game, str(out), "--rounds", "winner"], "with --rounds loser, not for"),
            (["liars_dice(dice=2,dice2=1)", str(out), "--rounds", "loser"], "not for"),
            ([game, str(out)], "add --rounds loser"),
            ([game, str(tmp_path / "bad.npz"), "--rounds", "loser"], "round_1_1_1")]:
        code = main(["evaluate", *args])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and message in err, err

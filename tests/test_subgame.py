"""Safe and nested subgame solving (rcfr.subgame; issue 26): re-solving every subgame at a cut
of Leduc with a card-abstracted blueprint, and of 20 random games, never makes the full game
more exploitable with the safe methods (Burch et al. 2014, Thm. 1; Brown & Sandholm 2017,
Thms. 1-2); unsafe re-solving can (coin toss); an exact blueprint stays exact; Reach-Maxmargin's
margins are at least Maxmargin's.  Gadgets are solved exactly (sequence-form LP) where a test
states an inequality, so the assertions hold without a convergence slack."""

from __future__ import annotations

import numpy as np
import pytest

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate
from rcfr.forms.compile import compile_game
from rcfr.games.protocol import CHANCE, TERMINAL, Game, State
from rcfr.lp import solve_lp
from rcfr.policy import TabularPolicy
from rcfr.subgame import (
    METHODS,
    Blueprint,
    find_subgames,
    maxmargin,
    reach_maxmargin,
    resolve,
    resolve_everywhere,
    unsafe,
)

LEDUC = "leduc(canonical=true)"
SAFE = ("resolve", "maxmargin", "reach-maxmargin")
TOL = 1e-9


@pytest.fixture(scope="module")
def leduc_blueprint() -> TabularPolicy:
    """CFR+ on Leduc's J.QK card abstraction (J alone, Q and K merged), lifted."""
    return rcfr.solve(LEDUC, "cfr+", 200, abstraction="J.QK").policy


def test_leduc_flop_subgames():
    """Leduc's second round: 5 first-round lines that end in a call x 3 public ranks
    (canonical suits), each with one root per pair of private ranks that the public card
    leaves possible (8 = 3 x 3 pairs less the one pair holding both copies of the board
    rank)."""
    subgames = find_subgames(LEDUC, "chance:3")
    assert len(subgames) == 15
    assert all(len(s.roots) == 8 for s in subgames)
    names = {s.name.rsplit(" ", 1)[0] for s in subgames}
    assert len(names) == 5


@pytest.mark.parametrize("method", SAFE)
def test_safe_methods_never_worse_on_leduc(leduc_blueprint, method):
    out = resolve_everywhere(leduc_blueprint, "chance:3", method, algorithm="lp")
    base = out.blueprint_evaluation.exploitability
    assert base > 0.3  # the abstraction's blueprint is far from an equilibrium
    assert out.evaluation.exploitability <= base + TOL
    assert out.min_margin >= -1e-7


def test_paper_ordering_on_leduc(leduc_blueprint):
    """Brown & Sandholm 2017, Table 1's ordering on this blueprint (exact gadgets):
    Reach-Maxmargin <= Maxmargin <= Resolve < blueprint."""
    expl = {m: resolve_everywhere(leduc_blueprint, "chance:3", m, algorithm="lp")
            .evaluation.exploitability for m in SAFE}
    base = evaluate(leduc_blueprint).exploitability
    assert expl["reach-maxmargin"] <= expl["maxmargin"] + TOL
    assert expl["maxmargin"] <= expl["resolve"] + TOL
    assert expl["resolve"] < base


def test_reach_margins_at_least_maxmargin(leduc_blueprint):
    """The smallest margin (gifts included) of Reach-Maxmargin is at least Maxmargin's, in
    every subgame, for both re-solvers (Brown & Sandholm 2017, sec. 5)."""
    bp = Blueprint(leduc_blueprint)
    subgames = find_subgames(bp.tree, "chance:3")
    gained = 0.0
    for player in (0, 1):
        for sg in subgames:
            mm = maxmargin(bp, sg, player, algorithm="lp")
            rm = reach_maxmargin(bp, sg, player, subgames=subgames, algorithm="lp")
            assert rm.min_margin >= mm.min_margin - 1e-7
            assert np.all(rm.gifts >= 0)
            gained += rm.min_margin - mm.min_margin
    assert gained > 0.01  # the gifts matter on this blueprint


@pytest.fixture(scope="module")
def leduc_equilibrium() -> TabularPolicy:
    tree = compile_game(LEDUC, form="history")
    return TabularPolicy(tree, solve_lp(tree).strategy)


@pytest.mark.parametrize("method", METHODS)
def test_exact_blueprint_gives_subgame_equilibria(leduc_equilibrium, method):
    """With an exact equilibrium as the blueprint, each method's gadget is solved to an
    equilibrium (exploitability < 1e-6 by CFR+), and the safe methods keep the full game an
    equilibrium."""
    bp = Blueprint(leduc_equilibrium)
    assert evaluate(bp.tree, bp.policy).exploitability < 1e-8
    out = resolve_everywhere(leduc_equilibrium, "chance:3", method, algorithm="lp")
    assert max(r.gadget_exploitability for r in out.results) < 1e-6
    if method in SAFE:
        assert out.evaluation.exploitability < 1e-6
    sg = find_subgames(bp.tree, "chance:3")[4]  # by CFR+ too
    fn = {"unsafe": unsafe, "resolve": resolve, "maxmargin": maxmargin,
          "reach-maxmargin": reach_maxmargin}[method]
    r = fn(bp, sg, 1, algorithm="cfr+", iterations=20_000)
    assert r.gadget_exploitability < 1e-6


# -- random games --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(20))
def test_safe_methods_never_worse_on_random_games(seed):
    """20 random perfect-recall games cut after the first decision level (the subgames are
    the finest that no information set crosses), with a 3-iteration CFR blueprint."""
    game = f"random_game(seed={seed},depth=3,branching=3,info=0.5)"
    policy = rcfr.solve(game, "cfr", 3).policy
    base = evaluate(policy).exploitability
    subgames = find_subgames(game, "actions:1")
    assert subgames
    for method in SAFE:
        out = resolve_everywhere(policy, "actions:1", method, algorithm="lp")
        assert out.evaluation.exploitability <= base + TOL


# -- a constructed case where unsafe re-solving is worse --------------------------------------
class CoinTossState(State):
    """Brown & Sandholm 2017, fig. 1: a coin lands heads or tails, seen by player 0 only, who
    sells (0.5 with heads, -0.5 with tails) or plays; then player 1 guesses the coin: a right
    guess pays player 1 one chip, a wrong one pays player 0 one chip."""

    def __init__(self) -> None:
        self.h: tuple[int, ...] = ()

    def current_player(self) -> int:
        if not self.h:
            return CHANCE
        if len(self.h) == 1:
            return 0
        return 1 if len(self.h) == 2 and self.h[1] == 1 else TERMINAL

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [0, 1]

    def chance_outcomes(self):
        return [(0, 0.5), (1, 0.5)]

    def apply_action(self, action: int) -> None:
        self.h = (*self.h, action)

    def returns(self) -> list[float]:
        coin = self.h[0]
        if self.h[1] == 0:  # sell
            u = 0.5 if coin == 0 else -0.5
        else:
            u = -1.0 if self.h[2] == coin else 1.0
        return [u, -u]

    def information_state_string(self, player=None) -> str:
        p = self.current_player() if player is None else player
        return f"coin{self.h[0]}|{self.h[1:]}" if p == 0 else f"|{self.h[1:]}"

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return "HT"[action]
        return ("sell", "play")[action] if player == 0 else "HT"[action]

    def clone(self) -> CoinTossState:
        s = CoinTossState()
        s.h = self.h
        return s


class CoinToss(Game):
    short_name = "coin_toss"

    def new_initial_state(self) -> CoinTossState:
        return CoinTossState()

    def num_distinct_actions(self) -> int:
        return 2


def test_unsafe_resolving_can_be_worse():
    """The blueprint is the equilibrium (player 0 always plays, player 1 guesses heads with
    probability 1/4, game value 0).  In the subgame after "play" player 1's beliefs are 50/50
    and it has no stake in how it guesses: every guess is an equilibrium of that subgame
    alone, and CFR+ keeps its first, uniform one, so player 0 sells heads and plays tails
    (0.25 a game).  The gadgets know what player 0 gets by selling (the alternative values),
    which pins the guess back to 1/4."""
    tree = compile_game(CoinToss(), form="history")
    table = {"sell": 0.0, "play": 1.0, "H": 0.25, "T": 0.75}
    eq = TabularPolicy(tree, [table[a] for a in tree.seq_action_names])
    assert evaluate(eq).exploitability < 1e-12
    assert solve_lp(tree).value == pytest.approx(0.0)
    bad = resolve_everywhere(eq, "actions:1", "unsafe", algorithm="cfr+", iterations=100)
    assert bad.evaluation.exploitability == pytest.approx(0.125)
    for method in SAFE:
        good = resolve_everywhere(eq, "actions:1", method, algorithm="cfr+", iterations=2000)
        assert good.evaluation.exploitability < 1e-3


def test_bad_cuts_are_refused():
    with pytest.raises(RcfrError, match="chance:K or actions:N"):
        find_subgames(LEDUC, "flop")
    with pytest.raises(RcfrError, match="no history"):
        find_subgames(LEDUC, "chance:9")
    # after the first private card no information set separates the roots: one subgame
    assert len(find_subgames(LEDUC, "chance:1")) == 1


# -- nested solving for off-tree wagers ----------------------------------------------------
def test_nested_resolving_beats_translation_on_one_card_poker():
    """No-limit one-card poker with the pot-bet abstraction P (check, raise to 3, all-in):
    translating a raise to 2 chips lets player 0 win more than with any abstract opening;
    nested Resolve brings every off-tree opening back to the abstract openings' value."""
    from rcfr.games.transforms.parse import parse_abstraction
    from rcfr.subgame import nested_resolve

    policy = rcfr.solve("nl_one_card", "cfr+", 500, abstraction="P").policy
    abstraction = parse_abstraction("P", rcfr.load_game("nl_one_card"))
    out = nested_resolve(policy, abstraction, "actions:1", "resolve", algorithm="lp")
    assert [r.action for r in out.rows] == [2, 4, 5, 6, 7, 8, 9]
    base = out.in_tree_value[0]
    by_size = {r.action: r for r in out.rows}
    assert by_size[2].translation_value > base + 0.1
    for r in out.rows:
        assert r.translation_value >= base - TOL
        assert r.nested_value == pytest.approx(base, abs=1e-7)
    assert evaluate(out.policy).exploitability < evaluate(policy).exploitability / 2


def test_cli_resolve(tmp_path, capsys):
    from rcfr.cli import main

    bp, out = tmp_path / "bp.npz", tmp_path / "re.npz"
    assert main(["solve", LEDUC, "--abstraction", "J.QK", "-n", "100", "-o", str(bp)]) == 0
    capsys.readouterr()
    assert main(["resolve", LEDUC, str(bp), "--at", "chance:3", "--method", "resolve",
                 "-n", "200", "--out", str(out), "--json"]) == 0
    import json

    info = json.loads(capsys.readouterr().out)
    assert info["subgames"] == 15 and info["method"] == "resolve"
    assert info["exploitability"] < info["blueprint_exploitability"]
    saved = TabularPolicy.load(out, LEDUC)
    assert evaluate(saved).exploitability == pytest.approx(info["exploitability"])
    for args, message in ((["--at", "flop"], "chance:K or actions:N"),
                          (["--at", "chance:3", "--method", "bogus"], "unknown re-solving"),
                          (["--at", "chance:3", "-n", "0"], "--iterations")):
        assert main(["resolve", LEDUC, str(bp), *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error:") and message in err and len(err.splitlines()) == 1


def test_cli_play_with_resolving(tmp_path, capsys, monkeypatch):
    """``rcfr play --resolve`` plays the re-solved strategy (a scripted hand of calls)."""
    import io

    from rcfr.cli import main

    bp = tmp_path / "bp.npz"
    assert main(["solve", LEDUC, "--abstraction", "J.QK", "-n", "50", "-o", str(bp)]) == 0
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("call\n" * 8))
    assert main(["play", LEDUC, str(bp), "--resolve", "resolve", "--at", "chance:3"]) == 0
    assert "you played 1 hand(s)" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("call\n" * 8))
    assert main(["play", LEDUC, str(bp), "--resolve", "maxmargin"]) == 0  # default cut
    capsys.readouterr()
    assert main(["play", LEDUC, str(bp), "--at", "chance:3"]) == 2
    assert "--at goes with --resolve" in capsys.readouterr().err
    assert main(["play", LEDUC, str(bp), "--resolve", "resolve", "--at", "x"]) == 2

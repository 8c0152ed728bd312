"""Re-solving on the public form (rcfr.subgame.public, rcfr.forms.public.subtree; issue 26):
the public subtree's gadgets give the history form's gadget strategies, weights, alternative
values and Reach-Maxmargin gifts (same CFR+ iterations: equal up to rounding), re-solving every
subgame gives the same full-game exploitability, and a subtree compiled alone from the game
equals the one cut from the compiled tree."""

from __future__ import annotations

import numpy as np
import pytest

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate
from rcfr.forms.compile import compile_game
from rcfr.forms.public.subtree import (
    chance_cut,
    compile_subtree,
    extract_subtree,
    root_values,
    solve_gadget,
)
from rcfr.lp import solve_lp
from rcfr.policy import TabularPolicy, convert_policy
from rcfr.subgame import Blueprint, find_subgames, resolve_everywhere
from rcfr.subgame.methods import METHOD_FUNCTIONS
from rcfr.subgame.public import (
    blueprint_plan,
    public_gifts,
    resolve_everywhere_public,
    resolve_public,
)

LEDUC = "leduc(canonical=true)"
ITERS = 40
TOL = 1e-9


@pytest.fixture(scope="module")
def leduc():
    """A J.QK-abstracted CFR+ blueprint on both forms, Leduc's 15 flop subgames on both."""
    policy = rcfr.solve(LEDUC, "cfr+", 200, abstraction="J.QK").policy
    pub = compile_game(LEDUC, form="public")
    probs = convert_policy(policy, pub).probs
    bp = Blueprint(policy)
    hist = find_subgames(LEDUC, "chance:3")
    subs = [extract_subtree(pub, int(u)) for u in chance_cut(pub, 1)]
    # the public subtree of each history subgame: the one holding its information sets
    keys = [set(s.infoset_keys(0)) | set(s.infoset_keys(1)) for s in subs]
    match = []
    for sg in hist:
        own = {bp.tree.infoset_keys[int(i)] for p in (0, 1) for i in sg.infosets(bp.tree, p)}
        match.append(next(k for k, ks in enumerate(keys) if own <= ks))
    return policy, pub, probs, bp, hist, subs, match


def _by_key(tree, seqs, probs) -> dict:
    return {(tree.infoset_keys[int(tree.seq_infoset[s])], int(tree.seq_action[s])): float(p)
            for s, p in zip(seqs, probs, strict=True)}


def test_cut_and_sizes(leduc):
    """Leduc's second round on the public form: 5 lines x 3 board ranks; each subtree has
    Leduc's second-round betting (9 public terminals) and 3 root rows per player."""
    _, pub, _, _, hist, subs, match = leduc
    assert len(subs) == 15 and sorted(set(match)) == list(range(15))
    for s in subs:
        assert s.sizes()["public_terminals"] == 9
        assert list(s.num_rows) == [3, 3]
        assert s.num_infosets == 18  # 3 rows x (1 + 2) decision nodes per player


@pytest.mark.parametrize("method", ["unsafe", "resolve", "maxmargin", "reach-maxmargin"])
def test_public_gadgets_equal_history_gadgets(leduc, method):
    """Every flop subgame, both re-solvers: the same CFR+ iterations on the history form's
    gadget game and on the public subtree give the same strategy (to 1e-9), and the same
    root weights, alternative values and margins per opponent root set."""
    _, pub, probs, bp, hist, subs, match = leduc
    plan = blueprint_plan(pub, probs)
    for player in (0, 1):
        gifts = (public_gifts(pub, probs, subs, player, plan) if method == "reach-maxmargin"
                 else [None] * len(subs))
        for sg, k in zip(hist, match, strict=True):
            extra = {"subgames": hist} if method == "reach-maxmargin" else {}
            h = METHOD_FUNCTIONS[method](bp, sg, player, algorithm="cfr+", iterations=ITERS,
                                         **extra)
            p = resolve_public(pub, probs, subs[k], player, method, iterations=ITERS,
                               plan=plan, gifts=gifts[k])
            hk, pk = _by_key(bp.tree, h.sequences, h.probs), _by_key(pub, p.sequences, p.probs)
            assert hk and set(hk) <= set(pk)
            assert max(abs(hk[x] - pk[x]) for x in hk) < TOL
            # the opponent's root sets by string: the history set J is the public row r
            opp = 1 - player
            key_rows = _root_row_keys(pub, subs[k], opp)
            for j, key in enumerate(h.set_keys):
                r = key_rows[key]
                assert abs(h.set_weight[j] - p.set_weight[r]) < TOL
                if h.set_weight[j] > 0:
                    assert abs(h.alternative[j] - p.alternative[r]) < 1e-8
                    assert abs(h.gifts[j] - p.gifts[r]) < 1e-8
                    assert abs(h.margins[j] - p.margins[r]) < 1e-7


def _root_row_keys(pub, sub, player) -> dict:
    """The opponent's root information-state strings at the subtree's root, by root row."""
    state = pub._states[sub.node]
    return {state.information_state_string(player, int(x)): r
            for r, x in enumerate(sub.row_rep[player])}


@pytest.mark.parametrize("method", ["resolve", "maxmargin"])
def test_everywhere_equals_history_form(leduc, method):
    """Re-solving every flop subgame for both players: the full-game exploitability of the
    spliced strategy is the history form's (same iterations) and, with the safe methods, not
    above the blueprint's."""
    policy, pub, probs, *_ = leduc
    hist = resolve_everywhere(policy, "chance:3", method, algorithm="cfr+", iterations=ITERS)
    new, results = resolve_everywhere_public(pub, probs, method, iterations=ITERS)
    assert len(results) == 30
    e = evaluate(pub, TabularPolicy(pub, new)).exploitability
    base = evaluate(pub, TabularPolicy(pub, probs)).exploitability
    assert abs(e - hist.evaluation.exploitability) < 1e-9
    assert abs(base - hist.blueprint_evaluation.exploitability) < 1e-9
    assert e < base


@pytest.mark.parametrize("method", ["resolve", "maxmargin", "reach-maxmargin"])
def test_exact_blueprint_stays_exact(method):
    """With an exact equilibrium blueprint (the LP's) every safe method's re-solve of every
    flop subgame stays an equilibrium to CFR+'s precision: the full-game exploitability after
    4,000 gadget iterations is below 2e-4 chips and below that after 1,000 (unsafe
    re-solving, on the same blueprint, is 0.058 chips exploitable)."""
    pub = compile_game(LEDUC, form="public")
    probs = convert_policy(TabularPolicy(compile_game(LEDUC), solve_lp(LEDUC).strategy),
                           pub).probs
    assert evaluate(pub, TabularPolicy(pub, probs)).exploitability < 1e-9
    gaps = []
    for iterations in (1000, 4000):
        new, results = resolve_everywhere_public(pub, probs, method, iterations=iterations)
        gaps.append(evaluate(pub, TabularPolicy(pub, new)).exploitability)
    assert gaps[1] < 2e-4 and gaps[1] < gaps[0]
    assert min(r.min_margin for r in results) > -2e-3


def test_compiled_alone_equals_cut_out():
    """2-NL Hold'em(8)'s largest flop subgame (after a limp and a check): compiled alone from
    the game it has the subtree's sizes, and its gadget gives the same strategy."""
    game = "nl_holdem2(stack=8)"
    pub = compile_game(game, form="public")
    line = [1, 1, 0, 0]  # call, check, both flop buckets (one public outcome each)
    u = 0
    for a in line:
        lo, hi = pub.node_child_start[u], pub.node_child_start[u + 1]
        u = int(lo + list(pub.node_action[lo:hi]).index(a))
    assert u in set(chance_cut(pub, 1).tolist())
    cut = extract_subtree(pub, u)
    alone = compile_subtree(game, line)
    assert cut.sizes() == alone.sizes()
    assert alone.mass == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    reach = [rng.random(25), rng.random(25)]
    probs = rcfr.solve(pub, "cfr+", 20).policy.probs
    cbv, w = root_values(cut, 1, reach[1], probs)
    for tree, sub in ((pub, cut), (alone.tree, alone)):
        s = solve_gadget(sub, "resolve", 1, reach, 30, cbv, w)
        got = _by_key(tree, s.sequences, s.probs)
        if sub is cut:
            ref = got
    assert set(ref) == set(got)
    assert max(abs(ref[k] - got[k]) for k in ref) < 1e-12


def test_refusals():
    pub = compile_game(LEDUC, form="public")
    with pytest.raises(RcfrError, match="not in the tree"):
        extract_subtree(pub, pub.num_public_nodes)
    sub = extract_subtree(pub, int(chance_cut(pub, 1)[0]))
    with pytest.raises(RcfrError, match="unknown gadget"):
        solve_gadget(sub, "nope", 0, [np.ones(3), np.ones(3)], 1)
    with pytest.raises(RcfrError, match="unknown re-solving method"):
        resolve_public(pub, np.full(pub.num_sequences, 0.5), sub, 0, "nope")
    with pytest.raises(RcfrError, match="chance level"):
        chance_cut(pub, 0)

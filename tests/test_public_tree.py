"""The public tree (rcfr.public_tree): sizes, exact conversions, best responses and CFR equal to
the history form's; structured terminals equal the n x n matrices; Bluff(D1, D2)."""

from functools import cache
from itertools import product

import numpy as np
import pytest

from rcfr import tree as tree_module
from rcfr.errors import RcfrError
from rcfr.evaluate import evaluate, realization_plans
from rcfr.games.liars_dice import LiarsDice
from rcfr.games.registry import load_game
from rcfr.policy import TabularPolicy
from rcfr.public_passes import PublicCFRSolver
from rcfr.public_tree import PublicTree, compile_public, convert_policy, sequence_map
from rcfr.solvers.loop import CFRSolver
from rcfr.tree import GameTree, compile_game

GAMES = ["kuhn", "leduc", "leduc(canonical=true)", "nl_one_card", "liars_dice",
         "liars_dice(dice=2,dice2=1,faces=3)"]
SIZE_KEYS = ("histories", "terminals", "chance_nodes", "decision_nodes", "infosets",
             "sequences", "infosets_per_player", "sequences_per_player")


@cache
def both(game):
    """Both forms of ``game``, compiled once per test session."""
    g = load_game(game)
    return compile_game(g, form="history"), compile_game(g, form="public")


def random_policy(tree, seed):
    rng = np.random.default_rng(seed)
    return TabularPolicy.from_weights(tree, rng.random(tree.num_sequences) ** 3)


@pytest.mark.parametrize("game", GAMES)
def test_sizes_equal_the_history_form(game):
    h, t = both(game)
    assert isinstance(t, PublicTree) and isinstance(h, GameTree)
    hs, ts = h.sizes(), t.sizes()
    assert {k: ts[k] for k in SIZE_KEYS} == {k: hs[k] for k in SIZE_KEYS}
    # the same information sets with the same actions, each once
    for p in (0, 1):
        ours, theirs = t.player_infosets(p), h.player_infosets(p)
        assert sorted(t.infoset_keys[ours.start : ours.stop]) == sorted(
            h.infoset_keys[theirs.start : theirs.stop])


@pytest.mark.parametrize("game", GAMES)
def test_strategies_round_trip_exactly_and_best_responses_agree(game):
    h, t = both(game)
    for seed in range(2):
        pol = random_policy(h, seed)
        pub = convert_policy(pol, t)
        assert np.array_equal(convert_policy(pub, h).probs, pol.probs)
        back = random_policy(t, seed + 10)
        assert np.array_equal(convert_policy(convert_policy(back, h), t).probs, back.probs)
        eh, et = evaluate(pol), evaluate(pub)
        assert et.value == pytest.approx(eh.value, abs=1e-12)
        assert np.allclose(et.best_response_values, eh.best_response_values, atol=1e-12,
                           rtol=0)
        assert et.exploitability == pytest.approx(eh.exploitability, abs=1e-12)


@pytest.mark.parametrize("game", GAMES)
def test_one_pass_gives_the_history_forms_regrets(game):
    """The vector-form pass computes the same counterfactual regrets as the history form."""
    h, t = both(game)
    pol = random_policy(h, 3)
    pub = convert_policy(pol, t)
    sh, st = CFRSolver(h, "cfr", alternating=False), PublicCFRSolver(t, "cfr", alternating=False)
    sh._setup()
    st._setup()
    sh.strategy_[:], st.strategy_[:] = pol.probs, pub.probs
    sh.run(1)
    st.run(1)
    idx = sequence_map(t, h)  # the public-form sequence of each history-form sequence
    assert np.allclose(st.estimator_.regrets[idx], sh.estimator_.regrets, atol=1e-13, rtol=0)
    assert np.abs(sh.estimator_.regrets).max() > 1e-3


# 100 iterations: equal to 1e-12 where no regret is exactly zero in exact arithmetic.  Where one
# is (liar's dice; CFR+ anywhere), one form rounds it to 1e-20 and the other to 0, and regret
# matching's uniform fallback turns that into a different strategy at that information set, so
# the trajectories part by far more than rounding (measured: up to 1e-9 on average strategies).
@pytest.mark.parametrize(("game", "algorithm", "alternating", "tol"), [
    ("kuhn", "cfr", True, 1e-12), ("kuhn", "cfr+", True, 1e-12),
    ("kuhn", "cfr", False, 1e-12), ("kuhn", "cfr+", False, 1e-12),
    ("leduc", "cfr", True, 1e-12), ("leduc", "cfr", False, 1e-12),
    ("leduc(canonical=true)", "cfr", True, 1e-12), ("nl_one_card", "cfr", True, 1e-12),
    ("leduc", "cfr+", True, 1e-8), ("nl_one_card", "cfr+", False, 1e-8),
    ("liars_dice", "cfr", True, 1e-8), ("liars_dice", "cfr+", False, 1e-8),
])
def test_cfr_gives_the_history_forms_strategies(game, algorithm, alternating, tol):
    h, t = both(game)
    a = CFRSolver(h, algorithm, alternating=alternating).run(100)
    b = PublicCFRSolver(t, algorithm, alternating=alternating).run(100)
    avg = convert_policy(b.average_policy(), h).probs
    assert np.abs(avg - a.average_policy().probs).max() <= tol
    assert b.nodes_visited == a.nodes_visited == 200 * h.num_nodes
    assert evaluate(b.average_policy()).exploitability == pytest.approx(
        evaluate(a.average_policy()).exploitability, abs=max(tol, 1e-12))


@pytest.mark.parametrize("rule", ["lcfr", "dcfr", "pcfr+", "pdcfr+"])
@pytest.mark.parametrize("game", ["kuhn", "leduc(canonical=true)"])
def test_every_update_rule_runs_on_the_public_form(game, rule):
    """The update rules of rcfr.solvers.rules, fused and through the Python step, give the
    history form's strategies.  30 iterations: the discounted rules (a discount that depends
    on the regret's sign) and regret matching's uniform fallback amplify rounding differences
    of the two forms' sums from there on (measured on Leduc at 100 iterations: up to 2e-4)."""
    h, t = both(game)
    a = CFRSolver(h, rule).run(30)
    b = PublicCFRSolver(t, rule).run(30)
    stepped = PublicCFRSolver(t, rule)
    stepped._setup()
    stepped.fused_ = False  # the Python path: PublicFullWidthPass.run and the estimator
    stepped.run(30)
    assert np.array_equal(stepped.average_policy().probs, b.average_policy().probs)
    avg = convert_policy(b.average_policy(), h).probs
    assert np.abs(avg - a.average_policy().probs).max() <= 1e-10
    assert b.average_policy().metadata["rule"] == a.average_policy().metadata["rule"]


@pytest.mark.parametrize("game", GAMES)
def test_structured_terminals_equal_the_matrix_product(game):
    """Fold by a scalar, showdown by sorted ranks, liar's dice by counts = sum over the
    n0 x n1 joint weight matrix, on random strategies."""
    t = both(game)[1]
    for seed in range(2):
        plan = realization_plans(t, random_policy(t, seed).probs)
        for p in (0, 1):
            fast, dense = np.zeros(t.num_sequences + 2), np.zeros(t.num_sequences + 2)
            t.terminal_values(p, plan, fast)
            t.terminal_values(p, plan, dense, dense=True)
            assert np.abs(dense).max() > 0
            assert np.allclose(fast, dense, atol=1e-15, rtol=1e-13)


def test_bluff_1_1_uniform_exploitability_in_both_forms():
    h, t = both("liars_dice")
    for tree in (h, t):
        assert evaluate(TabularPolicy.uniform(tree)).exploitability == pytest.approx(
            0.78074432, abs=1e-8)


# -- an independent recursion: best responses to the uniform profile in one round of Bluff ----
def uniform_best_responses(d0, d1, faces, pay):
    """Both players' best-response values against uniform play in one round of
    Bluff(d0, d1) whose call pays player q ``pay(q, q_lost)``.  Against uniform play the
    opponent's dice stay at their prior, so a best response only needs its own roll."""
    bids = (d0 + d1) * faces
    wild = faces - 1
    out = []
    for q, (mine, theirs) in ((0, (d0, d1)), (1, (d1, d0))):
        def hold_prob(roll, bid, theirs=theirs):
            quantity, face = bid // faces + 1, bid % faces
            need = quantity - sum(1 for x in roll if x in (face, wild))
            hits = [sum(1 for x in r if x in (face, wild))
                    for r in product(range(faces), repeat=theirs)]
            return np.mean([h >= need for h in hits])

        @cache
        def value(roll, last, turn, q=q):
            acts = list(range(last + 1, bids)) + ([-1] if last >= 0 else [])
            vals = []
            for a in acts:
                if a < 0:  # ``turn`` calls; the last bid is the other player's
                    bidder = 1 - turn
                    p = hold_prob(roll, last)
                    lost_if_holds = (1 - bidder) == q
                    vals.append(p * pay(q, lost_if_holds) + (1 - p) * pay(q, not lost_if_holds))
                else:
                    vals.append(value(roll, a, 1 - turn))
            return max(vals) if turn == q else float(np.mean(vals))

        rolls = list(product(range(faces), repeat=mine))
        out.append(np.mean([value(tuple(sorted(r)), -1, 0) for r in rolls]))
    return out


def test_bluff_2_1_single_round_at_the_papers_scale():
    t = compile_public("liars_dice(dice=2,dice2=1)")
    sizes = t.sizes()
    # Gibson et al. count player 0's two dice as an unordered roll: 21 x 6 joint rolls under
    # 2^19 - 1 = 524,287 public nodes; the history form deals the dice one at a time (36 x 6
    # ordered rolls, plus the 43 chance nodes of the deal)
    assert sizes["public_nodes"] == 524_287
    assert sizes["joint_histories"] == 21 * 6 * 524_287 == 66_060_162
    assert sizes["histories"] == 43 + 216 * 524_287 == LiarsDice(2, 6, 1).num_histories()
    assert sizes["infosets"] == 27 * 131_072 == 3_538_944
    assert sizes["infosets_per_player"] == [21 * 131_072, 6 * 131_072]
    expl = evaluate(TabularPolicy.uniform(t)).exploitability
    br = uniform_best_responses(2, 1, 6, lambda q, lost: -1.0 if lost else 1.0)
    assert expl == pytest.approx(np.mean(br), abs=1e-12)
    assert expl == pytest.approx(0.884542, abs=1e-6)


def test_multi_round_bluff_matches_the_recursion():
    from rcfr.bluff_rounds import multi_round_best_responses

    faces = 3
    for opener in ("first", "loser", "winner"):
        got = multi_round_best_responses(2, 1, opener, faces=faces)
        # the last round (1, 1) then the first (2, 1), by the same independent recursion
        last = {o: uniform_best_responses(1, 1, faces, lambda q, lost: -1.0 if lost else 1.0)
                for o in (0, 1)}

        def pay(q, lost, opener=opener, last=last):
            # round one, player 0 (two dice) opens: losing costs player 1 the game; player 0
            # plays on in (1, 1) opened by the rule's player
            if q == 1:
                return -1.0 if lost else _after(1, opener, last)
            return _after(0, opener, last) if lost else 1.0

        want = uniform_best_responses(2, 1, faces, pay)
        assert np.allclose(got, want, atol=1e-12, rtol=0)


def _after(q, opener, last):
    """Player q's value of the (1, 1) round after player 0 lost a die: opened by player 0
    ("first", "loser") or player 1 ("winner"); in a round opened by player 1 the roles swap."""
    o = 1 if opener == "winner" else 0
    return last[o][q if o == 0 else 1 - q]


def test_choice_of_form_and_size_guard(monkeypatch):
    assert isinstance(compile_game("kuhn"), GameTree)
    t = compile_game("liars_dice", form="public")
    assert compile_game(t) is t and compile_game(t.game, form="public") is t
    monkeypatch.setattr(tree_module, "HISTORY_BUDGET", 1000)
    assert isinstance(compile_game("liars_dice"), PublicTree)  # too many histories
    assert isinstance(compile_game("kuhn"), GameTree)  # no estimate: the history form
    with pytest.raises(RcfrError, match="no public form"):
        compile_game("goofspiel", form="public")
    with pytest.raises(RcfrError, match="unknown form"):
        compile_game("kuhn", form="both")
    with pytest.raises(RcfrError, match="too large"):
        compile_public("liars_dice(dice=2)")  # Bluff(2,2): 2^25 - 1 public nodes


def test_policies_work_on_the_public_form(tmp_path):
    t = compile_public("kuhn")
    solver = PublicCFRSolver(t, "cfr+").run(300)
    pol = solver.average_policy()
    assert evaluate(pol).exploitability < 5e-3
    assert evaluate(pol).value == pytest.approx(-1 / 18, abs=5e-3)
    assert pol.action_probabilities("Kb", 1)[1] == pytest.approx(1.0, abs=1e-3)  # call with K
    assert [r[1:3] for r in pol.table()[:2]] == [("J", "pass"), ("J", "bet")]
    assert pol.metadata["form"] == "public"
    pol.save(tmp_path / "p.npz")
    assert np.array_equal(TabularPolicy.load(tmp_path / "p.npz", t).probs, pol.probs)
    with pytest.raises(RcfrError):
        TabularPolicy.load(tmp_path / "p.npz", "kuhn")  # the history form's order differs


def test_public_solver_checkpoints_and_options(tmp_path):
    """The shared loop's checkpoints, links and averaging work on the public form: 30 + 30
    iterations through a checkpoint equal 60 in one go."""
    t = both("leduc(canonical=true)")[1]
    opts = {"link": "exp:0.5", "averaging": "quadratic", "alternating": False}
    whole = PublicCFRSolver(t, "cfr", **opts).run(60)
    first = PublicCFRSolver(t, "cfr", **opts).run(30)
    first.save_checkpoint(tmp_path / "c.npz")
    second = PublicCFRSolver(t, "cfr", **opts).load_checkpoint(tmp_path / "c.npz").run(30)
    assert np.array_equal(second.average_policy().probs, whole.average_policy().probs)
    assert second.nodes_visited == whole.nodes_visited == 120 * t.num_nodes
    with pytest.raises(RcfrError):
        PublicCFRSolver(t, "cfr+").load_checkpoint(tmp_path / "c.npz")

"""The public tree (rcfr.forms.public.tree): sizes, exact conversions, best responses and CFR equal
to
the history form's; structured terminals equal the n x n matrices; Bluff(D1, D2)."""

from functools import cache
from itertools import product

import numpy as np
import pytest
from conftest import SIZE_KEYS, assert_same_forms

from rcfr.abstraction import AbstractGame, CardAbstraction, lift_policy
from rcfr.api import solve
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate, realization_plans
from rcfr.forms import compile as tree_module
from rcfr.forms.compile import compile_game
from rcfr.forms.convert import sequence_map
from rcfr.forms.history.tree import GameTree
from rcfr.forms.public.tree import PublicTree, compile_public
from rcfr.games.leduc import LeducPoker, LeducPublicState, LeducState
from rcfr.games.liars_dice import LiarsDice
from rcfr.games.protocol import CHANCE
from rcfr.games.public import MATRIX_RULE, SHOWDOWN_RULE, PublicStructure
from rcfr.games.registry import load_game
from rcfr.policy import TabularPolicy, convert_policy
from rcfr.solvers.loop import CFRSolver
from rcfr.solvers.mccfr import MCCFRSolver, exact_regrets

GAMES = ["kuhn", "leduc", "leduc(canonical=true)", "nl_one_card", "liars_dice",
         "liars_dice(dice=2,dice2=1,faces=3)"]


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
    assert_same_forms(h, t)  # the same information sets with the same actions, each once


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
    sh, st = CFRSolver(h, "cfr", alternating=False), CFRSolver(t, "cfr", alternating=False)
    sh.setup()
    st.setup()
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
    b = CFRSolver(t, algorithm, alternating=alternating).run(100)
    avg = convert_policy(b.average_policy(), h).probs
    assert np.abs(avg - a.average_policy().probs).max() <= tol
    assert b.nodes_visited == a.nodes_visited == 200 * h.num_nodes
    assert evaluate(b.average_policy()).exploitability == pytest.approx(
        evaluate(a.average_policy()).exploitability, abs=max(tol, 1e-12))


@pytest.mark.parametrize("rule", ["lcfr", "dcfr", "pcfr+", "pdcfr+"])
@pytest.mark.parametrize("game", ["kuhn", "leduc(canonical=true)"])
def test_every_update_rule_runs_on_the_public_form(game, rule):
    """The update rules of rcfr.core.rules, fused and through the Python step, give the
    history form's strategies.  30 iterations: the discounted rules (a discount that depends
    on the regret's sign) and regret matching's uniform fallback amplify rounding differences
    of the two forms' sums from there on (measured on Leduc at 100 iterations: up to 2e-4)."""
    h, t = both(game)
    a = CFRSolver(h, rule).run(30)
    b = CFRSolver(t, rule).run(30)
    stepped = CFRSolver(t, rule)
    stepped.setup()
    stepped.fused_ = False  # the Python path: PublicFullWidthPass.run and the estimator
    stepped.run(30)
    assert np.array_equal(stepped.average_policy().probs, b.average_policy().probs)
    avg = convert_policy(b.average_policy(), h).probs
    assert np.abs(avg - a.average_policy().probs).max() <= 1e-10
    assert b.average_policy().metadata["rule"] == a.average_policy().metadata["rule"]


@pytest.mark.parametrize(("rule", "link", "alternating"), [
    ("cfr", "rm", True), ("cfr+", "rm", True), ("cfr+", "rm", False), ("cfr", "poly:3", True),
    ("cfr+", "exp:0.5", True)])
def test_fused_loop_is_the_python_step(rule, link, alternating):
    """The fused loop (plans recomputed only after a strategy changed, averaging on the plan,
    CFR and CFR+ absorbed in the backward sweep) gives the Python step's strategies bit for
    bit, and the history form's to 1e-12 (CFR+: 1e-8, zero regrets)."""
    h, t = both("leduc")
    opts = {"link": link, "alternating": alternating}
    fused = CFRSolver(t, rule, **opts).run(20)
    stepped = CFRSolver(t, rule, **opts)
    stepped.setup()
    stepped.fused_ = False
    stepped.run(20)
    assert np.array_equal(stepped.average_policy().probs, fused.average_policy().probs)
    assert np.array_equal(stepped.strategy_, fused.strategy_)
    ref = CFRSolver(h, rule, **opts).run(20).average_policy().probs
    tol = 1e-12 if rule == "cfr" else 1e-8
    assert np.abs(convert_policy(fused.average_policy(), h).probs - ref).max() <= tol


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
    from rcfr.abstraction.rounds import multi_round_best_responses

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
    with pytest.raises(RcfrError, match="704,643,030 sequences"):  # judged in closed form
        compile_public("liars_dice(dice=2)", "8G")  # Bluff(2,2): 2^25 - 1 public nodes


def test_policies_work_on_the_public_form(tmp_path):
    t = compile_public("kuhn")
    solver = CFRSolver(t, "cfr+").run(300)
    pol = solver.average_policy()
    assert evaluate(pol).exploitability < 5e-3
    assert evaluate(pol).value == pytest.approx(-1 / 18, abs=5e-3)
    assert pol.action_probabilities("Kb", 1)[1] == pytest.approx(1.0, abs=1e-3)  # call with K
    assert [r[1:3] for r in pol.table()[:2]] == [("J", "pass"), ("J", "bet")]
    assert pol.metadata["form"] == "public"
    pol.save(tmp_path / "p.npz")
    assert np.array_equal(TabularPolicy.load(tmp_path / "p.npz", t).probs, pol.probs)
    # on the history form (another order of the sequences) it is read on its own form and
    # converted exactly
    on_history = TabularPolicy.load(tmp_path / "p.npz", "kuhn")
    assert np.array_equal(on_history.probs, convert_policy(pol, on_history.tree).probs)


def test_public_solver_checkpoints_and_options(tmp_path):
    """The shared loop's checkpoints, links and averaging work on the public form: 30 + 30
    iterations through a checkpoint equal 60 in one go."""
    t = both("leduc(canonical=true)")[1]
    opts = {"link": "exp:0.5", "averaging": "quadratic", "alternating": False}
    whole = CFRSolver(t, "cfr", **opts).run(60)
    first = CFRSolver(t, "cfr", **opts).run(30)
    first.save_checkpoint(tmp_path / "c.npz")
    second = CFRSolver(t, "cfr", **opts).load_checkpoint(tmp_path / "c.npz").run(30)
    assert np.array_equal(second.average_policy().probs, whole.average_policy().probs)
    assert second.nodes_visited == whole.nodes_visited == 120 * t.num_nodes
    with pytest.raises(RcfrError):
        CFRSolver(t, "cfr+").load_checkpoint(tmp_path / "c.npz")


# -- the engine's extension for card abstractions (issue 14): payoff matrices, coarse
# observations --------------------------------------------------------------------------------
class MatrixShowdownState(LeducPublicState):
    """Leduc's public state with its showdowns as MATRIX_RULE terminals:
    M[x0, x1] = sign(rank0 - rank1)."""

    def terminal(self):
        rule, value, q, face = super().terminal()
        return (MATRIX_RULE if rule == SHOWDOWN_RULE else rule), value, q, face

    def payoff_matrix(self):
        r = self.ranks(0)
        return np.sign(r[:, None] - r[None, :]).astype(np.float64)


class MatrixLeduc(LeducPoker):
    def public_structure(self):
        spec = super().public_structure()
        spec.root = MatrixShowdownState(spec.root._state)
        return spec


def waugh_board_key(info: str) -> str:
    """J.QK (Waugh et al. 2009) as a per-context observation: before the flop the group of the
    private card (J, or Q/K); on the flop the group, the board card and whether it pairs.
    (Waugh's own flop key drops the board card, merging information sets across public
    nodes, which an observation within one public node cannot express.)"""
    own, board, history = info.split("|")
    if own == "?":
        return info
    group = "J" if own[0] == "J" else "QK"
    if board == "-":
        return f"{group}|-|{history}"
    return f"{group}|{board}|{'pair' if board[0] == own[0] else 'nopair'}|{history}"


class CoarseLeducState(LeducPublicState):
    """Leduc's public state where a player observes only its card's J.QK class."""

    def observation(self, player):
        ranks = np.array([self._state._rank(c) for c in range(len(self.labels))])
        group = (ranks > 0).astype(np.int64)
        if len(self._state.cards) < 3:
            return group
        return 2 * group + (ranks == self._state._rank(self._state.cards[2]))

    def information_state_string(self, player, private):
        return waugh_board_key(super().information_state_string(player, private))


class CoarseLeduc(AbstractGame):
    """Leduc under the card abstraction above, in both forms: the history form merges
    information sets by key (rcfr.abstraction), the public form by observation."""

    def __init__(self, canonical=False):
        super().__init__(LeducPoker(canonical), CardAbstraction(
            lambda state, p: waugh_board_key(state.information_state_string(p)), "J.QK+board"))

    def public_structure(self):
        spec = self.base.public_structure()
        spec.root = CoarseLeducState(spec.root._state)
        return spec


# CFR+ with alternating updates: 2e-10 (4e-10 on the dense deal), the zero-regret effect of
# test_cfr_gives_the_history_forms_strategies (a matrix product and running sums round apart)
@pytest.mark.parametrize(("canonical", "alternating", "tol"), [
    (False, False, 1e-12), (False, True, 1e-8), (True, False, 1e-12)])
def test_matrix_rule_reproduces_the_showdown_rule(canonical, alternating, tol):
    plain = compile_public(LeducPoker(canonical))
    mat = compile_public(MatrixLeduc(canonical))
    assert np.array_equal(mat.arrays.term_rule != plain.arrays.term_rule,
                          plain.arrays.term_rule == SHOWDOWN_RULE)
    assert mat.sizes() == plain.sizes()
    # one chance context per board card, shared by every betting line that deals it
    assert plain.arrays.joint.shape[0] == mat.arrays.joint.shape[0] == (4 if canonical else 7)
    a = CFRSolver(plain, "cfr+", alternating=alternating).run(100).average_policy()
    b = CFRSolver(mat, "cfr+", alternating=alternating).run(100).average_policy()
    assert np.abs(a.probs - b.probs).max() <= tol
    tol = max(tol * 0.02, 1e-12)
    ea, eb = evaluate(a), evaluate(TabularPolicy(plain, b.probs))
    assert evaluate(b).exploitability == pytest.approx(ea.exploitability, abs=tol)
    assert eb.exploitability == pytest.approx(evaluate(b).exploitability, abs=1e-14)
    # the dense reference and the sampled pass read the matrix too
    plan = realization_plans(mat, random_policy(mat, 0).probs)
    for p in (0, 1):
        fast, dense = np.zeros(mat.num_sequences + 2), np.zeros(mat.num_sequences + 2)
        mat.terminal_values(p, plan, fast)
        mat.terminal_values(p, plan, dense, dense=True)
        assert np.allclose(fast, dense, atol=1e-15, rtol=1e-13)
    sa = MCCFRSolver(compile_public(plain), "es", seed=4).run(300).average_policy()
    sb = MCCFRSolver(compile_public(mat), "es", seed=4).run(300).average_policy()
    assert np.array_equal(sa.probs, sb.probs)


@cache
def coarse_forms():
    g = CoarseLeduc()
    return g, compile_game(g, form="history"), compile_public(g)


def test_coarse_observations_give_the_abstract_game():
    """Leduc under J.QK (+ board) as observation maps: the abstract game's information sets and
    sequences, its CFR+ solution (rcfr.abstraction) and its lifted exploitability."""
    g, h, t = coarse_forms()
    hs, ts = h.sizes(), t.sizes()
    for key in ("infosets", "sequences", "infosets_per_player", "sequences_per_player"):
        assert ts[key] == hs[key]
    # per player 3 preflop decision nodes x 2 classes, and 5 x 3 flop decision nodes per board
    # x the board's classes (J board: the other J / Q or K; Q or K board: 3 classes)
    assert ts["infosets"] == 2 * (3 * 2 + 15 * (2 * 2 + 4 * 3)) == 492  # full game: 936
    assert ts["infosets"] < compile_public("leduc").num_infosets
    for p in (0, 1):
        ours, theirs = t.player_infosets(p), h.player_infosets(p)
        assert sorted(t.infoset_keys[ours.start : ours.stop]) == sorted(
            h.infoset_keys[theirs.start : theirs.stop])
    # a pair of observed classes is a history of the public node: 2 x 2 - 1 before the flop
    # (J, J is a pair of classes: two jacks), after it every board leaves 5 class pairs
    assert t.ctx_joint_states[0] == 4
    full = compile_game("leduc")
    ref = solve(full, "cfr+", 100, abstraction=h)
    ours = CFRSolver(t, "cfr+").run(100).average_policy()
    conv = convert_policy(ours, h)
    # 3e-12 measured (CFR+'s zero regrets, see test_cfr_gives_the_history_forms_strategies)
    assert np.abs(conv.probs - ref.abstraction.abstract_policy.probs).max() <= 1e-10
    cfr = convert_policy(CFRSolver(t, "cfr").run(100).average_policy(), h)
    assert np.abs(cfr.probs - CFRSolver(h, "cfr").run(100).average_policy().probs).max() <= 1e-12
    assert evaluate(ours).exploitability == pytest.approx(
        ref.abstraction.abstract_evaluation.exploitability, abs=1e-12)
    lifted = lift_policy(full, h, conv)
    assert evaluate(full, lifted).exploitability == pytest.approx(ref.evaluation.exploitability,
                                                                  abs=1e-12)


def test_coarse_observations_in_sampled_passes():
    """The sampled pass looks up (public node, observed class): unbiased regrets of the
    abstract game."""
    g, h, t = coarse_forms()
    rng = np.random.default_rng(5)
    policy = TabularPolicy.from_weights(h, rng.random(h.num_sequences) + 0.25)
    solver = MCCFRSolver(compile_public(t), "es", seed=1)
    solver.setup()
    solver.strategy_[:] = convert_policy(policy, t).probs
    back = sequence_map(t, h)
    for player in (0, 1):
        rows = solver.sample_regrets(player, 10000)[:, back]
        exact = exact_regrets(h, policy, player)
        se = rows.std(axis=0, ddof=1) / np.sqrt(rows.shape[0])
        assert np.all(np.abs(rows.mean(axis=0) - exact) <= 5 * se + 1e-9)
        assert np.abs(exact).max() > 0.01


def test_observations_must_keep_perfect_recall():
    class Forgetful(CoarseLeducState):
        def observation(self, player):
            obs = super().observation(player)
            return obs if len(self._state.cards) < 3 else np.arange(6) % 2  # suits only

    class Game(CoarseLeduc):
        def public_structure(self):
            spec = super().public_structure()
            spec.root = Forgetful(spec.root._state)
            return spec

    with pytest.raises(RcfrError, match="perfect recall"):
        compile_public(Game())


class HiddenBoardState(LeducPublicState):
    """Canonical Leduc shaped as 2-NL Hold'em(k) on the public engine: each player's private
    state is (own rank, board rank), dealt at the root; before the flop a player observes its
    rank only, the flop is a chance node with one outcome that only changes the context, and
    showdowns are a payoff matrix."""

    def legal_actions(self):
        return [0] if self._state.current_player() == CHANCE else super().legal_actions()

    def chance_factor(self, outcome):
        return np.ones((9, 9))

    def observation(self, player):
        return np.arange(9) // 3 if len(self._state.cards) < 3 else None

    def terminal(self):
        rule, value, q, face = super().terminal()
        return (MATRIX_RULE if rule == SHOWDOWN_RULE else rule), value, q, face

    def payoff_matrix(self):
        own, board = np.divmod(np.arange(9), 3)
        strength = own + 3 * (own == board)
        return np.sign(strength[:, None] - strength[None, :]).astype(np.float64)

    def information_state_string(self, player, private):
        state = self._state.clone()
        own, board = divmod(private, 3)
        cards = list(state.cards)
        cards[player] = own
        if len(cards) > 2:
            cards[2] = board
        state.cards = tuple(cards)
        return state.information_state_string(player)


class HiddenBoardLeduc(LeducPoker):
    def __init__(self):
        super().__init__(canonical=True)

    def public_structure(self):
        stand_in = LeducState(True)
        stand_in.cards = (0, 1)
        (r0, b0), (r1, b1) = (np.divmod(np.arange(9), 3)[k][:, None] for k in (0, 1)), \
            (np.divmod(np.arange(9), 3)[k][None, :] for k in (0, 1))
        deal = (2.0 - (r0 == r1)) / 15 * (2.0 - (r0 == b0) - (r1 == b0)) / 4 * (b0 == b1)
        return PublicStructure(root=HiddenBoardState(stand_in), labels=(
            [f"{a}{b}" for a in "JQK" for b in "JQK"],) * 2, pairing="dense", deal=deal,
            deal_histories=np.ones((9, 9), dtype=np.int64), prefix_histories=4)


def test_private_states_dealt_at_the_root_with_a_one_outcome_flop():
    """Leduc with the board inside the private states (observed from the flop on) is canonical
    Leduc: the same sizes, histories included, and the same CFR and exploitability."""
    g = HiddenBoardLeduc()
    h, t = compile_game(g, form="history"), compile_public(g)
    assert t.num_public_nodes < both("leduc(canonical=true)")[1].num_public_nodes
    assert t.arrays.joint.shape[0] == 2  # before and after the flop
    hs, ts = h.sizes(), t.sizes()
    assert {k: ts[k] for k in SIZE_KEYS} == {k: hs[k] for k in SIZE_KEYS}
    for alg, tol in (("cfr", 1e-12), ("cfr+", 1e-8)):  # (CFR+: zero regrets, as above)
        a = CFRSolver(h, alg).run(100).average_policy()
        b = CFRSolver(t, alg).run(100).average_policy()
        assert np.abs(convert_policy(b, h).probs - a.probs).max() <= tol
        assert evaluate(b).exploitability == pytest.approx(evaluate(a).exploitability,
                                                           abs=max(tol, 1e-12))
    pol = random_policy(h, 1)
    assert evaluate(convert_policy(pol, t)).exploitability == pytest.approx(
        evaluate(pol).exploitability, abs=1e-12)
    es = MCCFRSolver(compile_public(t), "es", seed=2).run(3000)
    assert evaluate(es.average_policy()).exploitability < 0.6  # as on canonical Leduc

"""Card abstractions of real-card spots (holdem_spot(...,buckets=K)): the public form with
observed bucket sequences, the lift of an abstract strategy to the real spot, bad input."""

import numpy as np
import pytest

from rcfr import compile_game, load_game
from rcfr.abstraction.spot import lift_classes
from rcfr.cli import main
from rcfr.core.errors import RcfrError
from rcfr.games.holdem.cards import cards_from_str
from rcfr.games.holdem.combos import COMBO_CARDS, NUM_COMBOS, combo_from_str, live_combos
from rcfr.games.holdem.spot_buckets import bucket_classes, ehs2_buckets, river_hs_num
from rcfr.games.holdem.spot_game import SpotGame, holdem_spot
from rcfr.games.holdem.strength import river_strength
from rcfr.solvers.run import make_solver

SPOT = "holdem_spot(spot=turn_small)"
K = 4


class _OnePerCombo(SpotGame):
    """The spot in which each player observes its combo as a class (the identity
    abstraction, through the observation path)."""

    def observe(self, board):
        return np.arange(NUM_COMBOS)


@pytest.fixture(scope="module")
def trees():
    return (compile_game(SPOT, form="public"),
            compile_game(f"holdem_spot(spot=turn_small,buckets={K})", form="public"))


def _cfr_plus(tree, n=3):
    solver = make_solver(tree, "cfr+")
    solver.setup()
    solver.run(n)
    return solver.average_policy().probs


def test_one_class_per_combo_is_the_real_spot(trees):
    real = trees[0]
    g = holdem_spot(spot="turn_small")
    same = compile_game(_OnePerCombo(g.board, g.ranges, g.pot, g.stack, g.root,
                                     spot="turn_small"), form="public")
    assert same.sizes() == real.sizes()
    a, b = _cfr_plus(real), _cfr_plus(same)
    np.testing.assert_allclose(a, b, atol=1e-12)
    np.testing.assert_allclose(real.evaluate(a), same.evaluate(b), atol=1e-9)


def test_hand_strength_by_brute_force():
    board = tuple(cards_from_str("Td9d6hQc2c"))
    strength, order = river_strength(board)
    num = river_hs_num(board)
    rng = np.random.default_rng(3)
    for x in rng.choice(order, 20):
        a, b = COMBO_CARDS[x]
        ys = [y for y in order if not {a, b} & set(COMBO_CARDS[y])]
        assert len(ys) == 990  # C(45, 2) opponent hands
        want = sum(2 * (strength[x] > strength[y]) + (strength[x] == strength[y]) for y in ys)
        assert num[x] == want


def test_buckets_are_percentiles_and_classes_refine():
    game = load_game(f"holdem_spot(spot=turn_small,buckets={K})")
    turn = game.board
    b = ehs2_buckets(turn, K)
    live = live_combos(turn)
    counts = np.bincount(b[live], minlength=K)
    assert counts.sum() == 1128 and counts.min() > 1128 // K - 60  # equal counts up to ties
    assert b[combo_from_str("KhJh")] == K - 1 and b[combo_from_str("3c2d")] == 0
    among = (game.ranges[0] > 0) | (game.ranges[1] > 0)  # the spot's: either range's combos
    mine = game.observe(turn)
    assert np.array_equal(mine, bucket_classes(turn, len(turn), K, among))
    per = np.bincount(mine[among], minlength=K)  # AA 6, QQ 3, T9s 3, KhJh, 8d7d: 14 combos
    assert per.sum() == 14 and per.min() >= 2 and per.max() <= 5
    parent = mine
    for river in range(52):
        if river in turn:
            continue
        board = (*turn, river)
        cls = game.observe(board)
        ok = live_combos(board) & among
        assert np.array_equal(cls[ok] // K, parent[ok])  # perfect recall
        assert cls[ok].max() < K * K


def test_abstract_sizes(trees):
    real, abst = trees
    assert abst.num_public_nodes == real.num_public_nodes
    game = abst.game
    expect = 0
    for u in np.flatnonzero(abst.node_kind < 2):
        p, c = int(abst.node_kind[u]), int(abst.node_ctx[u])
        ok = np.flatnonzero(abst.arrays.valid[p, c, :NUM_COMBOS])
        board = _board(abst, u, game)
        expect += np.unique(game.observe(board)[ok]).size
    assert abst.num_infosets == expect
    # the history form merges information sets by their strings: the same count
    assert compile_game(str(game), form="history").num_infosets == expect
    assert 0 < abst.num_infosets < real.num_infosets
    # pairs of observed classes: at most K x K on the turn, K^2 x K^2 on a river
    assert abst.ctx_joint_states[0] <= K * K
    assert abst.ctx_joint_states.max() <= K ** 4


def _board(tree, u, game):
    cards = []
    while u > 0:
        parent = int(tree.node_parent[u])
        if tree.node_kind[parent] == 2:
            cards.append(int(tree.node_action[u]))
        u = parent
    return (*game.board, *reversed(cards))


def test_lift_equals_the_expanded_strategy(trees):
    real, abst = trees
    probs = _cfr_plus(abst, 5)
    lifted = lift_classes(real, abst, probs)
    # each combo's sequences read its class's, by the public trees' rows
    direct = np.zeros(real.num_sequences)
    A = real.arrays
    for u in np.flatnonzero(real.node_kind < 2):
        p, c, k = int(real.node_kind[u]), int(real.node_ctx[u]), int(real.node_num_actions[u])
        for x in np.flatnonzero(A.row_of[p, c] >= 0):
            r, q = int(A.row_of[p, c, x]), int(abst.arrays.row_of[p, c, x])
            s, t = int(real.node_seq_base[u]) + r * k, int(abst.node_seq_base[u]) + q * k
            direct[s:s + k] = probs[t:t + k]
    np.testing.assert_array_equal(lifted.probs, direct)
    v, b0, b1 = real.evaluate(direct)
    ev = real.evaluate(lifted.probs)
    assert ev == (v, b0, b1) and b0 + b1 > 1.0  # a coarse blueprint is exploitable
    # the same lift from the history form of the real spot
    hist = lift_classes(compile_game(SPOT, form="history"), abst, probs)
    assert compile_game(SPOT, form="history").evaluate(hist.probs) == pytest.approx(
        (v, b0, b1), abs=1e-9)


@pytest.mark.parametrize("argv, message", [
    (["games", "holdem_spot(spot=turn_small,buckets=0)"], "buckets must be"),
    (["solve", "kuhn", "--abstraction", "buckets:3", "-n", "1"], "abstracts a real-card spot"),
    (["solve", SPOT, "--abstraction", "buckets:x", "-n", "1"], "whole number"),
])
def test_bad_input_is_one_error_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and message in err[0]


def test_lift_refuses_another_spot(trees):
    with pytest.raises(RcfrError, match="does not abstract"):
        lift_classes("holdem_spot(spot=river_small)", trees[1], np.zeros(trees[1].num_sequences))

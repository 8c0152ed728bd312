"""The Libratus endgames: the shipped data, PokerRL's betting tree over them, and the games."""

import numpy as np
import pytest

from rcfr.core.errors import RcfrError
from rcfr.games.holdem.action_tree import (
    ALL_IN,
    BET,
    CALL,
    CHANCE,
    CHECK,
    DECISION,
    FOLD,
    FOLDED,
    RAISE,
    RIVER,
    SHOWDOWN,
    TURN,
    count_nodes,
    lines,
)
from rcfr.games.holdem.cards import cards_from_str
from rcfr.games.holdem.combos import NUM_COMBOS, combo_from_str, live_combos
from rcfr.games.holdem.libratus import (
    ENDGAMES,
    libratus_order,
    load_endgame,
    pokerrl_action_tree,
)


# -- the data ------------------------------------------------------------------------------
def test_the_files_hand_order_maps_onto_every_combo_once():
    order = libratus_order()
    assert sorted(order.tolist()) == list(range(NUM_COMBOS))
    # 2s2h, 2s2d, 2s2c, 2s3s, 2s3h, ..., then 2h2d after the 51 hands with 2s; AdAc last
    assert order[:5].tolist() == [combo_from_str(t) for t in ("2s2h", "2s2d", "2s2c", "2s3s",
                                                                 "2s3h")]
    assert order[51] == combo_from_str("2h2d") and order[-1] == combo_from_str("AdAc")


def test_endgames_read_the_round_board_pot_and_reach_values():
    e = load_endgame(1)
    assert (e.round, e.board, e.pot) == (3, tuple(cards_from_str("7s9h9cTc")), 500)
    # the file's first values for the out-of-position player: 2s2h, 2s2d, 2s3s, 2s3h
    assert e.reach0[combo_from_str("2s2h")] == 0.5525608954951167
    assert e.reach0[combo_from_str("2d2s")] == 0.24590964455339098
    assert e.reach0[combo_from_str("3s2s")] == 0.9124763766209736
    assert e.reach0[combo_from_str("2s3h")] == 0.0
    assert e.reach1[combo_from_str("AdAc")] == 0.9757236104961685  # the file's last value
    e = load_endgame(3)
    assert (e.round, e.pot) == (4, 500) and e.board == tuple(cards_from_str("4s8hTc9h2s"))
    assert e.reach0[combo_from_str("2h2d")] == 0.7437517  # the 52nd value: after the 2s hands
    assert e.reach0[combo_from_str("2h2c")] == 0.738118
    assert e.reach0[combo_from_str("AdAc")] == 4.1238653e-7
    assert e.reach1[combo_from_str("AdAc")] == 0.25130478
    assert [load_endgame(n)[:3] for n in (2, 4)] == [
        (3, tuple(cards_from_str("Ts6hAh7c")), 4780),
        (4, tuple(cards_from_str("JsKs5cQs7d")), 3750)]


@pytest.mark.parametrize("n", ENDGAMES)
def test_board_blocked_combos_have_no_reach(n):
    e = load_endgame(n)
    blocked = ~live_combos(e.board)
    assert blocked.sum() == NUM_COMBOS - {4: 1128, 5: 1081}[len(e.board)]
    for reach in (e.reach0, e.reach1):
        assert reach.shape == (NUM_COMBOS,) and np.all(reach >= 0) and np.all(reach <= 1)
        assert not np.any(reach[blocked]) and reach.sum() > 1


def test_unknown_endgames_are_refused():
    with pytest.raises(RcfrError, match="four Libratus endgames"):
        load_endgame(5)


# -- PokerRL's betting ---------------------------------------------------------------------
def test_endgame4_tree_has_pokerrls_sizes():
    e = load_endgame(4)  # river, pot 3,750: 18,125 chips behind each
    root = pokerrl_action_tree(e.round, e.pot)
    assert (root.kind, root.player, root.street) == (DECISION, 0, RIVER)
    # B_3: half pot, pot, all-in; no fold without a bet
    assert [(a.kind, a.amount) for a in root.actions] == [
        (CHECK, 0), (BET, 1875), (BET, 3750), (ALL_IN, 18125)]
    half = root.children[1]
    # B_2 after a bet: a pot raise puts in the call and the pot after it,
    # 1,875 + (3,750 + 1,875 + 1,875) = 9,375; and all-in
    assert [(a.kind, a.amount) for a in half.actions] == [
        (FOLD, 0), (CALL, 0), (RAISE, 9375), (ALL_IN, 18125)]
    # facing 9,375 a pot raise would be 31,875: all-in is the last size
    assert [(a.kind, a.amount) for a in half.children[2].actions] == [
        (FOLD, 0), (CALL, 0), (ALL_IN, 18125)]
    assert [(a.kind, a.amount) for a in root.children[2].children[2].children[2].actions] == [
        (FOLD, 0), (CALL, 0)]  # facing all-in
    ip = root.children[0]  # after a check, IP has the first bet's sizes
    assert (ip.player, [a.amount for a in ip.actions]) == (1, [0, 1875, 3750, 18125])
    assert ip.children[0].kind == SHOWDOWN and ip.children[0].amount == 0
    fold, call = half.children[:2]
    assert (fold.kind, fold.player, fold.amount) == (FOLDED, 1, 0)  # IP loses pot / 2
    assert (call.kind, call.amount) == (SHOWDOWN, 1875)
    assert half.children[2].children[0].amount == 1875  # OOP folds to the raise: 1,875 in
    assert len(lines(root)) == 37
    assert count_nodes(root) == {"decision": 20, "chance": 0, "fold": 18, "showdown": 19,
                                      "total": 57, "flop": 0, "turn": 0, "river": 57}


def test_endgame3_tree_raises_until_all_in():
    e = load_endgame(3)  # river, pot 500
    root = pokerrl_action_tree(e.round, e.pot)
    longest = max(lines(root), key=len)
    # 250 -> 1,250 -> 4,250 -> 13,250 -> all-in 19,750: each raise a pot after the call
    assert longest == ("check", "bet 250", "raise 1250", "raise 4250", "raise 13250",
                       "allin 19750", "call")
    sizes = count_nodes(root)
    assert (sizes["decision"], sizes["fold"], sizes["showdown"], sizes["total"]) == (
        32, 30, 31, 93)


def test_turn_endgames_deal_the_river_and_run_out_called_all_ins():
    e = load_endgame(1)  # turn, pot 500
    root = pokerrl_action_tree(e.round, e.pot)
    assert root.street == TURN
    check_check = root.children[0].children[0]
    assert (check_check.kind, check_check.street) == (CHANCE, TURN)
    river = check_check.children[0]
    assert (river.kind, river.player, river.street, river.amount) == (DECISION, 0, RIVER, 0)
    assert [a.amount for a in river.actions] == [0, 250, 500, 19750]  # a new round: B_3
    called = root.children[-1].children[1]  # all-in, call: no more betting
    assert called.kind == CHANCE and called.children[0].kind == SHOWDOWN
    assert called.children[0].amount == 19750
    sizes = count_nodes(root)
    assert (sizes["decision"], sizes["chance"], sizes["total"]) == (288, 31, 832)
    assert count_nodes(pokerrl_action_tree(3, 4780))["decision"] == 80  # endgame 2


def test_pokerrl_tree_refuses_bad_rounds():
    with pytest.raises(RcfrError, match="round 3"):
        pokerrl_action_tree(2, 500)

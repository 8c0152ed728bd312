"""The seed papers' games: sizes and values the papers (and OpenSpiel) report, and their rules."""

import json

import pytest

import rcfr
from rcfr.games.goofspiel import Goofspiel
from rcfr.games.liars_dice import LiarsDice
from rcfr.games.nl_one_card import NLOneCardPoker
from rcfr.lp import solve_lp


def play(game, actions):
    state = game.new_initial_state()
    for a in actions:
        state.apply_action(a)
    return state


# -- no-limit one-card poker (Morrill 2016, ch. 2) -----------------------------------------
@pytest.fixture(scope="module")
def one_card():
    return rcfr.compile_game("nl_one_card")


def test_one_card_sizes(one_card):
    s = one_card.sizes()
    assert (s["histories"], s["infosets"], s["sequences"]) == (9617, 1072, 3200)
    assert s["infosets_per_player"] == [536, 536]


def test_one_card_value(one_card):
    sol = solve_lp(one_card)
    assert sol.value == pytest.approx(-1 / 12, abs=1e-9)  # the thesis: about -83 mbb/g
    assert rcfr.evaluate(one_card, sol.strategy).exploitability < 1e-8


def test_one_card_wagering():
    g = NLOneCardPoker()
    s = play(g, [3, 0])  # player 0 holds the highest card
    assert s.legal_actions() == list(range(1, 11))  # check or raise to 2..10; no fold
    s.apply_action(4)  # raise to 4: a raise of 3
    assert s.legal_actions() == [0, 1, 7, 8, 9, 10]  # the next raise is at least 3 more
    s.apply_action(9)  # a raise of 5: the minimum re-raise would pass the stack
    assert s.legal_actions() == [0, 1, 10]  # all-in is always allowed
    s.apply_action(10)
    assert s.legal_actions() == [0, 1]
    s.apply_action(1)
    assert s.is_terminal() and s.returns() == [10.0, -10.0]
    assert s.information_state_string(1) == "0|r4r9r10c"


def test_one_card_payoffs():
    g = NLOneCardPoker()
    assert play(g, [0, 1, 1, 1]).returns() == [-1.0, 1.0]  # check, check: higher card wins ante
    assert play(g, [0, 1, 5, 0]).returns() == [1.0, -1.0]  # raise, fold: the folder loses 1
    assert play(g, [0, 1, 1, 3, 0]).returns() == [-1.0, 1.0]
    assert play(g, [2, 1, 1, 6, 1]).returns() == [6.0, -6.0]


def betting_tree(stack, ante):
    """(decision nodes, actions) of the no-limit betting tree, counted by a direct recursion."""
    def rec(spent, to_act, last_raise, checked):
        mine, other = spent[to_act], spent[1 - to_act]
        nodes, actions = 1, (2 if other > mine else 1)
        if other == mine and not checked:  # a first check passes the turn
            n, a = rec(spent, 1 - to_act, last_raise, True)
            nodes, actions = nodes + n, actions + a
        if other < stack:
            for to in range(min(other + max(1, last_raise), stack), stack + 1):
                nxt = list(spent)
                nxt[to_act] = to
                n, a = rec(tuple(nxt), 1 - to_act, to - other, True)
                nodes, actions = nodes + n, actions + 1 + a
        return nodes, actions

    return rec((ante, ante), 0, 0, False)


@pytest.mark.parametrize("cards, stack, ante", [(4, 10, 1), (3, 4, 1), (5, 7, 2), (2, 2, 2)])
def test_one_card_parameters(cards, stack, ante):
    tree = rcfr.compile_game(NLOneCardPoker(cards=cards, stack=stack, ante=ante))
    decisions, actions = betting_tree(stack, ante)
    assert tree.num_infosets == cards * decisions  # one information set per card and history
    assert tree.num_sequences == cards * actions
    assert rcfr.load_game(str(tree.game)).params == tree.game.params
    assert rcfr.load_game("nl_one_card(ante=2,stack=2)").new_initial_state() is not None


@pytest.mark.parametrize("spec, message", [
    ("nl_one_card(cards=1)", "at least 2 cards"),
    ("nl_one_card(stack=0)", "below the ante"),
    ("nl_one_card(ante=0)", "at least 1 chip"),
    ("nl_one_card(stack=2.5)", "whole number"),
])
def test_one_card_bad_parameters(spec, message):
    with pytest.raises(rcfr.RcfrError, match=message):
        rcfr.load_game(spec)


# -- goofspiel (D'Orazio et al. 2019) ------------------------------------------------------
def test_goofspiel_sizes():
    tree = rcfr.compile_game("goofspiel")
    assert tree.num_infosets == 2124  # as D'Orazio et al. and OpenSpiel
    assert tree.num_infosets_per_player == (1062, 1062)
    assert tree.num_nodes == 26931  # OpenSpiel's turn-based goofspiel(num_cards=5)
    assert rcfr.compile_game("goofspiel(num_cards=4)").num_infosets == 162


@pytest.mark.parametrize("spec", ["goofspiel(num_cards=4)", "goofspiel(num_cards=4,imp_info=false)",
                                  "goofspiel(num_cards=3,points_order=random)"])
def test_goofspiel_is_symmetric(spec):
    assert solve_lp(rcfr.compile_game(spec)).value == pytest.approx(0.0, abs=1e-9)


def test_goofspiel_rules():
    g = Goofspiel(num_cards=3)  # points 3, 2, 1 (descending)
    s = play(g, [2, 1])  # bids 3 vs 2: player 0 wins the 3
    assert s.information_state_string(1) == "p1|points 3 2|bids 2|won l"
    s.apply_action(0)
    assert s.information_state_string(1) == "p1|points 3 2|bids 2|won l"  # the bid is hidden
    s.apply_action(0)  # a tie discards the 2; the last round plays itself (1 vs 3)
    assert s.is_terminal() and s.returns() == [1.0, -1.0]  # 3 points against 1
    assert play(g, [0, 2, 1, 1]).returns() == [-1.0, 1.0]  # 0 points against 3 + 1
    assert play(g, [2, 0, 0, 1]).returns() == [0.0, 0.0]  # 3 against 2 + 1


@pytest.mark.parametrize("spec, message", [
    ("goofspiel(num_cards=1)", ">= 2"),
    ("goofspiel(points_order=sideways)", "points_order"),
    ("goofspiel(imp_info=1)", "true or false"),
])
def test_goofspiel_bad_parameters(spec, message):
    with pytest.raises(rcfr.RcfrError, match=message):
        rcfr.load_game(spec)


# -- liar's dice / Bluff (Gibson et al. 2012) ---------------------------------------------
@pytest.fixture(scope="module")
def bluff():
    return rcfr.compile_game("liars_dice")


def test_bluff_sizes_and_memory(bluff):
    assert bluff.num_infosets == 24576
    assert bluff.num_nodes == 294883
    assert bluff.num_terminals == 36 * 4095
    assert bluff.nbytes / bluff.num_nodes <= 64


@pytest.mark.parametrize("spec", ["liars_dice", "liars_dice(faces=3,dice=2)",
                                  "liars_dice(faces=2,dice=1,dice2=3)"])
def test_liars_dice_closed_form_sizes_equal_both_compiled_forms(spec):
    sizes = rcfr.load_game(spec).closed_form_sizes()
    for form in ("history", "public"):
        compiled = rcfr.compile_game(spec, form).sizes()
        assert {k: compiled[k] for k in sizes if k in compiled} == {
            k: v for k, v in sizes.items() if k in compiled}
    assert sizes["public_nodes"] == rcfr.compile_game(spec, "public").num_public_nodes


def test_bluff_2_2_sizes_without_building_it(capsys):
    """Bluff(2,1)'s sizes as Gibson et al. count them (27 x 131,072 information sets) and
    Bluff(2,2)'s in closed form: ``rcfr games`` shows them; solving it is refused."""
    from rcfr.cli import main

    b21 = rcfr.load_game("liars_dice(dice=2,dice2=1)").closed_form_sizes()
    assert b21["infosets"] == 27 * 131072 and b21["public_nodes"] == 524287
    assert main(["games", "liars_dice(dice=2,dice2=2)", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    # 21 unordered rolls a player, 24 bids: 42 * 2^23 information sets
    assert row["infosets"] == 42 * 2**23 and row["public_nodes"] == 2**25 - 1
    assert row["histories"] == sum(6**k for k in range(4)) + 6**4 * (2**25 - 1)
    assert row["public_mb_estimated"] and row["history_mb_estimated"]
    assert main(["solve", "liars_dice(dice=2,dice2=2)", "--max-memory", "4G"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "704,643,030 sequences" in err


def test_bluff_uniform_exploitability(bluff):
    # pyspiel.exploitability(liars_dice, uniform) = 0.7807443231922397 (OpenSpiel 2.0.2)
    assert rcfr.exploitability(bluff, rcfr.TabularPolicy.uniform(bluff)) == pytest.approx(
        0.7807443231922397, abs=1e-12)


def test_bluff_lookup(bluff):
    i = bluff.infoset_index("6|1-2 1-3", player=0)
    assert bluff.infoset_keys[i] == "6|1-2 1-3"
    assert list(bluff.infoset_actions(i)) == list(range(3, 13))
    assert bluff.seq_action_names[bluff.infoset_seq_start[i]] == "1-4"
    with pytest.raises(rcfr.RcfrError):
        bluff.infoset_index("6|1-2 1-3", player=1)  # player 0 made the second bid


def test_bluff_rules():
    g = LiarsDice()
    s = play(g, [5, 2])  # player 0 rolls a 6 (wild), player 1 a 3
    assert 12 not in s.legal_actions()  # no bluff before a bid
    assert play(g, [5, 2, 8, 12]).returns() == [1.0, -1.0]  # "2-3" holds: caller loses
    assert play(g, [5, 2, 9, 12]).returns() == [-1.0, 1.0]  # "2-4" fails: caller wins
    assert play(g, [5, 2, 9, 11, 12]).returns() == [1.0, -1.0]  # "2-6": one six, caller wins
    assert play(g, [0, 0, 0, 6, 12]).returns() == [-1.0, 1.0]  # "2-1" holds: caller loses
    s = play(g, [3, 4, 7])
    assert s.legal_actions() == [8, 9, 10, 11, 12]


def test_more_dice():
    two = rcfr.compile_game("liars_dice(dice=2,faces=2)")
    # 16 rolls, then every increasing run of the 8 bids, each but the empty one also called
    assert two.num_nodes == 1 + 2 + 4 + 8 + 16 * (2 * 2**8 - 1)
    # own dice are seen sorted: {1,1}, {1,2}, {2,2} x 2**7 bid histories per player
    assert two.num_infosets == 2 * 3 * 2**7


@pytest.mark.parametrize("spec, message", [
    ("liars_dice(dice=0)", "at least 1 die"),
    ("liars_dice(faces=1)", "at least 2 faces"),
    ("liars_dice(dice=true)", "whole number"),
])
def test_bluff_bad_parameters(spec, message):
    with pytest.raises(rcfr.RcfrError, match=message):
        rcfr.load_game(spec)

import math

import numpy as np
import pytest

import rcfr
from rcfr.games import CHANCE, TERMINAL, load_game, parse_game_string


@pytest.mark.parametrize(
    "spec, histories, terminals, infosets, sequences",
    [
        ("kuhn", 58, 30, 12, 24),
        ("leduc", 9457, 5520, 936, 2184),
        ("leduc(canonical=true)", 1939, 1116, 288, 672),
        ("rps", 13, 9, 2, 6),
        ("matrix(payoffs=[[1,2,3],[4,5,6]])", 9, 6, 2, 5),
    ],
)
def test_sizes(spec, histories, terminals, infosets, sequences):
    sizes = rcfr.compile_game(spec).sizes()
    assert sizes["histories"] == histories
    assert sizes["terminals"] == terminals
    assert sizes["infosets"] == infosets
    assert sizes["sequences"] == sequences
    assert sum(sizes["infosets_per_player"]) == infosets
    assert sum(sizes["sequences_per_player"]) == sequences
    assert sizes["chance_nodes"] + sizes["decision_nodes"] + terminals == histories


def test_leduc_per_player_sizes(leduc, leduc_canonical):
    assert leduc.num_infosets_per_player == (468, 468)
    assert leduc.num_sequences_per_player == (1092, 1092)
    assert leduc_canonical.num_infosets_per_player == (144, 144)
    assert leduc_canonical.num_sequences_per_player == (336, 336)


def _play(game, actions):
    state = game.new_initial_state()
    for a in actions:
        assert a in state.legal_actions(), (a, state.legal_actions())
        state.apply_action(a)
    return state


# Leduc cards: rank = card // 2 (J=0,1 Q=2,3 K=4,5); actions fold=0, call=1, raise=2
@pytest.mark.parametrize(
    "actions, returns",
    [
        ([4, 1, 2, 0], [1, -1]),  # raise, fold: the folder loses the ante
        ([4, 1, 1, 2, 0], [-1, 1]),  # check, bet, fold
        ([4, 1, 2, 1, 5, 1, 1], [3, -3]),  # K vs J, board K: pair wins 1 + 2
        ([0, 2, 1, 1, 5, 1, 1], [-1, 1]),  # J vs Q, board K: higher card wins
        ([2, 3, 1, 1, 5, 2, 1], [0, 0]),  # Q vs Q: split
        ([0, 2, 2, 2, 1, 4, 2, 1], [-9, 9]),  # r r c (5 each), then bet 4 + call: Q wins 9
        ([0, 4, 2, 2, 1, 1, 2, 2, 1], [13, -13]),  # board J pairs player 0: 5 + 4 + 4
        ([0, 4, 1, 1, 1, 1, 2, 2, 0], [5, -5]),  # player 0 raises the bet, player 1 folds
    ],
)
def test_leduc_payoffs(actions, returns):
    state = _play(load_game("leduc"), actions)
    assert state.is_terminal()
    assert state.returns() == returns


def test_leduc_rules():
    game = load_game("leduc")
    s = _play(game, [0, 1])
    assert s.current_player() == 0
    assert s.legal_actions() == [1, 2]  # no fold without a bet
    s = _play(game, [0, 1, 2, 2])
    assert s.legal_actions() == [0, 1]  # one bet and one raise per round at most
    s = _play(game, [0, 1, 1, 1])
    assert s.is_chance_node()
    assert [a for a, _ in s.chance_outcomes()] == [2, 3, 4, 5]
    s.apply_action(3)
    assert s.current_player() == 0  # the first player opens round two too
    assert s.information_state_string(1) == "Jh|Qh|cc/"
    canon = _play(load_game("leduc(canonical=true)"), [0])
    assert canon.chance_outcomes() == [(0, 1 / 5), (1, 2 / 5), (2, 2 / 5)]
    canon = _play(load_game("leduc(canonical=true)"), [0, 0, 1, 1])
    assert canon.chance_outcomes() == [(1, 0.5), (2, 0.5)]


def test_kuhn_rules():
    game = load_game("kuhn")
    s = game.new_initial_state()
    assert s.current_player() == CHANCE
    assert s.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    s = _play(game, [2, 0, 0, 1, 1])  # K vs J: pass, bet, call
    assert s.current_player() == TERMINAL and s.returns() == [2, -2]
    assert _play(game, [0, 2, 1, 0]).returns() == [1, -1]  # bet, fold
    assert _play(game, [0, 2, 0, 0]).returns() == [-1, 1]  # showdown
    assert _play(game, [1, 0, 0]).information_state_string(1) == "Jp"


def test_registry_strings():
    assert parse_game_string("leduc(canonical=true)") == ("leduc", {"canonical": True})
    assert str(load_game("leduc(canonical=true)")) == "leduc(canonical=true)"
    assert str(load_game("leduc(canonical=false)")) == "leduc"
    m = load_game("matrix(payoffs=[[0,-1,1],[1,0,-1],[-1,1,0]])")
    assert np.array_equal(m.payoffs, load_game("rps").payoffs)
    m2 = load_game("matrix(payoffs=0 -1 1;1 0 -1;-1 1 0)")
    assert np.array_equal(m2.payoffs, m.payoffs)
    assert load_game(str(m)).payoffs.tolist() == m.payoffs.tolist()


@pytest.mark.parametrize(
    "spec, message",
    [
        ("chess", "known games: .*kuhn, leduc, liars_dice, liars_dice3, liars_dice4, "
                  "libratus_endgame, libratus_endgame3, libratus_endgame4, matrix"),
        ("leduc(foo=1)", "no parameter 'foo'"),
        ("leduc(canonical=", "malformed"),
        ("leduc(canonical=no)", "true or false"),
        ("leduc(canonical=2)", "true or false"),
        ("leduc(canonical=)", "no value"),
        ("matrix(payoffs=[[1,2],[3]])", "matrix payoffs"),
        ("matrix(payoffs=[1,2])", "2-d table"),
    ],
)
def test_registry_errors(spec, message):
    with pytest.raises(rcfr.RcfrError, match=message.replace("(", r"\(").replace("[", r"\[")):
        load_game(spec)


def _walk_ev(state, policy):
    """Player 0's expected payoff by recursion over the rules (independent of the tree)."""
    if state.is_terminal():
        return state.returns()[0]
    if state.is_chance_node():
        return sum(p * _walk_ev(state.child(a), policy) for a, p in state.chance_outcomes())
    probs = policy.action_probabilities(state)
    return sum(probs[a] * _walk_ev(state.child(a), policy) for a in state.legal_actions())


@pytest.mark.parametrize("spec", ["kuhn", "leduc", "leduc(canonical=true)", "rps"])
def test_compiled_tree_matches_rules(spec):
    from conftest import random_policy

    tree = rcfr.compile_game(spec)
    for seed in range(2):
        policy = random_policy(tree, seed)
        walked = _walk_ev(tree.game.new_initial_state(), policy)
        assert math.isclose(rcfr.expected_value(tree, policy), walked, abs_tol=1e-12)


def test_tree_structure(leduc):
    t = leduc
    # children are contiguous and come after their parent; chance probabilities sum to one
    for n in range(t.num_nodes):
        start, k = t.node_child_start[n], t.node_num_children[n]
        if k:
            assert start > n
            assert np.all(t.node_parent[start : start + k] == n)
        if t.node_kind[n] == 2:
            assert math.isclose(t.node_chance_prob[start : start + k].sum(), 1.0)
    # an information set's parent sequence belongs to an earlier information set of its player
    for i in range(t.num_infosets):
        parent = t.infoset_parent_seq[i]
        if parent < t.num_sequences:
            assert t.seq_infoset[parent] < i
            assert t.infoset_player[t.seq_infoset[parent]] == t.infoset_player[i]
        else:
            assert parent == t.num_sequences + int(t.infoset_player[i])
    assert t.infoset_index("Kh|-|") in t.player_infosets(0)
    assert t.infoset_index("Kh|-|c") in t.player_infosets(1)

"""Property tests over seeded random perfect-recall games (rcfr.games.random_game)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from conftest import random_policy

import rcfr
from rcfr.forms.base import KIND_CHANCE, KIND_TERMINAL
from rcfr.games import CHANCE, TERMINAL, load_game
from rcfr.games.random_game import RandomGame


def _params(s: int) -> dict:
    """Small games of varied shape (coprime periods mix the parameters): depth 2-4, 2-3
    actions, no/some/all levels with chance, information from perfect to none, early stops."""
    return {
        "seed": s,
        "depth": 2 + s % 3,
        "branching": 2 + (s // 2) % 2,
        "chance": (0.0, 0.5, 1.0, 0.5, 0.3)[s % 5],
        "chance_branching": 2 + (s // 3) % 2,
        "info": (0.0, 0.3, 0.6, 1.0)[s % 4],
        "stop": 0.2 * (s % 2),
        "payoff": 5 + s % 7,
    }


SEEDS = range(24)
SPECS = [str(RandomGame(**_params(s))) for s in SEEDS]


@cache
def tree_of(spec: str) -> rcfr.GameTree:
    return rcfr.compile_game(load_game(spec))


@cache
def lp_of(spec: str) -> rcfr.LPSolution:
    return rcfr.solve_lp(tree_of(spec))


def walk(state, own=((), ()), out=None) -> dict:
    """Recursive walk over the State API: node counts, information sets with their actions,
    and each information set's own-history (the player's earlier (info set, action) pairs)."""
    if out is None:
        out = {"terminal": 0, "chance": 0, "decision": 0, "infosets": {}, "recall": {}}
    player = state.current_player()
    if player == TERMINAL:
        out["terminal"] += 1
        u0, u1 = state.returns()
        assert u0 + u1 == 0.0 and abs(u0) <= state.game.payoff and u0 == int(u0)
        return out
    if player == CHANCE:
        out["chance"] += 1
        outcomes = state.chance_outcomes()
        assert [o for o, _ in outcomes] == state.legal_actions()
        for o, _ in outcomes:
            walk(state.child(o), own, out)
        return out
    out["decision"] += 1
    key = (player, state.information_state_string(player))
    actions = state.legal_actions()
    assert out["infosets"].setdefault(key, actions) == actions
    assert out["recall"].setdefault(key, own[player]) == own[player]
    for a in actions:
        mine = own[player] + ((key, a),)
        walk(state.child(a), (mine, own[1]) if player == 0 else (own[0], mine), out)
    return out


def recursive_value(state, tree: rcfr.GameTree, probs: np.ndarray) -> float:
    """Player 0's expected payoff under ``probs``, straight from the State API."""
    player = state.current_player()
    if player == TERMINAL:
        return state.returns()[0]
    if player == CHANCE:
        return sum(p * recursive_value(state.child(o), tree, probs)
                   for o, p in state.chance_outcomes())
    i = tree.infoset_index(state.information_state_string(player), player)
    start = tree.infoset_seq_start[i]
    return sum(probs[start + k] * recursive_value(state.child(int(a)), tree, probs)
               for k, a in enumerate(tree.infoset_actions(i)))


def children_of(tree: rcfr.GameTree) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for node, parent in enumerate(tree.node_parent.tolist()):
        out.setdefault(parent, []).append(node)
    return out


def nodes_per_infoset(tree: rcfr.GameTree) -> np.ndarray:
    decided = tree.node_infoset[tree.node_infoset >= 0]
    return np.bincount(decided, minlength=tree.num_infosets)


# -- structure -------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_tree_is_consistent(spec):
    tree = tree_of(spec)
    sizes = tree.sizes()
    kinds = sizes["decision_nodes"] + sizes["chance_nodes"] + sizes["terminals"]
    assert kinds == sizes["histories"] == tree.num_nodes
    assert int(tree.infoset_num_actions.sum()) == tree.num_sequences
    assert sum(sizes["sequences_per_player"]) == tree.num_sequences
    # every node of an information set has that information set's actions (children are
    # found from node_parent only, so this does not depend on how child ranges are stored)
    children = children_of(tree)
    for node in np.flatnonzero(tree.node_kind < 2):
        i = tree.node_infoset[node]
        assert tree.infoset_player[i] == tree.node_kind[node]
        assert np.array_equal(tree.node_action[children[node]], tree.infoset_actions(i))
        assert 2 <= len(children[node]) <= tree.game.branching
    # chance probabilities sum to one
    for node in np.flatnonzero(tree.node_kind == KIND_CHANCE):
        probs = tree.node_chance_prob[children[node]]
        assert np.all(probs > 0) and abs(probs.sum() - 1.0) < 1e-12
    # sizes agree with an independent recursive walk over the State API
    w = walk(tree.game.new_initial_state())
    assert w["terminal"] == sizes["terminals"] == int(np.sum(tree.node_kind == KIND_TERMINAL))
    assert w["chance"] == sizes["chance_nodes"]
    assert w["decision"] == sizes["decision_nodes"]
    assert len(w["infosets"]) == tree.num_infosets
    assert sum(len(a) for a in w["infosets"].values()) == tree.num_sequences
    for p in (0, 1):
        assert sum(1 for q, _ in w["infosets"] if q == p) == tree.num_infosets_per_player[p]


def test_same_seed_same_game_different_seed_different_game():
    for s in (0, 7, 13):
        a = rcfr.compile_game(RandomGame(**_params(s)))
        b = rcfr.compile_game(RandomGame(**_params(s)))  # a fresh object: no cached tree
        assert a is not b and a.fingerprint() == b.fingerprint()
        assert np.array_equal(a.terminal_coef, b.terminal_coef)
        assert np.array_equal(a.node_chance_prob, b.node_chance_prob)
    # the fingerprint hashes the game string (so it differs with the seed); compare shapes too
    shapes = set()
    for s in range(20):
        t = rcfr.compile_game(RandomGame(seed=s, depth=3))
        shapes.add((t.node_kind.tobytes(), t.terminal_coef.tobytes(), tuple(t.infoset_keys)))
    assert len(shapes) >= 18


def test_golden_game():
    """The generator is stable across runs and machines (a BLAKE2 hash seeds numpy)."""
    tree = rcfr.compile_game("random_game(seed=0)")
    assert tree.sizes()["histories"] == 300
    assert tree.sizes()["terminals"] == 178
    assert tree.num_infosets_per_player == (46, 41)
    assert tree.num_sequences_per_player == (115, 102)
    assert lp_of("random_game(seed=0)").value == pytest.approx(-4.428628389154705, abs=1e-7)


def test_perfect_recall_and_imperfect_information():
    for spec in SPECS:
        tree = tree_of(spec)  # compiling checks perfect recall and actions per info set
        w = walk(tree.game.new_initial_state())  # asserts equal own histories per info set
        assert len(w["recall"]) == tree.num_infosets
        if tree.game.info == 0.0:
            assert nodes_per_infoset(tree).max() == 1, spec  # perfect information
    for info in (0.3, 1.0):
        merged = [nodes_per_infoset(rcfr.compile_game(RandomGame(seed=s, info=info))).max() > 1
                  for s in range(10)]
        assert all(merged), info


# -- values ----------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_best_responses_bound_the_value(spec):
    tree, lp = tree_of(spec), lp_of(spec)
    tol = 1e-7 * tree.game.payoff
    for k in range(3):
        ev = rcfr.evaluate(tree, random_policy(tree, 100 + k))
        br0, br1 = ev.best_response_values
        assert br0 >= lp.value - tol
        assert -br1 <= lp.value + tol
        assert -br1 - tol <= ev.value <= br0 + tol
    uniform = rcfr.evaluate(tree, rcfr.TabularPolicy.uniform(tree))
    assert uniform.best_response_values[0] >= lp.value - tol


@pytest.mark.parametrize("spec", SPECS)
def test_lp_equilibrium_is_unexploitable(spec):
    tree, lp = tree_of(spec), lp_of(spec)
    ev = rcfr.evaluate(tree, rcfr.TabularPolicy(tree, lp.strategy))
    assert ev.exploitability < 1e-6 * tree.game.payoff
    assert ev.value == pytest.approx(lp.value, abs=1e-6 * tree.game.payoff)
    assert abs(lp.value) <= tree.game.payoff


@pytest.mark.parametrize("spec", SPECS)
def test_cfr_plus_converges_to_the_lp_value(spec):
    tree, lp = tree_of(spec), lp_of(spec)
    solver = rcfr.CFRSolver(tree, "cfr+")
    early = rcfr.evaluate(tree, solver.run(100).average_policy())
    late = rcfr.evaluate(tree, solver.run(1900).average_policy())
    assert late.exploitability < 1e-2 * tree.game.payoff
    assert late.exploitability <= early.exploitability
    assert abs(late.value - lp.value) <= late.nash_conv + 1e-9


@pytest.mark.parametrize("spec", SPECS[::2])
def test_expected_value_matches_state_recursion(spec):
    tree = tree_of(spec)
    for k in range(2):
        policy = random_policy(tree, 7 + k)
        direct = recursive_value(tree.game.new_initial_state(), tree, policy.probs)
        assert rcfr.expected_value(tree, policy) == pytest.approx(direct, abs=1e-12)


# -- parameters ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec",
    [
        "random_game",
        "random_game(seed=-1)",
        "random_game(seed=1.5)",
        "random_game(seed=true)",
        "random_game(seed=1,depth=0)",
        "random_game(seed=1,branching=1)",
        "random_game(seed=1,chance=1.5)",
        "random_game(seed=1,chance=-0.1)",
        "random_game(seed=1,chance_branching=1)",
        "random_game(seed=1,info=2)",
        "random_game(seed=1,stop=1)",
        "random_game(seed=1,payoff=0)",
        "random_game(seed=1,colour=red)",
    ],
)
def test_bad_parameters(spec):
    with pytest.raises(rcfr.RcfrError) as err:
        load_game(spec)
    assert "\n" not in str(err.value)


def test_game_string_round_trip():
    game = load_game("random_game(seed=5,depth=3)")
    assert str(game) == "random_game(depth=3,seed=5)"
    again = load_game(str(game))
    assert str(again) == str(game)
    assert rcfr.compile_game(again).fingerprint() == rcfr.compile_game(game).fingerprint()
    assert str(load_game("random_game(seed=3)")) == "random_game(seed=3)"
    odd = load_game("random_game(seed=2,info=0.25,chance=1,stop=0)")
    assert str(odd) == "random_game(chance=1.0,info=0.25,seed=2,stop=0.0)"
    assert str(load_game(str(odd))) == str(odd)
    assert "random_game" in rcfr.registered_games()

"""Nested subgame solving for off-tree actions (Brown & Sandholm 2017, sec. 6): when the
opponent takes an action the blueprint's action abstraction lacks, re-solve the subgame that
the actual action starts instead of translating it to an abstract one.

The alternative value of the opponent's root set ``J`` (its information set ``I`` followed by
the off-tree action) is what it gets at ``I`` from its best *in-abstraction* action against the
blueprint, ``t(J) = max_{a in A_abs(I)} CBV(I, a) / w(J)``: the opponent could always have
played inside the abstraction, so the re-solver need only keep the off-tree action from paying
more.  Comparison (their Table 2): the opponent's best-response value when it may use the
abstraction's actions plus one off-tree action, against the translated blueprint and against
the nested re-solved strategy."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..core.errors import RcfrError
from ..evaluate import best_response
from ..games.transforms.abstract_game import Abstraction
from ..policy import TabularPolicy
from . import node_sweeps as K
from .blueprint import Blueprint
from .cut import Subgame, find_subgames
from .methods import Resolved, method_function, splice


@dataclass
class OffTree:
    """One off-tree action at the cut: the subgame it starts, who took it, its name, and the
    opponent's restricted best-response value (abstraction's actions plus this one) against
    the translated blueprint and against the nested re-solve, in game units."""

    subgame: Subgame
    opponent: int
    action: int
    name: str
    translation_value: float
    nested_value: float
    resolved: Resolved

    def to_dict(self) -> dict:
        return {"action": self.name, "opponent": self.opponent,
                "translation_value": self.translation_value,
                "nested_value": self.nested_value, "seconds": self.resolved.seconds,
                "min_margin": self.resolved.min_margin}


@dataclass
class NestedResult:
    """Every off-tree subgame at the cut re-solved; ``policy``: the blueprint with all of
    them spliced in; ``in_tree_value[p]``: player ``p``'s restricted best-response value
    using the abstraction's actions alone at the cut."""

    method: str
    policy: TabularPolicy
    rows: list[OffTree]
    in_tree_value: tuple[float, float]
    seconds: float


def _replay(tree, node: int):
    """The game state at a node of the history tree."""
    path = []
    while node > 0:
        path.append(int(tree.node_action[node]))
        node = int(tree.node_parent[node])
    state = tree.game.new_initial_state()
    for a in reversed(path):
        state.apply_action(a)
    return state


def _off_tree(tree, sg: Subgame, abstraction: Abstraction):
    """``(opponent, action, parent nodes, in-abstraction actions)`` where the subgame starts
    with an action the abstraction lacks, else ``None``."""
    root = int(sg.roots[0])
    parent = int(tree.node_parent[root])
    who = int(tree.node_kind[parent])
    if who not in (0, 1):
        return None
    action = int(tree.node_action[root])
    allowed = [int(a) for a in abstraction.actions(_replay(tree, parent))]
    if action in allowed:
        return None
    return who, action, tree.node_parent[sg.roots].astype(np.int64), allowed


def _translated_reach(bp: Blueprint, abstraction: Abstraction, parents: np.ndarray,
                      action: int, opponent: int) -> np.ndarray:
    """The opponent's reach of each root for unsafe nested re-solving: its reach of the
    abstract actions the off-tree ``action`` translates to, weighted by the translation."""
    tree = bp.tree
    out = np.empty(parents.shape[0])
    for k, n in enumerate(parents):
        state = _replay(tree, int(n))
        i = int(tree.node_infoset[n])
        a0, m = int(tree.infoset_seq_start[i]), int(tree.infoset_num_actions[i])
        prob = dict(zip(tree.seq_action[a0:a0 + m].tolist(), bp.probs[a0:a0 + m], strict=True))
        mix = sum(q * prob[abstraction.back(state, state, b)]
                  for b, q in abstraction.translate(state, state, action))
        out[k] = bp.reach[opponent, n] * mix
    return out


def _restricted_value(tree, probs: np.ndarray, opponent: int, parents: np.ndarray,
                      allowed: list[int]) -> float:
    """The opponent's best-response value when, at the decision nodes ``parents``, it may
    only use ``allowed`` and best-responds everywhere else (exact where ``parents`` are its
    first decisions, as at ``actions:1``)."""
    policy = TabularPolicy(tree, probs)
    total, br = best_response(tree, policy, opponent)
    v0 = K.values(tree, br.probs)
    v = v0 if opponent == 0 else -v0
    reach = K.reach(tree, probs)
    w = reach[2] * reach[1 - opponent]
    cf: dict[int, dict[int, float]] = {}
    free = 0.0
    for n in np.unique(parents):
        free += w[n] * v[n]
        d = cf.setdefault(int(tree.node_infoset[n]), {})
        for c in range(tree.node_child_start[n], tree.node_child_start[n + 1]):
            a = int(tree.node_action[c])
            if a in allowed:
                d[a] = d.get(a, 0.0) + w[c] * v[c]
    restricted = sum(max(d.values()) for d in cf.values())
    return float(total) - free + restricted


def nested_resolve(policy: TabularPolicy, abstraction: Abstraction, cut: str = "actions:1",
                   method: str = "resolve", **options) -> NestedResult:
    """Re-solve every subgame at ``cut`` that an off-tree action of ``abstraction`` starts,
    with ``method`` and the in-abstraction alternative values (see the module; unsafe
    re-solving takes the translated action's beliefs); ``policy`` is the blueprint lifted to
    the full game, whose translation plays the off-tree actions."""
    fn = method_function(method)
    t0 = time.perf_counter()
    bp = Blueprint(policy)
    tree = bp.tree
    subgames = find_subgames(tree, cut)
    found = [(sg, *off) for sg in subgames
             if (off := _off_tree(tree, sg, abstraction)) is not None]
    if not found:
        raise RcfrError(f"no off-tree action of the abstraction {abstraction.name} at {cut}")
    results = []
    for sg, opp, action, parents, allowed in found:
        player = 1 - opp
        sets = bp.root_infosets(sg, player)
        inside = np.zeros(tree.num_nodes, dtype=np.bool_)
        inside[parents] = True
        cf = bp.opponent_action_values(player, inside)
        best = np.zeros(len(sets.keys))
        seen = np.zeros(len(sets.keys), dtype=np.bool_)
        for h, j in zip(parents, sets.of_root, strict=True):
            if seen[j]:
                continue
            i = int(tree.node_infoset[h])
            a0, k = int(tree.infoset_seq_start[i]), int(tree.infoset_num_actions[i])
            best[j] = max(cf[a0 + t] for t in range(k) if int(tree.seq_action[a0 + t]) in allowed)
            seen[j] = True
        kw = dict(options, alternative=sets.normalised(best))
        if fn.__name__ == "reach_maxmargin":
            kw["subgames"] = [f[0] for f in found]
            kw["skip_entry"] = True
        if fn.__name__ == "unsafe":
            kw["beliefs"] = _translated_reach(bp, abstraction, parents, action, opp)
        results.append(fn(bp, sg, player, **kw))
    nested = splice(bp, results)
    rows = []
    in_tree = [0.0, 0.0]
    for opp in (0, 1):
        mine = [f for f in found if f[1] == opp]
        if not mine:
            continue
        pars = np.unique(np.concatenate([f[3] for f in mine]))
        allowed = mine[0][4]
        in_tree[opp] = _restricted_value(tree, bp.probs, opp, pars, allowed)
        for (sg, who, action, _, _), r in zip(found, results, strict=True):
            if who != opp:
                continue
            both = sorted(set(allowed) | {action})
            name = tree.game.new_initial_state().action_to_string(opp, action)
            rows.append(OffTree(sg, opp, action, name,
                                _restricted_value(tree, bp.probs, opp, pars, both),
                                _restricted_value(tree, nested.probs, opp, pars, both), r))
    return NestedResult(method, nested, rows, (in_tree[0], in_tree[1]),
                        time.perf_counter() - t0)

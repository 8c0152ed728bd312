"""Playing an abstract strategy in the full game, exactly.

The translated agent of player ``p`` keeps an abstract history beside the real one: chance
outcomes are copied, an opponent's real action is translated to an abstract one with the
abstraction's probabilities (sampled once, so consistently within the hand), and its own
abstract action, drawn from the abstract strategy at the abstract information set, is played as
the real action :meth:`Abstraction.back` gives.  Its behaviour at a real information set is the
mixture over the abstract histories it may hold there, weighted by the probability of holding
each (the product of the translation probabilities and of its own abstract action
probabilities along the way).  The realization weight of a real sequence is the total weight of
the abstract histories consistent with it (Schnizlein et al. 2009's soft translation,
marginalised exactly instead of sampled), so best responses to it are exact.

For a card abstraction every real history has one abstract counterpart (the same history), so
the lift is the abstract strategy read at each merged information set, unchanged.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import RcfrError
from ..forms import GameTree
from ..forms.base import KIND_CHANCE, KIND_TERMINAL
from ..games.protocol import State
from ..games.transforms.abstract_game import Abstraction
from ..policy import TabularPolicy

CHECK_CALL = 1  # the check/call action of the wager games (what an ended abstract hand plays)


class _States:
    """States of a compiled tree's nodes, rebuilt by replaying actions (memoised)."""

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        self.cache: dict[int, State] = {0: tree.game.new_initial_state()}

    def __getitem__(self, node: int) -> State:
        state = self.cache.get(node)
        if state is None:
            parent = int(self.tree.node_parent[node])
            state = self[parent].child(int(self.tree.node_action[node]))
            self.cache[node] = state
        return state


def _child(tree: GameTree, node: int, action: int) -> int:
    lo, hi = tree.node_child_start[node], tree.node_child_start[node + 1]
    for c in range(lo, hi):
        if tree.node_action[c] == action:
            return int(c)
    where = tree.node_infoset[node]
    raise RcfrError(f"action {action} is not legal in the abstract game at "
                    f"{tree.infoset_keys[where] if where >= 0 else f'node {node}'}")


def _ended(abstract: GameTree, node: int) -> bool:
    """Whether an abstract history has no betting left where the real one still bets: the
    abstraction translated a real wager to an all-in (2-NL Hold'em(k): a raise to 7 of 8
    chips read as all-in), so the abstract hand waits at a chance node or has ended while the
    real one goes on."""
    return int(abstract.node_kind[node]) in (KIND_CHANCE, KIND_TERMINAL)


def _follow(abstract: GameTree, node: int, action: int, kind: int) -> int:
    """The abstract child that a real chance outcome (or a card-abstracted own action) leads
    to; an abstract hand that has ended stays where it is."""
    if int(abstract.node_kind[node]) == KIND_TERMINAL:
        return node
    if kind != KIND_CHANCE and _ended(abstract, node):
        return node
    return _child(abstract, node, action)


def lift(full: GameTree, abstract: GameTree, abstract_probs: np.ndarray,
         abstraction: Abstraction, metadata: dict | None = None,
         with_plan: bool = False):
    """The full-game behavioural strategy of the translated agents (both players) playing the
    abstract strategy ``abstract_probs``; with ``with_plan`` also their realization plans
    computed directly as sums over abstract histories (padded: ``plan[S + p] = 1``)."""
    probs = np.zeros(full.num_sequences)
    plan = np.zeros(full.num_sequences + 2)
    plan[full.num_sequences:] = 1.0
    real_states = _States(full)
    abs_states = _States(abstract)
    simple = abstraction.is_identity() or type(abstraction).translate is Abstraction.translate
    for p in (0, 1):
        _lift_player(p, full, abstract, abstract_probs, abstraction, real_states, abs_states,
                     probs, plan, simple)
    policy = TabularPolicy(full, probs, metadata)
    return (policy, plan) if with_plan else policy


def _lift_player(p, full, abstract, aprobs, abstraction, real_states, abs_states, probs, plan,
                 simple):
    # belief[node] = {abstract node: (weight, conditional weight)}; "weight" includes the
    # player's own abstract action probabilities, "conditional" only which abstract actions
    # are consistent with the real ones (it decides where the player never arrives)
    belief: dict[int, dict[int, tuple[float, float]]] = {0: {0: (1.0, 1.0)}}
    kinds = full.node_kind
    starts = full.node_child_start
    for n in range(full.num_nodes):
        here = belief.pop(n, None)
        if here is None or kinds[n] == KIND_TERMINAL:
            continue
        lo, hi = int(starts[n]), int(starts[n + 1])
        if kinds[n] == KIND_CHANCE or kinds[n] == p and simple:
            for c in range(lo, hi):
                a = int(full.node_action[c])
                belief[c] = {_follow(abstract, m, a, kinds[n]): w for m, w in here.items()}
            if kinds[n] == p:
                _behaviour_simple(full, abstract, aprobs, n, here, probs, plan)
            continue
        if kinds[n] != p:  # the opponent acts: translate its real action
            for c in range(lo, hi):
                a = int(full.node_action[c])
                out: dict[int, tuple[float, float]] = {}
                for m, (w, wc) in here.items():
                    if _ended(abstract, m):  # the abstract hand bets no more: it stays
                        w0, c0 = out.get(m, (0.0, 0.0))
                        out[m] = (w0 + w, c0 + wc)
                        continue
                    if simple:
                        pairs = [(a, 1.0)]
                    else:
                        pairs = abstraction.translate(real_states[n], abs_states[m].base, a)
                    for b, q in pairs:
                        if q <= 0.0:
                            continue
                        mc = _child(abstract, m, b)
                        w0, c0 = out.get(mc, (0.0, 0.0))
                        out[mc] = (w0 + w * q, c0 + wc * q)
                belief[c] = out
            continue
        _behaviour(p, full, abstract, aprobs, abstraction, real_states, abs_states, n, here,
                   probs, plan, belief)


def _behaviour_simple(full, abstract, aprobs, n, here, probs, plan):
    info = int(full.node_infoset[n])
    if int(full.infoset_node[info]) != n:
        return
    (m,) = here
    j = int(abstract.node_infoset[m])
    start, k = int(full.infoset_seq_start[info]), int(full.infoset_num_actions[info])
    astart = int(abstract.infoset_seq_start[j])
    if int(abstract.infoset_num_actions[j]) != k:
        raise RcfrError("a card abstraction must keep the legal actions")
    probs[start:start + k] = aprobs[astart:astart + k]
    parent = plan[int(full.infoset_parent_seq[info])]
    plan[start:start + k] = parent * probs[start:start + k]


def _behaviour(p, full, abstract, aprobs, abstraction, real_states, abs_states, n, here, probs,
               plan, belief):
    """The player acts at real node ``n``: mix the abstract strategies of the abstract
    histories it may hold, and pass the beliefs on to the children."""
    info = int(full.node_infoset[n])
    start, k = int(full.infoset_seq_start[info]), int(full.infoset_num_actions[info])
    real_actions = [int(a) for a in full.seq_action[start:start + k]]
    index = {a: i for i, a in enumerate(real_actions)}
    mass = np.zeros(k)  # sum of weight * abstract probability, per real action
    cond = np.zeros(k)
    children: list[dict[int, tuple[float, float]]] = [{} for _ in range(k)]
    real = real_states[n]
    for m, (w, wc) in here.items():
        if _ended(abstract, m):  # the abstract hand bets no more: check/call, and stay
            r = index[CHECK_CALL]
            mass[r] += w
            cond[r] += wc
            w0, c0 = children[r].get(m, (0.0, 0.0))
            children[r][m] = (w0 + w, c0 + wc)
            continue
        j = int(abstract.node_infoset[m])
        astart = int(abstract.infoset_seq_start[j])
        ak = int(abstract.infoset_num_actions[j])
        images = []
        for i in range(ak):
            b = int(abstract.seq_action[astart + i])
            r = abstraction.back(real, abs_states[m].base, b)
            if r not in index:
                raise RcfrError(f"the abstract action {b} maps to {r}, not legal at "
                                f"{full.infoset_keys[info]!r}")
            images.append(index[r])
        pi = aprobs[astart:astart + ak]
        per_real = np.zeros(k)
        for i in range(ak):
            per_real[images[i]] += pi[i]
        for i in range(ak):
            r = images[i]
            mc = _child(abstract, m, int(abstract.seq_action[astart + i]))
            # conditional weight: split by the abstract probabilities among the abstract
            # actions that play this real action (evenly where they are all zero)
            same = [t for t in range(ak) if images[t] == r]
            share = pi[i] / per_real[r] if per_real[r] > 0 else 1.0 / len(same)
            w0, c0 = children[r].get(mc, (0.0, 0.0))
            children[r][mc] = (w0 + w * pi[i], c0 + wc * share)
        mass += w * per_real
        cond += wc * per_real
    total = float(mass.sum())
    if int(full.infoset_node[info]) == n:
        if total > 0.0:
            beta = mass / total
        else:
            ctot = float(cond.sum())
            beta = cond / ctot if ctot > 0 else np.full(k, 1.0 / k)
        probs[start:start + k] = beta
        plan[start:start + k] = mass
    for i in range(k):
        c = _child(full, n, real_actions[i])
        belief[c] = children[i]

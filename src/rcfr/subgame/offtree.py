"""Nested re-solving of real-card spots for bets off the blueprint's action abstraction
(Brown & Sandholm 2017, sec. 6), on the public form, and the exact evaluation that compares it
with translation.

A blueprint solved on a spot with fewer bet sizes (:mod:`rcfr.abstraction.actions`) meets real
bets it lacks.  Translation reads such a bet as a nearby abstract one; nested re-solving instead
re-solves the public subgame the real bet starts, for the player who must answer it, from the
lifted blueprint's beliefs, with a safe gadget whose alternative value for each opponent hand
``r`` is its best *in-abstraction* value at the node where it bet,
``t(r) = max_{a in A_abs} CBV(r, a) / w(r)``: the opponent could always have bet inside the
abstraction, so the re-solver need only keep the off-tree bet from paying more (their eq. for
nested "Resolve"/"Maxmargin").

Evaluation (their Table 2): the opponent's exact best-response value when it may use the
abstraction's bets plus the off-tree one, against the translated blueprint and against the
nested re-solve, in the real spot with the opponent's other bets removed
(:func:`restricted_value`).
"""

from __future__ import annotations

import copy
import hashlib
import time
from dataclasses import dataclass, field

import numpy as np

from ..abstraction.actions import after, back, translate
from ..core.errors import RcfrError
from ..evaluate import evaluate
from ..forms.base import KIND_CHANCE
from ..forms.compile import compile_game
from ..forms.public.subtree import extract_subtree, root_values
from ..games.holdem.action_tree import ALL_IN, BET, DECISION, RAISE, Node
from ..games.holdem.spot_game import SpotGame
from ..policy import TabularPolicy
from .public_resolving import blueprint_plan, resolve_public, solve_gadget


def action_nodes(tree) -> list[tuple[Node, tuple]]:
    """For each public node of a spot's public tree: its action-tree node and its betting line
    (action strings, ``"deal"`` for a dealt card: the line translation depends on)."""
    game: SpotGame = tree.game
    out: list = [None] * tree.num_public_nodes
    out[0] = (game.root, ())
    for u in range(tree.num_public_nodes):
        node, line = out[u]
        for c in range(int(tree.node_child_start[u]), int(tree.node_child_start[u + 1])):
            if int(tree.node_kind[u]) == KIND_CHANCE:
                out[c] = (node.children[0], (*line, "deal"))
            else:
                a = int(tree.node_action[c])
                out[c] = (node.children[a], (*line, str(node.actions[a])))
    return out


def nodes_by_line(root: Node) -> dict[tuple, Node]:
    """Every node of an action tree by its line (``"deal"`` for a dealt card)."""
    out, stack = {}, [(root, ())]
    while stack:
        node, line = stack.pop()
        out[line] = node
        for a, child in zip(node.actions, node.children, strict=True):
            stack.append((child, (*line, str(a))))
    return out


def off_tree_lines(game: SpotGame, abstract: SpotGame, opponent: int | None = None
                   ) -> list[tuple]:
    """The betting lines of ``game`` that end in a player's bet or raise that the abstraction
    ``abstract`` lacks, every action before it being the abstraction's (``opponent``: only
    that player's)."""
    known = nodes_by_line(abstract.root)
    out = []
    for line, node in nodes_by_line(game.root).items():
        if node.kind != DECISION or (opponent is not None and node.player != opponent):
            continue
        m = known.get(line)
        if m is None or m.kind != DECISION:
            continue
        names = {str(b) for b in m.actions}
        out += [(*line, str(a)) for a in node.actions
                if str(a) not in names and a.kind in (BET, RAISE, ALL_IN)]
    return sorted(out)


def restricted_game(game: SpotGame, player: int, allowed: SpotGame,
                    extra: tuple = ()) -> SpotGame:
    """``game`` in which ``player`` may bet only as ``allowed`` (an action abstraction of it)
    does, plus the lines ``extra``: at ``player``'s decisions on lines that ``allowed`` has,
    the actions it lacks are removed (below a line it lacks, nothing is)."""
    known = nodes_by_line(allowed.root)
    extra = {tuple(x) for x in extra}

    def prune(node: Node, line: tuple) -> Node:
        m = known.get(line)
        out = copy.copy(node)
        out.actions, out.children = [], []
        for a, child in zip(node.actions, node.children, strict=True):
            key = (*line, str(a))
            if (node.kind == DECISION and node.player == player and m is not None
                    and m.kind == DECISION and str(a) not in {str(b) for b in m.actions}
                    and key not in extra):
                continue
            out.actions.append(a)
            out.children.append(prune(child, key))
        return out

    tag = hashlib.sha256(f"{player}:{allowed}:{sorted(extra)}".encode()).hexdigest()[:12]
    return SpotGame(game.board, game.ranges, game.pot, game.stack, prune(game.root, ()),
                    short_name=game.short_name, big_blind=game.big_blind,
                    **game.params, restricted=tag)


def restricted_value(policy: TabularPolicy, player: int, allowed: SpotGame,
                     extra: tuple = ()) -> float:
    """``player``'s exact best-response value against ``policy`` (a strategy of the real spot)
    when it may bet only as ``allowed`` does plus the lines ``extra``
    (:func:`restricted_game`)."""
    real = policy.tree
    small = compile_game(restricted_game(real.game, player, allowed, extra), form="public")
    probs = np.zeros(small.num_sequences)
    other = 1 - player
    keys, small_keys = real.infoset_keys, small.infoset_keys
    index = {keys[i]: i for i in real.player_infosets(other)}
    for j in small.player_infosets(other):
        i = index[small_keys[j]]
        k = int(small.infoset_num_actions[j])
        s, t = int(real.infoset_seq_start[i]), int(small.infoset_seq_start[j])
        probs[t:t + k] = policy.probs[s:s + k]
    for j in small.player_infosets(player):  # (any strategy: the best response replaces it)
        k = int(small.infoset_num_actions[j])
        t = int(small.infoset_seq_start[j])
        probs[t:t + k] = 1.0 / k
    return float(evaluate(small, TabularPolicy(small, probs)).best_response_values[player])


@dataclass
class OffTreeBet:
    """One off-tree bet re-solved: its ``line``, the ``opponent`` who bet it, the public nodes
    re-solved (one per run of cards), the opponent's restricted best-response value (the
    abstraction's bets plus this one) against translation and against the nested re-solve,
    the smallest margin and the seconds."""

    line: tuple
    opponent: int
    nodes: list[int]
    translation_value: float
    nested_value: float
    min_margin: float
    seconds: float

    def to_dict(self) -> dict:
        return {"line": ",".join(self.line), "opponent": self.opponent,
                "subgames": len(self.nodes), "translation_value": self.translation_value,
                "nested_value": self.nested_value, "min_margin": self.min_margin,
                "seconds": self.seconds}


@dataclass
class NestedSpot:
    """Every off-tree bet asked for re-solved (``policy``: the lifted blueprint with them
    spliced in); ``in_tree_value[p]``: player ``p``'s best-response value restricted to the
    abstraction's bets (the same against both strategies)."""

    method: str
    policy: TabularPolicy
    rows: list[OffTreeBet]
    in_tree_value: tuple[float, float]
    seconds: float
    extra: dict = field(default_factory=dict)


def _in_tree_values(tree, probs, plan, u: int, player: int, lines: list[tuple],
                    allowed: Node) -> np.ndarray:
    """``t(r)``: the opponent's best in-abstraction counterfactual value per unit of weight
    at the public node where it bet, for each of its root rows of ``u``."""
    parent = int(tree.node_parent[u])
    names = {str(b) for b in allowed.actions}
    best = None
    for c in range(int(tree.node_child_start[parent]), int(tree.node_child_start[parent + 1])):
        if lines[c][-1] not in names:
            continue
        sub = extract_subtree(tree, c)
        cbv, w = root_values(sub, player, sub.root_reach(plan, player), probs)
        t = np.where(w > 0, cbv / np.where(w > 0, w, 1.0), -np.inf)
        best = t if best is None else np.maximum(best, t)
    if best is None:
        raise RcfrError(f"no in-abstraction action at {lines[parent]}")
    return np.where(np.isfinite(best), best, 0.0)


def _street_put(game: SpotGame, line: tuple) -> tuple[int, int]:
    """Each player's chips in the street at the end of the betting ``line``."""
    node, put = game.root, (0, 0)
    for token in line:
        if token == "deal":
            node, put = node.children[0], (0, 0)
            continue
        j = [str(a) for a in node.actions].index(token)
        put = after(put, node.player, node.actions[j])
        node = node.children[j]
    return put


def _translated_reach(tree, plan: np.ndarray, u: int, game: SpotGame, allowed: Node
                      ) -> np.ndarray:
    """Unsafe nested re-solving's beliefs about the bettor at ``u`` (Brown & Sandholm 2017,
    sec. 6): its reach of the abstract bets the off-tree one translates to, weighted by the
    translation (:func:`rcfr.abstraction.actions.translate`)."""
    real, line = action_nodes_of(tree, u)
    parent = int(tree.node_parent[u])
    pnode, pline = action_nodes_of(tree, parent)
    put = _street_put(game, pline)
    j = [str(a) for a in pnode.actions].index(line[-1])
    children = {int(tree.node_action[c]): c for c in
                range(int(tree.node_child_start[parent]), int(tree.node_child_start[parent + 1]))}
    opp = pnode.player
    out = np.zeros(int(extract_subtree(tree, u).num_rows[opp]))
    for i, q in translate(game.pot, pnode, put, allowed, put, j):
        c = children[back(game.pot, pnode, put, allowed, put, i)]
        out += q * extract_subtree(tree, c).root_reach(plan, opp)
    return out


def action_nodes_of(tree, u: int) -> tuple[Node, tuple]:
    """The action-tree node and betting line of public node ``u`` (:func:`action_nodes`)."""
    path = []
    while u > 0:
        path.append(u)
        u = int(tree.node_parent[u])
    node, line = tree.game.root, ()
    for v in reversed(path):
        if int(tree.node_kind[tree.node_parent[v]]) == KIND_CHANCE:
            node, line = node.children[0], (*line, "deal")
        else:
            a = int(tree.node_action[v])
            node, line = node.children[a], (*line, str(node.actions[a]))
    return node, line


def nested_resolve_spot(policy: TabularPolicy, abstract: SpotGame | str,
                        lines: list[tuple] | None = None, method: str = "resolve", *,
                        iterations: int = 1000, algorithm: str = "cfr+",
                        seconds: float | None = None, evaluate_gains: bool = True,
                        **options) -> NestedSpot:
    """Re-solve the public subgames that the off-tree bets ``lines`` start (default: every
    one, :func:`off_tree_lines`), for the player who answers each, from ``policy`` (the
    blueprint lifted to the real spot, on the public form) with ``method`` (``resolve``,
    ``maxmargin``, ``reach-maxmargin``) and the in-abstraction alternative values (module
    doc), or ``unsafe`` with the translated bet's beliefs (the lifted blueprint never bets off
    the tree, so it holds none of its own there); ``iterations`` or ``seconds`` of
    ``algorithm`` per subgame."""
    key = str(method).strip().lower().replace("_", "-")
    t0 = time.perf_counter()
    tree = policy.tree
    game = tree.game
    abstract = compile_game(abstract).game if isinstance(abstract, str) else abstract
    if not isinstance(game, SpotGame) or not isinstance(abstract, SpotGame):
        raise RcfrError("nested re-solving of off-tree bets takes a real-card spot and an "
                        "action abstraction of it")
    found = off_tree_lines(game, abstract)
    lines = found if lines is None else [tuple(x) for x in lines]
    for x in lines:
        if x not in found:
            raise RcfrError(f"{','.join(x)} is not an off-tree bet of {abstract} in {game}")
    if not lines:
        raise RcfrError(f"no bet of {game} is off the tree of {abstract}")
    known = nodes_by_line(abstract.root)
    probs = np.asarray(policy.probs, dtype=np.float64)
    plan = blueprint_plan(tree, probs)
    public = action_nodes(tree)
    by_line: dict[tuple, list[int]] = {}
    for u, (_, line) in enumerate(public):
        if line in lines:
            by_line.setdefault(line, []).append(u)
    out = probs.copy()
    pending = []
    all_lines = [ln for _, ln in public]
    for x in lines:
        t1 = time.perf_counter()
        nodes = by_line.get(x, [])
        node = public[nodes[0]][0] if nodes else None
        if node is None or node.kind != DECISION:
            raise RcfrError(f"the off-tree bet {','.join(x)} ends the hand: nothing to re-solve")
        player = node.player
        margins = []
        for u in nodes:
            if key == "unsafe":
                sub = extract_subtree(tree, u)
                reach = [None, None]
                reach[player] = sub.root_reach(plan, player)
                reach[1 - player] = _translated_reach(tree, plan, u, game, known[x[:-1]])
                sol = solve_gadget(sub, "unsafe", player, reach, iterations,
                                   algorithm=algorithm, seconds=seconds, **options)
                out[sol.sequences] = sol.probs
                margins.append(0.0)
                continue
            t = _in_tree_values(tree, probs, plan, u, player, all_lines, known[x[:-1]])
            r = resolve_public(tree, probs, u, player, key, iterations=iterations,
                               plan=plan, alternative=t, algorithm=algorithm,
                               seconds=seconds, **options)
            out[r.sequences] = r.probs
            margins.append(r.min_margin)
        pending.append((x, 1 - player, nodes, min(margins), time.perf_counter() - t1))
    meta = dict(policy.metadata or {})
    meta["resolved"] = [f"nested {key}"]
    nested = TabularPolicy(tree, out, meta)
    rows, in_tree = [], [0.0, 0.0]
    if evaluate_gains:
        for opp in (0, 1):
            if any(o == opp for _, o, *_ in pending):
                in_tree[opp] = restricted_value(policy, opp, abstract)
    for x, opp, nodes, margin, secs in pending:
        tv = nv = float("nan")
        if evaluate_gains:
            tv = restricted_value(policy, opp, abstract, (x,))
            nv = restricted_value(nested, opp, abstract, (x,))
        rows.append(OffTreeBet(x, opp, nodes, tv, nv, margin, secs))
    return NestedSpot(key, nested, rows, (in_tree[0], in_tree[1]), time.perf_counter() - t0)

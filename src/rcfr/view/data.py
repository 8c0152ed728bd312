"""The data the strategy viewer's page loads (:mod:`rcfr.view`), built from a compiled tree and
one or two strategies.

Where the game has public nodes (:func:`rcfr.forms.view.public_nodes`) the data are the public
tree (kinds, parents, children, edge names) and one record per decision node: its private rows'
probabilities (exact: Python's shortest round-tripping ``repr`` of each float), each row's
reach, and optionally each row's counterfactual value and best-response gain; elsewhere one
record per information set (the history form's table).  Records are grouped into chunks of
about :data:`CHUNK_SEQUENCES` probabilities, which the page loads lazily for large games.

Values (Zinkevich et al. 2007, eq. 7): for the acting player ``p`` and information set ``I``,
the counterfactual value ``v(I) = sum_a sigma(I, a) v(I, a)`` from the terminal sweep
(:meth:`Form.terminal_values`) backed up with the strategy (weighted by chance and the
opponent's reach, so a player's root values sum to the player's expected payoff), and the
best-response gain ``BR(I) - v(I) >= 0``, where ``BR(I)`` backs the same sweep up taking the
best action at each of ``p``'s information sets below ``I``
(:func:`rcfr.core.kernels.best_response`).
The reach of a row is the acting player's own reach (the product of the player's own action
probabilities on the way to the node holding that private state).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..core import kernels as K
from ..evaluate import evaluate, realization_plans
from ..forms.base import Form
from ..forms.view import PublicNodes, public_nodes
from ..games.holdem.hand_classes import CLASS_NAMES
from ..games.holdem.spot_game import SpotGame
from ..policy import TabularPolicy
from ..spot_report import spot_report

SMALL_SEQUENCES = 100_000  # at most this many: one HTML file, values included by default
CHUNK_SEQUENCES = 20_000  # probabilities per lazily loaded chunk

RANKS = "AKQJT98765432"
_TWO_CARDS = re.compile(r"^([2-9TJQKA])([shdc])([2-9TJQKA])([shdc])$")
_HAND_CLASS = re.compile(r"^([2-9TJQKA])([2-9TJQKA])([so]?)$")
_TWO_PARTS = re.compile(r"^([^.]+)\.([^.]+)$")


def layout(labels: list[str]) -> dict:
    """How the page arranges a decision node's private rows: ``"holdem"`` (the 13 x 13 hand
    grid: pairs on the diagonal, suited hands above it, offsuit below, aces first) where every
    label is two hole cards (``AhKd``) or a hand class (``AKs``, ``AKo``, ``AA``); ``"grid"``
    where every label has two parts (``3.1``: rows by the first, columns by the second);
    ``"list"`` otherwise.  ``cell[k]``: the (row, column) of row ``k`` (several rows may share
    a cell of the hand grid)."""
    cells = []
    for lab in labels:
        m = _TWO_CARDS.match(lab)
        if m:
            a, b = RANKS.index(m[1]), RANKS.index(m[3])
            suited = m[2] == m[4]
        else:
            m = _HAND_CLASS.match(lab)
            if not m or (m[1] == m[2]) != (m[3] == ""):
                break
            a, b = RANKS.index(m[1]), RANKS.index(m[2])
            suited = m[3] == "s"
        hi, lo = min(a, b), max(a, b)
        cells.append((hi, lo) if suited or hi == lo else (lo, hi))
    else:
        if labels:
            return {"type": "holdem", "rows": list(RANKS), "cols": list(RANKS),
                    "cell": [list(c) for c in cells]}
    parts = [_TWO_PARTS.match(lab) for lab in labels]
    if labels and all(parts):
        rows = list(dict.fromkeys(m[1] for m in parts))
        cols = list(dict.fromkeys(m[2] for m in parts))
        if 1 < len(rows) <= 40 and 1 < len(cols) <= 40:
            return {"type": "grid", "rows": rows, "cols": cols,
                    "cell": [[rows.index(m[1]), cols.index(m[2])] for m in parts]}
    return {"type": "list"}


def _exact(a: np.ndarray) -> str:
    """A JSON array of floats that round-trip exactly."""
    return "[" + ",".join(map(repr, a.tolist())) + "]"


def _short(a: np.ndarray) -> str:
    """A JSON array of floats to six significant digits (what the page shows)."""
    return "[" + ",".join(f"{x:.6g}" for x in a.tolist()) + "]"


@dataclass
class Profile:
    """One strategy as the page shows it: probabilities, each information set's reach (the
    acting player's own) and, optionally, counterfactual values and best-response gains."""

    probs: np.ndarray
    reach: np.ndarray  # per information set
    value: np.ndarray | None = None  # per information set
    gain: np.ndarray | None = None  # per information set
    summary: dict | None = None


def profile(tree: Form, policy: TabularPolicy, values: bool) -> Profile:
    """The reach (and, with ``values``, counterfactual values and best-response gains) of every
    information set under ``policy`` (module docstring)."""
    probs = policy.probs
    plan = realization_plans(tree, probs)
    reach = plan[tree.infoset_parent_seq]
    out = Profile(probs, reach)
    if not values:
        return out
    S = tree.num_sequences
    out.value = np.empty(tree.num_infosets)
    out.gain = np.empty(tree.num_infosets)
    scratch = np.empty(S)
    for p in (0, 1):
        infos, seqs = tree.player_infosets(p), tree.player_sequences(p)
        if infos.stop == infos.start:
            continue
        starts = tree.infoset_seq_start[infos.start:infos.stop] - seqs.start
        acc = np.empty(S + 2)
        tree.terminal_values(p, plan, acc)
        best = acc.copy()
        K.counterfactual_regrets(p, probs, infos.start, infos.stop, tree.infoset_seq_start,
                                 tree.infoset_num_actions, tree.infoset_parent_seq, acc,
                                 scratch)
        K.best_response(p, infos.start, infos.stop, tree.infoset_seq_start,
                        tree.infoset_num_actions, tree.infoset_parent_seq, best, scratch)
        own = slice(seqs.start, seqs.stop)
        v = np.add.reduceat(probs[own] * acc[own], starts)
        out.value[infos.start:infos.stop] = v
        out.gain[infos.start:infos.stop] = np.maximum(
            np.maximum.reduceat(best[own], starts) - v, 0.0)
        del acc, best
    out.summary = evaluate(tree, policy).to_dict()
    return out


def spot_classes(tree: Form, probs: np.ndarray) -> Callable[[int], str] | None:
    """For a hold'em spot, a function giving a decision node's ``"hc"`` entry: the acting
    player's EV, equity and equity realisation per hand class (169 numbers each in the grid's
    order, ``null`` for a class that does not reach the node; :mod:`rcfr.spot_report`);
    ``None`` for other games."""
    if not isinstance(tree.game, SpotGame):
        return None

    def record(u: int) -> str:
        rep = spot_report(tree, probs, u)
        cols: dict[str, list] = {"ev": [None] * 169, "eq": [None] * 169, "eqr": [None] * 169}
        for row in rep.rows(rep.player, "class"):
            j = CLASS_NAMES.index(row["hand"])
            for key, name in (("ev", "ev"), ("eq", "equity"), ("eqr", "eqr")):
                x = row[name]
                cols[key][j] = None if x is None else float(f"{x:.6g}")
        return '"hc":' + json.dumps(cols, separators=(",", ":"))

    return record


def _node_record(u: int, i0: int, rows: int, rowset: int, seqs: np.ndarray,
                 profiles: list[Profile], extra: Callable[[int], str] | None = None) -> str:
    a, *b = profiles
    infos = slice(i0, i0 + rows)
    parts = [f'"u":{u},"i0":{i0},"rs":{rowset},"pr":{_exact(a.probs[seqs])}',
             f'"re":{_short(a.reach[infos])}']
    if a.value is not None:
        parts += [f'"cv":{_short(a.value[infos])}', f'"g":{_short(a.gain[infos])}']
    if b:
        parts += [f'"pr2":{_exact(b[0].probs[seqs])}', f'"re2":{_short(b[0].reach[infos])}']
    if extra is not None:
        parts.append(extra(u))
    return "{" + ",".join(parts) + "}"


def public_chunks(tree: Form, view: PublicNodes, profiles: list[Profile],
                  extra: Callable[[int], str] | None = None) -> Iterator[tuple[int, str]]:
    """``(first node, JSON text)`` of each chunk of decision-node records: consecutive public
    nodes holding about :data:`CHUNK_SEQUENCES` probabilities (``extra(u)``: one more entry
    of node ``u``'s record, e.g. :func:`spot_classes`)."""
    records: list[str] = []
    size, first = 0, 0
    for u in np.flatnonzero(view.kind < 2).tolist():
        i0, rows = int(view.info_start[u]), int(view.info_count[u])
        starts = tree.infoset_seq_start[i0:i0 + rows]
        n = tree.infoset_num_actions[i0:i0 + rows]
        seqs = (starts[:, None] + np.arange(int(n.max()))[None, :]).ravel()
        if records and size + seqs.size > CHUNK_SEQUENCES:
            yield first, "{" + ",".join(records) + "}"
            records, size = [], 0
        if not records:
            first = u
        records.append(f'"{u}":' + _node_record(u, i0, rows, int(view.node_rowset[u]), seqs,
                                                 profiles, extra))
        size += seqs.size
    if records:
        yield first, "{" + ",".join(records) + "}"


def public_structure(view: PublicNodes) -> dict:
    """The public tree as the page reads it: kinds (one character per node), parents, children
    (CSR), edge names (indices into ``names``), the rowsets and their layouts."""
    names = list(dict.fromkeys(view.edge_names))
    index = {n: i for i, n in enumerate(names)}
    return {
        "kind": "".join("01ct"[k] for k in view.kind.tolist()),
        "parent": view.parent.tolist(),
        "cs": view.child_start.tolist(),
        "edge": [index[n] for n in view.edge_names],
        "names": names,
        "rowsets": [{"labels": labels, "layout": layout(labels)} for labels in view.rowsets],
    }


def table_chunks(tree: Form, profiles: list[Profile]) -> Iterator[tuple[int, str]]:
    """``(first information set, JSON text)`` of each chunk of information-set records (the
    table of a form without public nodes)."""
    a, *b = profiles
    keys, names = tree.infoset_keys, tree.seq_action_names
    records: list[str] = []
    size, first = 0, 0
    for i in range(tree.num_infosets):
        s0 = int(tree.infoset_seq_start[i])
        seqs = np.arange(s0, s0 + int(tree.infoset_num_actions[i]))
        if records and size + seqs.size > CHUNK_SEQUENCES:
            yield first, "[" + ",".join(records) + "]"
            records, size = [], 0
        if not records:
            first = i
        one = slice(i, i + 1)
        parts = [f'"i":{i},"k":{json.dumps(keys[i])},"p":{int(tree.infoset_player[i])}',
                 f'"a":{json.dumps([names[s] for s in seqs.tolist()])}',
                 f'"pr":{_exact(a.probs[seqs])}', f'"re":{_short(a.reach[one])[1:-1]}']
        if a.value is not None:
            parts += [f'"cv":{_short(a.value[one])[1:-1]}', f'"g":{_short(a.gain[one])[1:-1]}']
        if b:
            parts += [f'"pr2":{_exact(b[0].probs[seqs])}',
                      f'"re2":{_short(b[0].reach[one])[1:-1]}']
        records.append("{" + ",".join(parts) + "}")
        size += seqs.size
    if records:
        yield first, "[" + ",".join(records) + "]"


def distilled_rules(tree: Form, view: PublicNodes, policy: TabularPolicy) -> dict | None:
    """The text rules a distilled strategy carries (``rcfr distill -o``), for the panel beside
    the grid: the model and its parts (player, round or ``None``, rules), and the betting round
    of every public decision node (-1 elsewhere), as the distillation numbered them; ``None``
    where the strategy carries no rules (or rules not in that shape)."""
    from ..distill.dataset import infoset_rounds

    meta = (policy.metadata or {}).get("distilled")
    parts = meta.get("rules") if isinstance(meta, dict) else None
    if not isinstance(parts, list) or not all(
            isinstance(p, dict) and p.get("player") in (0, 1)
            and (p.get("round") is None or isinstance(p.get("round"), int))
            and isinstance(p.get("rules"), list) and all(isinstance(r, str) for r in p["rules"])
            for p in parts):
        return None
    rounds = infoset_rounds(tree)
    decision = view.kind < 2
    node_round = np.full(view.num_nodes, -1, dtype=np.int64)
    node_round[decision] = rounds[view.info_start[decision]]
    return {"model": str(meta.get("model")), "max_depth": meta.get("max_depth"),
            "parts": [{"player": p["player"], "round": p["round"], "rules": p["rules"]}
                      for p in parts],
            "node_round": node_round.tolist()}


__all__ = ["CHUNK_SEQUENCES", "SMALL_SEQUENCES", "Profile", "distilled_rules", "layout", "profile",
           "public_chunks", "public_nodes", "public_structure", "spot_classes",
           "table_chunks"]

"""The public tree split into a *trunk* and *parts* (groups of public subgames below a cut), for
solving one game on several workers: the CFR-D decomposition (Burch, Johanson & Bowling 2014,
"Solving imperfect information games using decomposition", sec. 4) that the heads-up limit
hold'em solution used (Bowling et al. 2015; Tammelin et al. 2015, sec. 4: the tables split
among nodes, each responsible for a set of subgames).

Each part is a small sequence-form tree of its own (a :class:`FullTree` and the terminals'
:class:`PublicArrays`), so the single-process kernels of :mod:`rcfr.forms.public.full_width` and
:mod:`rcfr.core.kernels` run on it unchanged.  Indices keep the whole tree's relative order.

*Slots* join the parts to the trunk.  A part's information set whose parent sequence lies in the
trunk (a *root* information set) reads its parent's realization weight from a slot of its own,
and backs its value up into that slot (``0 + v = v`` exactly).  In the trunk the root
information set is a *phantom*: one action, strategy 1, whose sequence's value the driver sets
to ``v`` before the trunk's backward sweep, so the trunk's sweep adds the same values into the
same sequences in the whole tree's order (decreasing information-set index), bit for bit.  A
part's terminal whose player's last sequence lies in the trunk writes its values into a block
of slots of its own; the driver adds the blocks into the trunk's sequences after the trunk's
terminal sweep, in increasing terminal order (the split checks that the whole tree's sweep adds
them in that order too).  Everything else (plans, regrets, update rules, links, averages) is
per sequence or per information set, so a run on the split tree equals the single-process run
bit for bit, for any grouping of subgames into parts.

:func:`split_public` splits a compiled tree.  :func:`split_skeleton` computes the same arrays
node by node from the tree's skeleton (:func:`rcfr.forms.public.tree.compile_skeleton`), one
part at a time, so that no process ever holds the whole tree's per-sequence arrays: the
distributed driver builds the trunk, each actor its own part.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit

from ...core import kernels as K
from ...core.errors import RcfrError
from ..history.full_width import FullTree
from .full_width import _plan, _regrets_absorbed
from .terminals import terminal_groups, terminal_values

# one part of the split tree (the trunk has no slots; its phantoms are sequences of its own)
Part = namedtuple("Part", [
    "tree",  # FullTree with local indices
    "T",  # PublicArrays: the part's terminals (local sequence indices)
    "num_sequences",  # S: the part's own sequences (phantoms included in the trunk)
    "num_slots",  # X: slots after the own sequences (plans and vectors are S + X + 2 long)
    "global_seq",  # int64 [S]: each own sequence's index in the whole tree (-1: a phantom)
    "global_infoset",  # int64 [I]: each information set's index in the whole tree
    "slot_src",  # int64 [X]: the trunk's sequence whose plan a slot reads (and gets values of)
    "slot_player",  # int8 [X]: the player whose values a slot collects
])


@dataclass
class Split:
    """The trunk, the parts and the exchange between them (see the module docstring)."""

    trunk: Part
    parts: list
    cut: str
    num_subgames: int
    phantom: np.ndarray  # int64 [R]: trunk sequences of the phantoms, in part-and-slot order
    # per player p: where the values the parts return go (concatenated in part order)
    set_src: list  # [2] int64: positions in the returned vector of root-slot values
    set_dst: list  # [2] int64: the phantom sequences they set
    add_src: list  # [2] int64: positions of terminal-block values, in the whole tree's order
    add_dst: list  # [2] int64: the trunk sequences they add into
    ret_slots: list  # per part, per player: the slots it returns

    def bytes_per_iteration(self, alternating: bool) -> int:
        """Float64 bytes sent and received per iteration (root reach vectors out, root values
        back)."""
        sent = sum(p.num_slots for p in self.parts) * (2 if alternating else 1)
        back = sum(p.num_slots for p in self.parts)
        return 8 * (sent + back)


def _depths(tree) -> np.ndarray:
    N = tree.num_public_nodes
    depth = np.zeros(N, dtype=np.int64)
    cs = tree.node_child_start.astype(np.int64)
    lo, hi, d = 0, 1, 0
    while lo < hi:  # breadth-first numbering: a depth's children are the next depth
        depth[lo:hi] = d
        lo, hi, d = int(cs[lo]), int(cs[hi]), d + 1
    return depth


def default_cut(tree) -> str:
    """``flop`` (the first chance nodes below the root) where the tree has chance nodes,
    else ``depth:2`` (liar's dice: the second bid)."""
    return "flop" if bool(np.any(tree.node_kind[1:] == 2)) else "depth:2"


def cut_key(cut: str) -> str:
    """A cut as compared: ``flop`` or ``depth:D``, lower-case (``chance`` is ``flop``'s other
    name)."""
    key = str(cut).strip().lower()
    return "flop" if key == "chance" else key


def cut_roots(tree, cut: str) -> np.ndarray:
    """The public nodes that root the subgames: ``flop`` / ``chance`` (each path's first chance
    node below the root) or ``depth:D`` (the non-terminal nodes at public depth ``D``)."""
    depth = _depths(tree)
    kind = tree.node_kind
    parent = tree.node_parent.astype(np.int64)
    key = cut_key(cut)
    if key == "flop":
        N = tree.num_public_nodes
        above = np.zeros(N, dtype=bool)  # a chance node strictly above (below the root)
        for d in range(1, int(depth.max(initial=0)) + 1):
            u = np.flatnonzero(depth == d)
            pu = parent[u]
            above[u] = above[pu] | ((kind[pu] == 2) & (pu != 0))
        roots = np.flatnonzero((kind == 2) & ~above & (np.arange(N) != 0))
    elif key.startswith("depth:"):
        try:
            d = int(key[6:])
        except ValueError:
            raise RcfrError(f"bad cut {cut!r}: depth:D takes a whole number") from None
        if d < 1:
            raise RcfrError(f"bad cut {cut!r}: the depth must be at least 1")
        roots = np.flatnonzero((depth == d) & (kind != 3))
    else:
        raise RcfrError(f"unknown cut {cut!r}; use flop, chance or depth:D")
    if roots.size == 0:
        raise RcfrError(f"the cut {cut!r} leaves no subgame in {tree.game}")
    return roots


def _node_subgame(tree, roots: np.ndarray) -> np.ndarray:
    """Each public node's subgame (-1: the trunk)."""
    depth = _depths(tree)
    sub = np.full(tree.num_public_nodes, -1, dtype=np.int64)
    is_root = np.full(tree.num_public_nodes, -1, dtype=np.int64)
    is_root[roots] = np.arange(roots.size)
    parent = tree.node_parent.astype(np.int64)
    for d in range(1, int(depth.max(initial=0)) + 1):
        u = np.flatnonzero(depth == d)
        sub[u] = np.where(is_root[u] >= 0, is_root[u], sub[parent[u]])
    return sub


def _groups(sizes: np.ndarray, n: int) -> np.ndarray:
    """Subgames into ``n`` parts balanced by size (largest first, each to the lightest part;
    ties by index): each subgame's part."""
    load = np.zeros(n, dtype=np.int64)
    out = np.zeros(sizes.size, dtype=np.int64)
    for g in np.argsort(-sizes, kind="stable"):
        j = int(np.argmin(load))
        out[g] = j
        load[j] += sizes[g]
    return out


def _sub_arrays(T, z: np.ndarray, tsb: np.ndarray, tst: np.ndarray, trc=None):
    """The terminals ``z`` of ``T`` with the sequence bases ``tsb``, strides ``tst`` and row
    contexts ``trc`` (default: ``T``'s), and one more row context where every private state is
    its own row (the parts' terminal blocks)."""
    order, start, groups = terminal_groups(tsb, T.num_private, 1 << 62)  # one thread
    trc = T.term_row_ctx[:, z] if trc is None else trc
    nmax = T.row_of.shape[2]
    ident = np.broadcast_to(np.arange(nmax, dtype=T.row_of.dtype), (2, 1, nmax))
    return T._replace(
        row_of=np.ascontiguousarray(np.concatenate([T.row_of, ident], axis=1)),
        full=np.ascontiguousarray(np.concatenate([T.full, np.ones((2, 1), dtype=T.full.dtype)],
                                                 axis=1)),
        node_ctx=T.node_ctx[:0], node_seq_base=T.node_seq_base[:0],
        node_num_actions=T.node_num_actions[:0],
        term_ctx=np.ascontiguousarray(T.term_ctx[z]),
        term_rule=np.ascontiguousarray(T.term_rule[z]),
        term_value=np.ascontiguousarray(T.term_value[z]), term_q=np.ascontiguousarray(T.term_q[z]),
        term_face=np.ascontiguousarray(T.term_face[z]),
        term_miss=np.ascontiguousarray(T.term_miss[z]),
        term_last=np.ascontiguousarray(T.term_last[:, z]),
        term_last_act=np.ascontiguousarray(T.term_last_act[:, z]),
        term_seq_base=np.ascontiguousarray(tsb.astype(T.term_seq_base.dtype)),
        term_stride=np.ascontiguousarray(tst.astype(T.term_stride.dtype)),
        term_row_ctx=np.ascontiguousarray(trc.astype(T.term_row_ctx.dtype)),
        term_order=order, term_group=start, term_groups=groups)


def _full_tree(tree, infosets, g2l, parent_local, S0, S):
    """A :class:`FullTree` over ``infosets`` (sorted; player 0's first)."""
    n0 = int(np.count_nonzero(infosets < tree.num_infosets_per_player[0]))
    ss = tree.infoset_seq_start
    return FullTree(
        np.array([0, n0, infosets.size], dtype=np.int64),
        np.array([0, S0, S], dtype=np.int64),
        np.ascontiguousarray(g2l[ss[infosets]].astype(ss.dtype)),
        np.ascontiguousarray(tree.infoset_num_actions[infosets]),
        np.ascontiguousarray(parent_local.astype(tree.infoset_parent_seq.dtype)),
        np.zeros((2, 0), dtype=np.int32), np.zeros(0))


def split_public(tree, cut: str | None = None, num_parts: int = 1) -> Split:
    """Split ``tree`` (a :class:`rcfr.forms.public.tree.PublicTree`) at ``cut`` (default
    :func:`default_cut`) into a trunk and ``num_parts`` parts of whole subgames."""
    cut = default_cut(tree) if cut is None else cut
    roots = cut_roots(tree, cut)
    if not 1 <= num_parts <= roots.size:
        raise RcfrError(f"{num_parts} parts, but the cut {cut!r} makes {roots.size} subgames")
    S = tree.num_sequences
    T = tree.arrays
    node_sub = _node_subgame(tree, roots)
    info_node = tree.infoset_public_node.astype(np.int64)
    info_sub = node_sub[info_node]
    seq_sub = info_sub[tree.seq_infoset.astype(np.int64)]
    sizes = np.bincount(seq_sub[seq_sub >= 0], minlength=roots.size)
    group = _groups(sizes, num_parts)
    info_part = np.where(info_sub >= 0, group[np.maximum(info_sub, 0)], -1)
    seq_part = np.where(seq_sub >= 0, group[np.maximum(seq_sub, 0)], -1)
    ps = tree.infoset_parent_seq.astype(np.int64)
    ps_part = np.where(ps < S, seq_part[np.minimum(ps, max(S - 1, 0))], -1)
    is_root = (info_part >= 0) & (ps_part != info_part)
    s0 = tree.num_sequences_per_player[0]
    i0 = tree.num_infosets_per_player[0]
    term_node = tree.terminal_nodes.astype(np.int64)
    term_part = np.where(node_sub[term_node] >= 0, group[np.maximum(node_sub[term_node], 0)], -1)
    tsb = T.term_seq_base.astype(np.int64)
    tst = T.term_stride.astype(np.int64)

    # -- the trunk: its information sets and the phantoms, in the whole tree's order ------
    t_info = np.flatnonzero((info_part < 0) | is_root)
    phantom_info = is_root[t_info]
    n_seq = np.where(phantom_info, 1, tree.infoset_num_actions[t_info]).astype(np.int64)
    t_start = np.concatenate([[0], np.cumsum(n_seq)]).astype(np.int64)
    S_T = int(t_start[-1])
    S0_T = int(t_start[np.count_nonzero(t_info < i0)])
    g2t = np.full(S + 2, -1, dtype=np.int64)
    g2t[S], g2t[S + 1] = S_T, S_T + 1
    real = ~phantom_info
    tss = tree.infoset_seq_start.astype(np.int64)
    for_real = np.repeat(tss[t_info[real]], n_seq[real]) + (
        np.arange(int(n_seq[real].sum())) - np.repeat(np.cumsum(n_seq[real]) - n_seq[real],
                                                      n_seq[real]))
    local_real = np.repeat(t_start[:-1][real], n_seq[real]) + (
        np.arange(int(n_seq[real].sum())) - np.repeat(np.cumsum(n_seq[real]) - n_seq[real],
                                                      n_seq[real]))
    g2t[for_real] = local_real
    phantom_of = np.full(tree.num_infosets, -1, dtype=np.int64)  # root infoset -> phantom seq
    phantom_of[t_info[phantom_info]] = t_start[:-1][phantom_info]
    t_global_seq = np.full(S_T, -1, dtype=np.int64)
    t_global_seq[local_real] = for_real
    t_seq_start = t_start[:-1]
    trunk_tree = FullTree(
        np.array([0, int(np.count_nonzero(t_info < i0)), t_info.size], dtype=np.int64),
        np.array([0, S0_T, S_T], dtype=np.int64),
        t_seq_start.astype(tree.infoset_seq_start.dtype),
        n_seq.astype(tree.infoset_num_actions.dtype),
        g2t[ps[t_info]].astype(tree.infoset_parent_seq.dtype),
        np.zeros((2, 0), dtype=np.int32), np.zeros(0))
    zt = np.flatnonzero(term_part < 0)
    ttsb = np.where(tsb[:, zt] < 0, -1, g2t[np.maximum(tsb[:, zt], 0)])
    trunk = Part(trunk_tree, _sub_arrays(T, zt, ttsb, tst[:, zt]), S_T, 0, t_global_seq, t_info,
                 np.zeros(0, np.int64), np.zeros(0, np.int8))
    # last trunk terminal writing each trunk sequence vector, per player (the order check)
    last_trunk = [dict(), dict()]
    for q in range(2):
        for z in zt:
            if tsb[q, z] >= 0:
                last_trunk[q][int(tsb[q, z])] = int(z)

    # -- the parts -------------------------------------------------------------------------
    parts, phantom = [], []
    adds = [[], []]  # (terminal, row, position in the player's returned vector, trunk seq)
    sets = [[], []]
    ret_slots = []
    offset = [0, 0]
    for j in range(num_parts):
        p_info = np.flatnonzero(info_part == j)
        p_seq = np.flatnonzero(seq_part == j)
        Sj, S0j = p_seq.size, int(np.count_nonzero(p_seq < s0))
        g2l = np.full(S + 2, -1, dtype=np.int64)
        g2l[p_seq] = np.arange(Sj)
        slot_src, slot_player, slot_key = [], [], []
        roots_j = p_info[is_root[p_info]]
        parent_local = g2l[ps[p_info]]
        for i in roots_j:  # one slot per root information set
            slot_src.append(phantom_of[i])
            slot_player.append(0 if i < i0 else 1)
            slot_key.append(("root", int(i), 0))
        parent_local[is_root[p_info]] = Sj + np.arange(roots_j.size)
        zj = np.flatnonzero(term_part == j)
        jtsb = np.empty((2, zj.size), dtype=np.int64)
        jtst = tst[:, zj].copy()
        jtrc = T.term_row_ctx[:, zj].astype(np.int64)
        ident = T.row_of.shape[1]  # an added row context: every state its own row
        for c, z in enumerate(zj):
            for q in range(2):
                b = tsb[q, z]
                if b < 0:
                    raise RcfrError(f"the cut {cut!r} puts a terminal where player {q} has not "
                                    "acted in a subgame; cut deeper")
                if seq_part[b] == j:
                    jtsb[q, c] = g2l[b]
                    continue
                if last_trunk[q].get(int(b), -1) > z:  # pragma: no cover (BFS numbering)
                    raise RcfrError(f"the cut {cut!r} interleaves terminal sums; cut elsewhere")
                # one slot per private state (several states may share a row of the trunk's
                # sequence: the trunk adds them one by one, in the sweep's order)
                jtsb[q, c] = Sj + len(slot_src)
                jtst[q, c] = 1
                jtrc[q, c] = ident
                rmap = T.row_of[q, T.term_row_ctx[q, z]]
                for x in range(int(T.num_private[q])):
                    row = max(int(rmap[x]), 0) if not T.full[q, T.term_row_ctx[q, z]] else x
                    slot_src.append(int(g2t[b + row * tst[q, z]]))
                    slot_player.append(q)
                    slot_key.append(("term", int(z), x))
        X = len(slot_src)
        slot_src = np.array(slot_src, dtype=np.int64)
        slot_player = np.array(slot_player, dtype=np.int8)
        part_tree = _full_tree(tree, p_info, g2l, parent_local, S0j, Sj)
        parts.append(Part(part_tree, _sub_arrays(T, zj, jtsb, jtst, jtrc), Sj, X, p_seq,
                          p_info, slot_src, slot_player))
        mine = []
        for q in range(2):
            idx = np.flatnonzero(slot_player == q)
            mine.append(idx)
            for pos, x in enumerate(idx):
                kind, key, k = slot_key[x]
                if kind == "root":
                    sets[q].append((offset[q] + pos, int(slot_src[x])))
                    phantom.append(int(slot_src[x]))
                else:
                    adds[q].append((key, k, offset[q] + pos, int(slot_src[x])))
            offset[q] += idx.size
        ret_slots.append(mine)
    set_src = [np.array([s for s, _ in sets[q]], dtype=np.int64) for q in range(2)]
    set_dst = [np.array([d for _, d in sets[q]], dtype=np.int64) for q in range(2)]
    add_src, add_dst = [], []
    for q in range(2):
        a = sorted(adds[q])  # the whole tree's order: by terminal, then row
        add_src.append(np.array([x[2] for x in a], dtype=np.int64))
        add_dst.append(np.array([x[3] for x in a], dtype=np.int64))
    return Split(trunk, parts, cut, int(roots.size), np.array(phantom, dtype=np.int64),
                 set_src, set_dst, add_src, add_dst, ret_slots)


@njit(cache=True)
def _fill_part(nodes, slot_base, kind, ctx, nact, seq_base, info_base, last, last_act, num_rows,
               rep, row_of, loc_base, num_seq, seq_start, num_actions, parent, g_info, g_seq):
    """A part's information-set arrays, node by node (:func:`rcfr.forms.public.build.
    fill_infosets` in the part's local numbering): row ``k`` at node ``u`` starts at the
    node's local base plus ``k * A``; its parent is the root slot ``num_seq + slot_base + k``
    where the node's information sets are root ones (``slot_base >= 0``), else the local
    sequence of its representative's row at the player's last decision above."""
    i = 0
    for n in range(nodes.shape[0]):
        u = nodes[n]
        p = kind[u]
        c = ctx[u]
        A = nact[u]
        up = last[p, u]
        for k in range(num_rows[p, c]):
            s0 = loc_base[u] + k * A
            seq_start[i] = s0
            num_actions[i] = A
            if slot_base[n] >= 0:
                parent[i] = num_seq + slot_base[n] + k
            else:
                parent[i] = (loc_base[up] + row_of[p, ctx[up], rep[p, c, k]] * nact[up]
                             + last_act[p, u])
            g_info[i] = info_base[u] + k
            for a in range(A):
                g_seq[s0 + a] = seq_base[u] + k * A + a
            i += 1


def _runs(start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The indices ``start[r], ..., start[r] + length[r] - 1`` of every run ``r``, in order."""
    total = int(length.sum())
    first = np.cumsum(length) - length
    return np.repeat(start - first, length) + np.arange(total, dtype=np.int64)


def _index_dtype(n: int):
    return np.int32 if n < 2**31 - 2 else np.int64


def split_skeleton(skel, cut: str | None = None, num_parts: int = 1,
                   build: int | None = None) -> Split:
    """:func:`split_public` computed from the public tree's skeleton
    (:func:`rcfr.forms.public.tree.compile_skeleton`), node by node, with no array over the
    whole tree's sequences or information sets: the trunk and the exchange (what the driver
    keeps), and the arrays of part ``build`` only (what the actor that owns it keeps; the
    other parts carry their slots, with ``tree``, ``T``, ``global_seq`` and
    ``global_infoset`` None).  Equal to :func:`split_public` on the compiled tree, array for
    array (``global_seq`` and ``global_infoset`` as int32 where they fit)."""
    if skel.skeleton is None:
        raise RcfrError("split_skeleton takes a skeleton (compile_skeleton)")
    cut = default_cut(skel) if cut is None else cut
    roots = cut_roots(skel, cut)
    if not 1 <= num_parts <= roots.size:
        raise RcfrError(f"{num_parts} parts, but the cut {cut!r} makes {roots.size} subgames")
    if build is not None and not 0 <= build < num_parts:
        raise RcfrError(f"no part {build} of {num_parts}")
    rep, num_rows, last, last_act = skel.skeleton
    T = skel.arrays
    kind = skel.node_kind
    ctx = skel.node_ctx.astype(np.int64)
    nact = skel.node_num_actions.astype(np.int64)
    seq_base, info_base = skel.node_seq_base, skel.node_info_base
    N = skel.num_public_nodes
    i_dtype = skel.infoset_seq_start.dtype
    node_sub = _node_subgame(skel, roots)
    dec = np.flatnonzero(kind < 2)
    dec = dec[np.argsort(kind[dec], kind="stable")]  # the whole tree's order: player, node
    dp = kind[dec].astype(np.int64)
    rows = num_rows[dp, ctx[dec]].astype(np.int64)
    nseq = rows * nact[dec]
    dsub = node_sub[dec]
    sizes = np.zeros(roots.size, dtype=np.int64)
    np.add.at(sizes, dsub[dsub >= 0], nseq[dsub >= 0])
    group = _groups(sizes, num_parts)
    node_part = np.where(node_sub >= 0, group[np.maximum(node_sub, 0)], -1)
    dpart = node_part[dec]
    up = last[dp, dec].astype(np.int64)
    up_part = np.where(up >= 0, node_part[np.maximum(up, 0)], -1)
    droot = (dpart >= 0) & (up_part != dpart)  # nodes of root information sets

    # -- the trunk: its nodes' information sets and the phantoms, in the whole tree's order --
    tm = (dpart < 0) | droot
    tn, t_rows, t_ph, t_p = dec[tm], rows[tm], droot[tm], dp[tm]
    t_per_row = np.where(t_ph, 1, nact[tn])
    t_len = t_rows * t_per_row
    t_node_base = np.cumsum(t_len) - t_len
    S_T = int(t_len.sum())
    S0_T = int(t_len[t_p == 0].sum())
    I_T = int(t_rows.sum())
    n0_T = int(t_rows[t_p == 0].sum())
    tbase = np.full(N, -1, dtype=np.int64)
    tbase[tn] = t_node_base
    ti_node = np.repeat(tn, t_rows)
    ti_k = np.arange(I_T, dtype=np.int64) - np.repeat(np.cumsum(t_rows) - t_rows, t_rows)
    ti_p = kind[ti_node].astype(np.int64)
    t_seq_start = np.repeat(t_node_base, t_rows) + ti_k * np.repeat(t_per_row, t_rows)
    t_up = last[ti_p, ti_node].astype(np.int64)
    ups = np.maximum(t_up, 0)
    x = rep[ti_p, ctx[ti_node], ti_k]
    row = T.row_of[ti_p, ctx[ups], x].astype(np.int64)
    t_parent = np.where(t_up < 0, S_T + ti_p,
                        tbase[ups] + row * nact[ups] + last_act[ti_p, ti_node])
    real = ~t_ph
    t_global_seq = np.full(S_T, -1, dtype=np.int64)
    t_global_seq[_runs(t_node_base[real], t_len[real])] = _runs(seq_base[tn[real]], t_len[real])
    trunk_tree = FullTree(
        np.array([0, n0_T, I_T], dtype=np.int64), np.array([0, S0_T, S_T], dtype=np.int64),
        t_seq_start.astype(i_dtype), np.repeat(t_per_row, t_rows).astype(
            skel.infoset_num_actions.dtype), t_parent.astype(skel.infoset_parent_seq.dtype),
        np.zeros((2, 0), dtype=np.int32), np.zeros(0))
    tnodes = skel.terminal_nodes.astype(np.int64)
    term_part = node_part[tnodes]
    zt = np.flatnonzero(term_part < 0)
    tl = T.term_last[:, zt].astype(np.int64)
    ttsb = np.where(tl < 0, -1, tbase[np.maximum(tl, 0)] + T.term_last_act[:, zt])
    trunk = Part(trunk_tree, _sub_arrays(T, zt, ttsb, T.term_stride[:, zt].astype(np.int64)),
                 S_T, 0, t_global_seq, info_base[ti_node] + ti_k, np.zeros(0, np.int64),
                 np.zeros(0, np.int8))
    tsb_all = T.term_seq_base
    last_trunk = [dict(zip(tsb_all[q, zt].tolist(), zt.tolist(), strict=True)) for q in range(2)]

    # -- the parts: their slots (all), their arrays (``build``) ----------------------------
    parts, phantom = [], []
    sets = [([], []), ([], [])]  # per player: positions in the returned vector, phantoms
    adds = [([], [], [], []), ([], [], [], [])]  # per player: terminal, state, position, seq
    ret_slots = []
    offset = [0, 0]
    ident = T.row_of.shape[1]
    for j in range(num_parts):
        mine_nodes = dpart == j
        pn = dec[mine_nodes]
        p_rows = rows[mine_nodes]
        p_len = nseq[mine_nodes]
        p_root = droot[mine_nodes]
        Sj = int(p_len.sum())
        S0j = int(p_len[dp[mine_nodes] == 0].sum())
        # one slot per root information set (its phantom's sequence), in their order ...
        r_nodes, r_rows = pn[p_root], p_rows[p_root]
        R = int(r_rows.sum())
        src = [_runs(tbase[r_nodes], r_rows)]
        player = [np.repeat(kind[r_nodes].astype(np.int8), r_rows)]
        slot_z, slot_x = [np.full(R, -1, dtype=np.int64)], [np.zeros(R, dtype=np.int64)]
        slot_base = np.full(pn.size, -1, dtype=np.int64)
        slot_base[p_root] = np.cumsum(r_rows) - r_rows
        zj = np.flatnonzero(term_part == j)
        ztl = T.term_last[:, zj].astype(np.int64)
        if np.any(ztl < 0):
            q = int(np.flatnonzero((ztl < 0).any(axis=1))[0])
            raise RcfrError(f"the cut {cut!r} puts a terminal where player {q} has not "
                            "acted in a subgame; cut deeper")
        # ... then one per private state of each terminal block, by terminal and player
        outside = node_part[ztl] != j  # [2, Zj]: the player's last sequence in the trunk
        block = []  # (c, q, first slot)
        X = R
        for c in np.flatnonzero(outside.any(axis=0)).tolist():
            z = int(zj[c])
            for q in range(2):
                if not outside[q, c]:
                    continue
                b = int(tsb_all[q, z])
                if last_trunk[q].get(b, -1) > z:  # pragma: no cover (BFS numbering)
                    raise RcfrError(f"the cut {cut!r} interleaves terminal sums; cut elsewhere")
                block.append((c, q, X))
                trc = int(T.term_row_ctx[q, z])
                n = int(T.num_private[q])
                xs = np.arange(n, dtype=np.int64)
                row = xs if T.full[q, trc] else np.maximum(T.row_of[q, trc, :n], 0)
                base = int(tbase[ztl[q, c]]) + int(T.term_last_act[q, z])
                src.append(base + row.astype(np.int64) * int(T.term_stride[q, z]))
                player.append(np.full(n, q, dtype=np.int8))
                slot_z.append(np.full(n, z, dtype=np.int64))
                slot_x.append(xs)
                X += n
        slot_src = np.concatenate(src).astype(np.int64)
        slot_player = np.concatenate(player).astype(np.int8)
        slot_z, slot_x = np.concatenate(slot_z), np.concatenate(slot_x)
        del src, player
        tree_j = T_j = g_seq = g_info = None
        if build == j:
            loc_base = np.full(N, -1, dtype=np.int64)
            loc_base[pn] = np.cumsum(p_len) - p_len
            Ij = int(p_rows.sum())
            seq_start = np.empty(Ij, dtype=i_dtype)
            num_actions = np.empty(Ij, dtype=skel.infoset_num_actions.dtype)
            parent = np.empty(Ij, dtype=skel.infoset_parent_seq.dtype)
            g_info = np.empty(Ij, dtype=_index_dtype(skel.num_infosets))
            g_seq = np.empty(Sj, dtype=_index_dtype(skel.num_sequences))
            _fill_part(pn, slot_base, kind, ctx, nact, seq_base, info_base, last, last_act,
                       num_rows, rep, T.row_of, loc_base, Sj, seq_start, num_actions, parent,
                       g_info, g_seq)
            n0 = int(p_rows[dp[mine_nodes] == 0].sum())
            tree_j = FullTree(np.array([0, n0, Ij], dtype=np.int64),
                              np.array([0, S0j, Sj], dtype=np.int64), seq_start, num_actions,
                              parent, np.zeros((2, 0), dtype=np.int32), np.zeros(0))
            jtsb = loc_base[np.maximum(ztl, 0)] + T.term_last_act[:, zj]
            jtst = T.term_stride[:, zj].astype(np.int64)
            jtrc = T.term_row_ctx[:, zj].astype(np.int64)
            for c, q, first in block:
                jtsb[q, c] = Sj + first
                jtst[q, c] = 1
                jtrc[q, c] = ident
            del loc_base
            T_j = _sub_arrays(T, zj, jtsb, jtst, jtrc)
        parts.append(Part(tree_j, T_j, Sj, X, g_seq, g_info, slot_src, slot_player))
        mine = []
        for q in range(2):
            idx = np.flatnonzero(slot_player == q)
            mine.append(idx)
            root = slot_z[idx] < 0
            pos = offset[q] + np.arange(idx.size, dtype=np.int64)
            sets[q][0].append(pos[root])
            sets[q][1].append(slot_src[idx[root]])
            phantom.append(slot_src[idx[root]])
            for k, v in enumerate((slot_z[idx[~root]], slot_x[idx[~root]], pos[~root],
                                   slot_src[idx[~root]])):
                adds[q][k].append(v)
            offset[q] += idx.size
        ret_slots.append(mine)
    set_src = [np.concatenate(sets[q][0]) for q in range(2)]
    set_dst = [np.concatenate(sets[q][1]) for q in range(2)]
    add_src, add_dst = [], []
    for q in range(2):
        z, x, pos, dst = (np.concatenate(v) for v in adds[q])
        order = np.lexsort((x, z))  # the whole tree's order: by terminal, then state
        add_src.append(pos[order])
        add_dst.append(dst[order])
    return Split(trunk, parts, cut, int(roots.size), np.concatenate(phantom).astype(np.int64),
                 set_src, set_dst, add_src, add_dst, ret_slots)


# -- the per-part steps (the single-process kernels on a part's arrays) -------------------------
def part_vectors(part: Part) -> tuple[np.ndarray, np.ndarray]:
    """A part's padded plan (empty sequences 1) and value vectors."""
    n = part.num_sequences + part.num_slots
    return K.padded(n), np.zeros(n + 2)


def uniform_strategy(part: Part) -> np.ndarray:
    """The uniform strategy on a part (phantoms: 1), as
    :meth:`rcfr.policy.TabularPolicy.uniform` computes it."""
    t = part.tree
    return np.repeat(1.0 / t.num_actions, t.num_actions).astype(np.float64)


@njit(cache=True)
def add_in_order(acc, dst, values, src):
    """``acc[dst[j]] += values[src[j]]`` for ``j`` in order (the terminal blocks)."""
    for j in range(dst.shape[0]):
        acc[dst[j]] += values[src[j]]


@njit(cache=True)
def part_terminals(p, part_tree, T, plan, acc, num_slots):
    """The part's terminal sweep for player ``p`` with its slots cleared first."""
    S = part_tree.seq_bounds[2]
    for x in range(S, S + num_slots):
        acc[x] = 0.0
    terminal_values(p, plan, T, np.bool_(False), part_tree.seq_bounds[p],  # (not a literal:
                    part_tree.seq_bounds[p + 1], acc)  # the tree's own compilation)


class PartState:
    """One part's tables (regrets, predictions, strategy, average sums) and the steps of the
    full-width loop on them: the kernels of :mod:`rcfr.forms.public.full_width` on the part's
    arrays (``rule``: :class:`rcfr.core.rules.RuleParams`; ``link_kind``, ``link_param``: the
    link).  The trunk's state is one too; its sweeps take the parts' values
    (:meth:`trunk_sweep`)."""

    def __init__(self, part: Part, rule, link_kind: int, link_param: float,
                 dtype: type = np.float64) -> None:
        # numba's thread pool must be up before a kernel with a parallel callee is loaded
        # from the cache (a fresh worker process segfaults otherwise)
        numba.get_num_threads()
        self.part = part
        S = part.num_sequences
        self.rule, self.link_kind, self.link_param = rule, link_kind, float(link_param)
        # the tables in ``dtype`` (float32: the single-process solver's ``dtype="float32"``,
        # its arithmetic in double), the work vectors in double, as the single process has them
        self.dtype = np.dtype(dtype).type
        self.strategy = uniform_strategy(part).astype(self.dtype)
        self.regrets = np.zeros(S, self.dtype)
        self.prediction = np.zeros(S, self.dtype)
        self.values = np.zeros(S, self.dtype)
        self.avg = np.zeros(S, self.dtype)
        self.inst = np.zeros(S)
        self.plan, self.acc = part_vectors(part)

    @property
    def table_bytes(self) -> int:
        """Bytes of the tables and vectors this state holds."""
        arrays = (self.strategy, self.regrets, self.prediction, self.values, self.avg,
                  self.inst, self.plan, self.acc)
        return int(sum(a.nbytes for a in arrays))

    @property
    def tree_bytes(self) -> int:
        """Bytes of the part's own tree arrays (the per-context tables are the whole game's)."""
        t, T = self.part.tree, self.part.T
        n = sum(a.nbytes for a in t if isinstance(a, np.ndarray))
        n += sum(getattr(T, f).nbytes for f in T._fields if f.startswith("term_"))
        return int(n)

    def set_reach(self, values: np.ndarray) -> None:
        """The trunk's realization weights at the slots."""
        S = self.part.num_sequences
        self.plan[S:S + self.part.num_slots] = values

    def plan_players(self, p_lo: int, p_hi: int, weight: float, average: bool) -> None:
        """Realization plans of players ``[p_lo, p_hi)``, adding ``weight`` times them to the
        averages where ``average`` (:func:`rcfr.forms.public.full_width._plan`)."""
        _plan(self.strategy, self.part.tree.bounds[p_lo], self.part.tree.bounds[p_hi],
              self.part.tree.seq_start, self.part.tree.num_actions, self.part.tree.parent_seq,
              self.plan, float(weight), self.avg, bool(average))

    def _regrets(self, p: int, t: int) -> None:
        _regrets_absorbed(p, t, self.rule, self.link_kind, self.link_param, self.strategy,
                          self.part.tree, self.acc, self.inst, self.regrets, self.prediction,
                          self.values)

    def sweep(self, p: int, t: int, ret: np.ndarray) -> np.ndarray:
        """Player ``p``'s terminal and backward sweeps at iteration ``t`` (its regrets absorbed
        and strategy updated); returns the values of its slots ``ret``."""
        part_terminals(p, self.part.tree, self.part.T, self.plan, self.acc, self.part.num_slots)
        self._regrets(p, t)
        return self.acc[self.part.num_sequences + ret]

    def trunk_terminals(self, p: int, split: Split, values: np.ndarray) -> None:
        """The trunk's terminal sweep for ``p`` with the parts' returned ``values`` (their
        slots of player ``p``, concatenated in part order) in place."""
        part_terminals(p, self.part.tree, self.part.T, self.plan, self.acc, 0)
        add_in_order(self.acc, split.add_dst[p], values, split.add_src[p])
        self.acc[split.set_dst[p]] = values[split.set_src[p]]

    def trunk_sweep(self, p: int, t: int, split: Split, values: np.ndarray) -> None:
        """The trunk's sweeps for ``p`` at iteration ``t`` with the parts' ``values``."""
        self.trunk_terminals(p, split, values)
        self._regrets(p, t)

    # -- evaluation --------------------------------------------------------------------------
    def average_probs(self) -> np.ndarray:
        """The average strategy (:meth:`rcfr.policy.TabularPolicy.from_weights`)."""
        t = self.part.tree
        out = np.empty(self.part.num_sequences)
        K.normalize(self.avg, 0, t.bounds[2], t.seq_start, t.num_actions, out)
        return out

    def eval_plan(self, probs: np.ndarray) -> None:
        """Both players' realization plans of the profile ``probs``."""
        t = self.part.tree
        K.realization_plan(probs, 0, t.bounds[2], t.seq_start, t.num_actions, t.parent_seq,
                           self.plan)

    def best_response(self, p: int, ret: np.ndarray | None = None, split: Split | None = None,
                      values: np.ndarray | None = None):
        """Player ``p``'s best-response sweep: a part returns the values of its slots ``ret``
        and its share of player 0's expected value (for ``p == 0``); the trunk takes the parts'
        ``values`` and returns the best-response value."""
        t = self.part.tree
        br = np.empty(self.part.num_sequences)
        sb = t.seq_bounds
        if split is None:
            part_terminals(p, t, self.part.T, self.plan, self.acc, self.part.num_slots)
            share = float(np.dot(self.acc[sb[0]:sb[1]], self.plan[sb[0]:sb[1]])) if p == 0 else 0.0
            K.best_response(p, t.bounds[p], t.bounds[p + 1], t.seq_start, t.num_actions,
                            t.parent_seq, self.acc, br)
            return self.acc[self.part.num_sequences + ret], share
        self.trunk_terminals(p, split, values)
        n = self.acc.shape[0]
        share = 0.0
        if p == 0:
            real = self.part.global_seq[sb[0]:sb[1]] >= 0
            share = float(np.dot(self.acc[sb[0]:sb[1]][real], self.plan[sb[0]:sb[1]][real])
                          + self.acc[n - 2] * self.plan[n - 2])
        value = K.best_response(p, t.bounds[p], t.bounds[p + 1], t.seq_start, t.num_actions,
                                t.parent_seq, self.acc, br)
        return float(value), share

    # -- state -------------------------------------------------------------------------------
    def state(self) -> dict[str, np.ndarray]:
        return {"regrets": self.regrets, "prediction": self.prediction,
                "strategy": self.strategy, "avg_weights": self.avg}

    def load_state(self, arrays: dict) -> None:
        S = self.part.num_sequences
        for key, attr in (("regrets", "regrets"), ("prediction", "prediction"),
                          ("strategy", "strategy"), ("avg_weights", "avg")):
            a = np.array(arrays[key], dtype=self.dtype)
            if a.shape != (S,):
                raise ValueError(f"{key} of shape {a.shape}, expected ({S},)")
            setattr(self, attr, a)

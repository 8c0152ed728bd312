"""An actions-major layout of the public tree's sequences, for the full-width kernels.

The sequence contract (:mod:`rcfr.forms.public.tree`) puts an information set's actions side by
side:
at public node ``u`` with ``K`` private rows and ``A`` actions the sequence of row ``k`` and
action ``a`` is ``base[u] + k * A + a``.  Inside the fused full-width kernels
(:mod:`rcfr.forms.public.full_width`) each public node's block is transposed to ``base[u] + a * K +
k``:
for each action the vector over private rows is contiguous, so the plan, the backward sweep and
the terminal sweep run over private rows with unit stride (Johanson et al. 2012, sec. 3: the
vector form), and a sequence's parent is the same row of one contiguous parent vector.  A
node's block occupies the same range in both layouts, so only the order inside blocks changes;
the kernels convert at entry and exit (:func:`to_layout`, :func:`state_to_layout`), and everything
outside them keeps the contract.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

# Trees with more sequences keep the contract's order (Bluff(2,1), 7 million sequences: its
# tables stream from memory, where the contract's sweep reads each node's block in order and the
# transposes at entry and exit cost more than the per-row loops save; measured with
# benchmarks/bench_public_tree.py).
LAYOUT_MAX_SEQUENCES = 1 << 20


def uses_layout(tree) -> bool:
    """Whether the full-width kernels run ``tree`` in the layout."""
    return tree.num_sequences <= LAYOUT_MAX_SEQUENCES


PublicLayout = namedtuple("PublicLayout", [
    "node_lo",  # int64 [3]: decision nodes of player p are [node_lo[p], node_lo[p + 1])
    "base",  # int64 [J]: the node's first sequence (the same in both layouts)
    "rows",  # int64 [J]: private rows K
    "actions",  # int64 [J]: actions A
    "parent",  # int64 [J]: row 0 of the parent sequence vector (layout index; S + p: empty)
    "parent_map",  # int64 [J]: -1 where row k's parent is row k, else an offset into row_map
    "row_map",  # int64: parent rows of the nodes whose rows are not the parent's
    "term_base",  # int64 [2, Z]: row 0 of each player's last sequence at a terminal (-1: empty)
    "term_stride",  # int64 [2, Z]: 1 (0 where empty), for the terminal sweep
    "max_rows",  # int64
    "seq_parent",  # uint32 [S]: each sequence's parent sequence (layout index; S + p: empty)
    "seq_contract",  # uint32 [S]: each sequence's index in the contract's order
])


def build_layout(tree) -> PublicLayout:
    """The layout of ``tree`` (a :class:`rcfr.forms.public.tree.PublicTree`), from its sequence
    arrays (vectorized: Bluff(2,1)'s 3.5 million information sets in well under a second)."""
    S = tree.num_sequences
    N = tree.num_public_nodes
    info_node = tree.infoset_public_node.astype(np.int64)
    K_node = np.bincount(info_node, minlength=N).astype(np.int64)
    A_node = tree.node_num_actions.astype(np.int64)
    seq_base = tree.node_seq_base
    dec = np.flatnonzero(tree.node_kind < 2)
    dec = dec[np.argsort(tree.node_info_base[dec], kind="stable")]  # player 0's first, BFS
    first = tree.node_info_base[dec]
    n0 = int(np.count_nonzero(tree.node_kind[dec] == 0))
    # per information set: its row, and its parent sequence's node, action and row
    k = np.arange(info_node.size, dtype=np.int64) - tree.node_info_base[info_node]
    ps = tree.infoset_parent_seq.astype(np.int64)
    empty = ps >= S
    safe = np.where(empty, 0, ps)
    pu = info_node[tree.seq_infoset[safe]] if S else np.zeros(0, dtype=np.int64)
    off = safe - seq_base[pu]
    prow = np.where(empty, 0, off // np.maximum(A_node[pu], 1))
    pa = off % np.maximum(A_node[pu], 1)
    pstart = np.where(empty, ps, seq_base[pu] + pa * K_node[pu])
    same = (prow == k) & ~empty
    ident = (np.minimum.reduceat(same.astype(np.int8), first) > 0) if first.size else (
        np.zeros(0, dtype=bool))
    mapped = ~ident
    parent_map = np.full(dec.size, -1, dtype=np.int64)
    sizes = K_node[dec[mapped]]
    parent_map[mapped] = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if sizes.size else sizes
    in_mapped = np.repeat(mapped, K_node[dec])
    row_map = np.ascontiguousarray(prow[in_mapped])
    tl = tree.arrays.term_last.astype(np.int64)
    tls = np.maximum(tl, 0)
    term_base = np.where(tl < 0, -1, seq_base[tls] + tree.arrays.term_last_act * K_node[tls])
    # per sequence (layout order): the parent sequence, for the flat realization-plan loop
    K_dec, A_dec = K_node[dec], A_node[dec]
    j_of = np.repeat(np.arange(dec.size), K_dec * A_dec)
    pos = np.arange(j_of.size) - np.repeat(seq_base[dec], K_dec * A_dec)  # a * K + k
    row = pos % np.maximum(K_dec[j_of], 1)
    prow_seq = np.where(mapped[j_of], row_map[np.maximum(parent_map[j_of], 0) + row], row)
    parent_row0 = pstart[first] if first.size else np.zeros(0, np.int64)
    seq_parent = parent_row0[j_of] + prow_seq
    a_of = pos // np.maximum(K_dec[j_of], 1)
    seq_contract = np.repeat(seq_base[dec], K_dec * A_dec) + row * A_dec[j_of] + a_of
    return PublicLayout(
        node_lo=np.array([0, n0, dec.size], dtype=np.int64),
        base=np.ascontiguousarray(seq_base[dec]),
        rows=np.ascontiguousarray(K_node[dec]),
        actions=np.ascontiguousarray(A_node[dec]),
        parent=np.ascontiguousarray(pstart[first]) if first.size else np.zeros(0, np.int64),
        parent_map=parent_map,
        row_map=row_map,
        term_base=np.ascontiguousarray(term_base.astype(np.int64)),
        term_stride=np.where(tl < 0, 0, 1).astype(np.int64),
        max_rows=int(K_node.max()) if N else 0,
        seq_parent=seq_parent.astype(np.uint32),
        seq_contract=seq_contract.astype(np.uint32),
    )


@njit(cache=True)
def to_layout(src, dst, seq_contract):
    """``dst``: the sequence vector ``src`` (contract order) in the layout (one flat gather)."""
    for i in range(seq_contract.shape[0]):
        dst[i] = src[seq_contract[i]]


@njit(cache=True)
def state_to_layout(x, y, z, dst, seq_contract):
    """:func:`to_layout` of three vectors at once into the rows of ``dst`` (a solver's regrets,
    strategy and average sums)."""
    for i in range(seq_contract.shape[0]):
        s = seq_contract[i]
        dst[0, i] = x[s]
        dst[1, i] = y[s]
        dst[2, i] = z[s]


@njit(cache=True)
def state_from_layout(src, x, y, z, seq_contract):
    """The inverse of :func:`state_to_layout` (one flat scatter)."""
    for i in range(seq_contract.shape[0]):
        s = seq_contract[i]
        x[s] = src[0, i]
        y[s] = src[1, i]
        z[s] = src[2, i]

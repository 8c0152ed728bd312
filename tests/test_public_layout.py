"""The actions-major layout of the full-width kernels (rcfr.forms.public.layout): its index maps
agree with the sequence contract, and CFR / CFR+ and exploitability in the layout equal the
contract-order kernels exactly, including games whose players observe classes of private
states (rows shared by several states, parents shared by several rows)."""

import numpy as np
import pytest
from test_public_tree import CoarseLeduc, HiddenBoardLeduc, random_policy

from rcfr.core import kernels as K
from rcfr.forms.public import layout as public_layout
from rcfr.forms.public.evaluate import evaluate_public
from rcfr.forms.public.layout import state_from_layout, state_to_layout, to_layout
from rcfr.forms.public.tree import compile_public
from rcfr.solvers.loop import CFRSolver

GAMES = ["kuhn", "leduc", "leduc(canonical=true)", "nl_one_card", "liars_dice",
         "liars_dice(dice=2,dice2=1,faces=3)", CoarseLeduc, HiddenBoardLeduc]


def tree_of(game):
    return compile_public(game() if callable(game) else game)


def layout_index(t):
    """``m[s]``: the layout index of contract sequence ``s`` (the empty sequences stay)."""
    L = t._layout
    m = np.arange(t.num_sequences + 2, dtype=np.float64)
    out = m.copy()
    to_layout(m, out, L.seq_contract)
    inv = np.empty(t.num_sequences + 2, dtype=np.int64)
    inv[out.astype(np.int64)] = np.arange(t.num_sequences + 2)
    return inv


@pytest.mark.parametrize("game", GAMES, ids=str)
def test_layout_agrees_with_the_sequence_contract(game):
    t = tree_of(game)
    L, S = t._layout, t.num_sequences
    m = layout_index(t)
    assert sorted(m[:S]) == list(range(S))  # a permutation within each node's block
    # every sequence's parent is the same row of the parent node's vector (or through row_map)
    for j in range(L.base.shape[0]):
        b, Kj, A = L.base[j], L.rows[j], L.actions[j]
        i0 = t.node_info_base[t.infoset_public_node[t.infoset_seq_start.searchsorted(b)]]
        for k in range(Kj):
            row = k if L.parent_map[j] < 0 else L.row_map[L.parent_map[j] + k]
            assert m[t.infoset_parent_seq[i0 + k]] == L.parent[j] + row
            for a in range(A):
                assert m[b + k * A + a] == b + a * Kj + k
                assert L.seq_parent[b + a * Kj + k] == L.parent[j] + row
    # each terminal's sequences: row k of a contiguous vector
    T = t.arrays
    rows = np.bincount(t.infoset_public_node, minlength=t.num_public_nodes)
    for p in (0, 1):
        for z in range(T.term_ctx.shape[0]):
            base, u = T.term_seq_base[p, z], T.term_last[p, z]
            assert (L.term_base[p, z] < 0) == (base < 0) == (u < 0)
            for k in range(rows[u] if u >= 0 else 0):
                assert m[base + k * T.term_stride[p, z]] == L.term_base[p, z] + k
    # the transposes round-trip
    rng = np.random.default_rng(0)
    x, y, z = (rng.random(S) for _ in range(3))
    buf = np.empty((3, S))
    state_to_layout(x, y, z, buf, L.seq_contract)
    assert np.array_equal(buf[1][m[:S]], y)
    back = [np.empty(S) for _ in range(3)]
    state_from_layout(buf, *back, L.seq_contract)
    assert all(np.array_equal(a, b) for a, b in zip(back, (x, y, z), strict=True))


@pytest.mark.parametrize("game", GAMES, ids=str)
def test_layout_kernels_equal_the_contract_order_exactly(game):
    """CFR and CFR+, alternating and simultaneous, in several calls: the same strategies,
    average sums and regrets bit for bit as :func:`rcfr.forms.public.full_width.run_public`; and
    exploitability as :func:`rcfr.forms.public.evaluate.evaluate_public`."""
    t = tree_of(game)
    for alg, alternating in (("cfr", True), ("cfr+", True), ("cfr+", False)):
        fast = CFRSolver(t, alg, alternating=alternating)
        slow = CFRSolver(t, alg, alternating=alternating)
        slow.setup()
        assert fast.setup() is None and fast.pass_.layout_fuses(fast._loop_state())
        slow.pass_.layout_fuses = lambda state: False  # the contract-order kernel
        for n in (1, 6, 13):
            fast.run(n)
            slow.run(n)
        for a, b in ((fast.strategy_, slow.strategy_), (fast.avg_weights_, slow.avg_weights_),
                     (fast.estimator_.regrets, slow.estimator_.regrets)):
            assert np.array_equal(a, b)
    S = t.num_sequences
    for seed in range(3):
        probs = random_policy(t, seed).probs
        ref = evaluate_public(probs, t._full_arrays, t.arrays, False, K.padded(S),
                              np.empty(t.num_infosets_per_player[0]))
        assert np.allclose(t.evaluate(probs), ref, rtol=1e-13, atol=1e-14)


def test_large_trees_keep_the_contract_order(monkeypatch):
    t = compile_public("liars_dice")
    monkeypatch.setattr(public_layout, "LAYOUT_MAX_SEQUENCES", t.num_sequences - 1)
    probs = random_policy(t, 5).probs
    big = CFRSolver(t, "cfr+")
    big.setup()
    assert not big.pass_.layout_fuses(big._loop_state())
    expected = t.evaluate(probs)  # (the contract-order evaluation)
    big.run(5)
    monkeypatch.undo()
    small = CFRSolver(t, "cfr+").run(5)
    assert np.array_equal(big.avg_weights_, small.avg_weights_)
    assert np.allclose(t.evaluate(probs), expected, rtol=1e-13, atol=1e-14)

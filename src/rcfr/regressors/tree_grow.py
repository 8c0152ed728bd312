"""Numba kernels that grow a regression tree best-first and evaluate it (Morrill 2016, ch. 2,
"Best-first Partitioning" and "Recursive Partitioning").

A fit is one call of :func:`grow_tree`; what depends only on the feature matrix (sorting,
ranking, histogram layout) is done once, outside (``tree_layout.Layout``).  During a fit:

* a node's samples are a contiguous segment ``[s, e)`` of ``samples`` and -- for the features
  searched by sorted sweeps -- of each row of ``idx``, which keeps every segment sorted by its
  feature; a node's segments are stably partitioned between its children when the first child
  that needs them is searched;
* features with few distinct values are searched by histograms (sums of targets, weights and
  counts per value), one per frontier node; the larger child's is its parent's minus the
  smaller child's;
* nodes of a few samples are searched by sorting their samples' ranks on the spot.

The frontier is a max-heap (ties: the older node first) keyed by each node's split gain, the
decrease of the tree's total error -- or, until the node is searched, by its total error, an
upper bound on that gain.  Popping a node that only has its bound searches it and pushes it
back with its gain, so nodes whose bound never reaches the top (most final leaves) are never
searched, and the tree is the one eager best-first growth gives.  A node is split only if it
has at least ``2 min_leaf`` samples and its mean error exceeds ``min_impurity``.  As in
scikit-learn a best split that reduces the error by zero is still taken (last): it can enable
later gains (XOR-like targets).

Note: numba's on-disk cache does not notice edits to the kernels this module imports from
``tree_split``; clear ``__pycache__`` after changing them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .tree_split import (
    TIE,
    mean_stats,
    median_stats,
    sweep_histogram_sse,
    sweep_small_sse,
    sweep_sorted_sae,
    sweep_sorted_sse,
)

SQUARED_ERROR = 0
ABSOLUTE_ERROR = 1


@njit(cache=True)
def _heap_push(gain, heap, size, node):
    """Max-heap of node ids on ``gain``; ties go to the older (smaller) node id."""
    q = size
    while q > 0:
        parent = (q - 1) // 2
        a = heap[parent]
        if gain[a] > gain[node] or (gain[a] == gain[node] and a < node):
            break
        heap[q] = a
        q = parent
    heap[q] = node
    return size + 1


@njit(cache=True)
def _heap_pop(gain, heap, size):
    top = heap[0]
    size -= 1
    last = heap[size]
    q = 0
    while True:
        c = 2 * q + 1
        if c >= size:
            break
        if c + 1 < size:
            a = heap[c]
            b = heap[c + 1]
            if gain[b] > gain[a] or (gain[b] == gain[a] and b < a):
                c += 1
        a = heap[c]
        if gain[last] > gain[a] or (gain[last] == gain[a] and last < a):
            break
        heap[q] = a
        q = c
    heap[q] = last
    return top, size


@njit(cache=True)
def _partition(row, s, e, go_left, buf):
    """Stable partition of ``row[s:e]``: samples with ``go_left`` first.  Returns their count."""
    nl = s
    nr = 0
    for p in range(s, e):
        i = row[p]
        g = go_left[i]
        row[nl] = i
        buf[nr] = i
        nl += g
        nr += 1 - g
    for q in range(nr):
        row[nl + q] = buf[q]
    return nl - s


@njit(cache=True)
def _build_histogram(samples, s, e, nz_ptr, nz_bin, yg, w, unit, hy, hw, hc):
    """Histogram of ``samples[s:e]`` over every binned feature, except for the bins of each
    feature's most common value, which stay empty (:func:`tree_split.sweep_histogram_sse`
    derives them from the node totals): ``nz_bin[nz_ptr[i]:nz_ptr[i+1]]`` are sample ``i``'s
    other bins, numbered globally."""
    for b in range(hy.shape[0]):
        hy[b] = 0.0
        hc[b] = 0
    if not unit:
        for b in range(hw.shape[0]):
            hw[b] = 0.0
    for p in range(s, e):
        i = samples[p]
        v = yg[i]
        if unit:
            for q in range(nz_ptr[i], nz_ptr[i + 1]):
                b = nz_bin[q]
                hy[b] += v
                hc[b] += 1
        else:
            wi = w[i]
            for q in range(nz_ptr[i], nz_ptr[i + 1]):
                b = nz_bin[q]
                hy[b] += v
                hw[b] += wi
                hc[b] += 1


@njit(cache=True)
def grow_tree(Xt, sorted_feats, order, binned_feats, bin_off, bin_val, bin_default, nz_ptr,
              nz_bin, Rt, Rs, foff, fval, y, w, unit, criterion, max_leaves, min_leaf,
              min_impurity, small_node):
    """Grow a tree on targets ``y`` (weights ``w``; ``unit`` when all are 1) best-first until
    ``max_leaves`` leaves or no node can be split.

    ``Xt`` is the feature matrix transposed.  The features ``sorted_feats`` are searched by
    sorted sweeps (``order[r]``: the stable argsort of feature ``sorted_feats[r]``), the
    features ``binned_feats`` by histograms (``bin_off``, ``bin_val``: see
    :func:`tree_split.sweep_histogram_sse`; ``bin_default``, ``nz_ptr``, ``nz_bin``: see
    :func:`_build_histogram`; squared error only).  With squared error, nodes of at most
    ``small_node`` samples are searched by :func:`tree_split.sweep_small_sse` instead: they
    need neither sorted segments nor histograms.  ``Rt`` (feature-major) and ``Rs``
    (sample-major) hold the rank of each value among its feature's distinct values
    ``fval[foff[f]:foff[f+1]]``; sweeps compare ranks.  Returns ``(feature, threshold, left,
    right, value, fitted)``: the nodes (leaves have ``left == right == -1``) and the
    prediction for every training sample.
    """
    n = Xt.shape[1]
    absolute = criterion == ABSOLUTE_ERROR
    if absolute:
        small_node = 0
    max_nodes = 2 * min(max_leaves, n) - 1
    feature = np.full(max_nodes, -1, np.int64)
    threshold = np.zeros(max_nodes)
    left = np.full(max_nodes, -1, np.int64)
    right = np.full(max_nodes, -1, np.int64)
    value = np.zeros(max_nodes)
    start = np.zeros(max_nodes, np.int64)
    stop = np.zeros(max_nodes, np.int64)
    up = np.full(max_nodes, -1, np.int64)  # parent
    weight = np.zeros(max_nodes)
    err = np.zeros(max_nodes)
    key = np.zeros(max_nodes)  # heap key: error bound, then (once searched) split gain
    searched = np.zeros(max_nodes, np.bool_)
    parted = np.zeros(max_nodes, np.bool_)  # segments of idx partitioned between its children
    heap = np.empty(max_nodes, np.int64)
    idx = order.copy()
    samples = np.arange(n).astype(np.int32)
    buf = np.empty(n, np.int32)
    go_left = np.empty(n, np.uint8)
    yc = np.empty(n)
    rs = np.empty(max(small_node, 1), Rs.dtype)
    js = np.empty(max(small_node, 1), np.int64)
    n_sorted = sorted_feats.shape[0]

    # histograms, one per slot; slots are held only by frontier nodes of more than
    # ``small_node`` samples (disjoint), plus two while a node is split
    n_binned = binned_feats.shape[0]
    n_bins = bin_off[n_binned]
    n_slots = min(max_leaves, n // (small_node + 1)) + 2 if n_binned > 0 else 0
    hy = np.empty((n_slots, n_bins))
    hw = np.empty((n_slots, n_bins) if not unit else (min(n_slots, 1), n_bins))
    hc = np.empty((n_slots, n_bins), np.int32)
    free = np.arange(n_slots)[::-1].copy()  # a stack of free slots
    n_free = n_slots
    slot = np.full(max_nodes, -1, np.int64)
    yg = np.empty(n)
    scale2 = 1.0
    if n_binned > 0:  # the histograms' targets, centred and scaled once, on the root
        _, mu, var = mean_stats(samples, 0, n, y, w)
        scale2 = var if var > 0.0 else 1.0
        sd = np.sqrt(scale2)
        for i in range(n):
            yg[i] = w[i] * (y[i] - mu) / sd

    # absolute error: ranks of the targets and a Fenwick tree over them
    if absolute:
        yord = np.argsort(y, kind="mergesort")
        ysorted = y[yord]
        yrank = np.empty(n, np.int64)
        for r in range(n):
            yrank[yord[r]] = r
        fw = np.zeros(n + 1)
        fwy = np.zeros(n + 1)
        top = 1
        while top * 2 <= n:
            top *= 2
        pre = np.empty(n)
        suf = np.empty(n)
        wpre = np.empty(n)
    else:
        ysorted = y
        yrank = np.zeros(1, np.int64)
        fw = np.zeros(1)
        fwy = fw
        top = 0
        pre = fw
        suf = fw
        wpre = fw

    stop[0] = n
    n_nodes = 1
    n_leaves = 1
    size = 0
    first = 0
    while True:
        # new nodes (the root, or two children): value, error, and onto the heap keyed by
        # their total error, an upper bound on what any split of theirs can gain
        for node in range(first, n_nodes):
            s = start[node]
            e = stop[node]
            if absolute:
                W, v, er = median_stats(samples, s, e, y, w)
            else:
                W, v, er = mean_stats(samples, s, e, y, w)
            value[node] = v
            weight[node] = W
            err[node] = er
            if e - s >= 2 * min_leaf and er > min_impurity:
                key[node] = er * W * (1.0 + 1e-9)
                size = _heap_push(key, heap, size, node)
        if first > 0 and slot[up[first]] >= 0:  # histograms of large children, by subtraction
            ps = slot[up[first]]
            slot[up[first]] = -1
            a = first
            b = first + 1
            if stop[a] - start[a] > stop[b] - start[b]:
                a, b = b, a  # a: the smaller child, b: the larger
            m_b = stop[b] - start[b]
            if m_b > small_node and m_b >= 2 * min_leaf and err[b] > min_impurity:
                n_free -= 1
                sa = free[n_free]
                _build_histogram(samples, start[a], stop[a], nz_ptr, nz_bin, yg, w, unit,
                                 hy[sa], hw[sa if not unit else 0], hc[sa])
                for q in range(n_bins):
                    hy[ps, q] -= hy[sa, q]
                    hc[ps, q] -= hc[sa, q]
                if not unit:
                    for q in range(n_bins):
                        hw[ps, q] -= hw[sa, q]
                slot[b] = ps
                m_a = stop[a] - start[a]
                if m_a > small_node and m_a >= 2 * min_leaf and err[a] > min_impurity:
                    slot[a] = sa
                else:
                    free[n_free] = sa
                    n_free += 1
            else:
                free[n_free] = ps
                n_free += 1
        # pop the best frontier node: search it if it only has its bound, else split it
        node = -1
        while size > 0 and n_leaves < max_leaves:
            cand, size = _heap_pop(key, heap, size)
            if searched[cand]:
                node = cand
                break
            searched[cand] = True
            s = start[cand]
            e = stop[cand]
            if e - s <= small_node:  # a small node: sorted on the spot
                best_gain, best_f, best_thr = sweep_small_sse(
                    Rs, foff, fval, samples, s, e, y, w, weight[cand], value[cand], err[cand],
                    min_leaf, rs, js)
                if best_f >= 0:
                    key[cand] = max(best_gain, 0.0)
                    feature[cand] = best_f
                    threshold[cand] = best_thr
                    size = _heap_push(key, heap, size, cand)
                continue
            P = up[cand]
            if P >= 0 and not parted[P]:  # sorted segments: partition the parent now
                parted[P] = True
                _split_segments(Xt, Rt, sorted_feats, idx, samples, start[P], stop[P],
                                feature[P], threshold[P], go_left, buf)
            best_gain = -1.0
            best_f = -1
            best_thr = 0.0
            if absolute:
                best_gain, best_f, best_thr = sweep_sorted_sae(
                    Rt, foff, fval, sorted_feats, idx, s, e, y, w, weight[cand], err[cand],
                    min_leaf, yrank, ysorted, fw, fwy, top, pre, suf, wpre)
            else:
                if n_sorted > 0:
                    best_gain, best_f, best_thr = sweep_sorted_sse(
                        Rt, foff, fval, sorted_feats, idx, samples, s, e, y, w, weight[cand],
                        value[cand], err[cand], min_leaf, yc)
                if n_binned > 0:
                    q = slot[cand]
                    if q < 0:
                        n_free -= 1
                        q = free[n_free]
                        slot[cand] = q
                        _build_histogram(samples, s, e, nz_ptr, nz_bin, yg, w, unit, hy[q],
                                         hw[q if not unit else 0], hc[q])
                    S = 0.0
                    for p in range(s, e):
                        S += yg[samples[p]]
                    g2, f2, t2 = sweep_histogram_sse(
                        binned_feats, bin_off, bin_val, bin_default, hy[q],
                        hw[q if not unit else 0], hc[q], unit, weight[cand], S, e - s, scale2,
                        min_leaf, err[cand] * weight[cand])
                    slack = TIE * err[cand] * weight[cand]
                    if f2 >= 0 and (best_f < 0 or g2 > best_gain + slack
                                    or (g2 >= best_gain - slack and f2 < best_f)):
                        best_gain, best_f, best_thr = g2, f2, t2
            if best_f < 0:  # no valid split: a leaf
                if slot[cand] >= 0:
                    free[n_free] = slot[cand]
                    n_free += 1
                    slot[cand] = -1
                continue
            key[cand] = max(best_gain, 0.0)
            feature[cand] = best_f
            threshold[cand] = best_thr
            size = _heap_push(key, heap, size, cand)
        if node < 0:
            break
        # split ``node``: its samples now, its sorted segments when a child is searched
        s = start[node]
        e = stop[node]
        xr = Xt[feature[node]]
        thr = threshold[node]
        for p in range(s, e):
            i = samples[p]
            go_left[i] = 1 if xr[i] <= thr else 0
        k = _partition(samples, s, e, go_left, buf)
        left[node] = n_nodes
        right[node] = n_nodes + 1
        start[n_nodes] = s
        stop[n_nodes] = s + k
        start[n_nodes + 1] = s + k
        stop[n_nodes + 1] = e
        up[n_nodes] = node
        up[n_nodes + 1] = node
        first = n_nodes
        n_nodes += 2
        n_leaves += 1
    fitted = np.empty(n)  # the training predictions: a leaf's samples are its segment
    for q in range(n_nodes):
        if left[q] < 0:
            feature[q] = -1
            threshold[q] = 0.0
            for i in range(start[q], stop[q]):
                fitted[samples[i]] = value[q]
    return (feature[:n_nodes], threshold[:n_nodes], left[:n_nodes], right[:n_nodes],
            value[:n_nodes], fitted)


@njit(cache=True)
def _split_segments(Xt, Rt, sorted_feats, idx, samples, s, e, f, thr, go_left, buf):
    """Partition the sorted segments ``[s, e)`` of a split node (feature ``f``, threshold
    ``thr``) between its children; features constant in the node need none."""
    xr = Xt[f]
    for p in range(s, e):
        i = samples[p]
        go_left[i] = 1 if xr[i] <= thr else 0
    for r in range(sorted_feats.shape[0]):
        row = idx[r]
        xg = Rt[sorted_feats[r]]
        if xg[row[s]] != xg[row[e - 1]]:
            _partition(row, s, e, go_left, buf)


@njit(cache=True)
def apply_tree(X, feature, threshold, left, out):
    """``out[i]`` = the id of the leaf that row ``i`` of ``X`` falls into (a node's right child
    is ``left + 1``, so the descent needs no branch on the comparison)."""
    for i in range(X.shape[0]):
        q = 0
        while left[q] >= 0:
            q = left[q] + (X[i, feature[q]] > threshold[q])
        out[i] = q


@njit(cache=True)
def predict_tree(X, feature, threshold, left, value, out):
    """``out[i]`` = the value of the leaf that row ``i`` of ``X`` falls into."""
    for i in range(X.shape[0]):
        q = 0
        while left[q] >= 0:
            q = left[q] + (X[i, feature[q]] > threshold[q])
        out[i] = value[q]

"""Numba kernels that find the best split of one tree node (Morrill 2016, ch. 2, "Regression
Tree": the split that most reduces the node's error).

The split rule is scikit-learn's ``DecisionTreeRegressor``'s: a split sits between two
consecutive distinct values of a feature *within the node*, its threshold is their midpoint,
both sides keep at least ``min_leaf`` samples (and a positive weight), and among equally good
candidates the lowest feature, then the lowest threshold, wins.  Each function returns
``(gain, feature, threshold)`` with ``gain`` the decrease of the node's total weighted error
(feature -1: no valid split).

Four sweeps:

* :func:`sweep_sorted_sse` -- squared error, over each feature's samples in sorted order (the
  node's segment of the feature's presorted order); O(samples) per feature.
* :func:`sweep_small_sse` -- squared error in a node of a few samples, sorted on the spot.
* :func:`sweep_histogram_sse` -- squared error, over per-value sums (a histogram of the node's
  samples over the feature's distinct values); O(distinct values) per feature.
* :func:`sweep_sorted_sae` -- absolute error, prefix and suffix sums of absolute deviations from
  running weighted medians kept in a Fenwick tree over the ranks of ``y``; O(samples log n).

Squared-error candidates are compared by cross-multiplication, without a division in the
sweep: moving samples with sums ``(s_l, w_l)`` of a node with sums ``(S, W)`` to the left
reduces its squared error by ``t^2 / (w_l w_r W)`` with ``t = s_l W - S w_l``.

Ties are decided by a tolerance, not by rounding: a later candidate replaces the best only if
it gains more than ``TIE`` times the node's total error more.  Gains equal in exact
arithmetic (two features that part the node alike, or a sample of weight ``k`` against ``k``
copies of it, whose sums round differently) thus go to the lowest feature and threshold
whatever the summation order, which is what makes integer weights equivalent to repeated rows
(scikit-learn's ``check_sample_weight_equivalence``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

TIE = 1e-9  # gains closer than this fraction of the node's total error are ties

@njit(cache=True)
def midpoint(a, b):
    """Threshold between consecutive distinct values ``a < b``: their midpoint, or ``a`` when
    the midpoint rounds to ``b`` (``x <= threshold`` must send ``a`` left and ``b`` right)."""
    t = a / 2.0 + b / 2.0
    if t == b or np.isinf(t):
        t = a
    return t


# -- node statistics -------------------------------------------------------------------------

@njit(cache=True)
def mean_stats(samples, s, e, y, w):
    """Weighted total, mean and mean squared error of the samples ``samples[s:e]``."""
    W = 0.0
    S = 0.0
    for p in range(s, e):
        i = samples[p]
        W += w[i]
        S += w[i] * y[i]
    mean = S / W
    Q = 0.0
    for p in range(s, e):
        i = samples[p]
        dev = y[i] - mean
        Q += w[i] * dev * dev
    return W, mean, Q / W


@njit(cache=True)
def median_stats(samples, s, e, y, w):
    """Weighted total, weighted median and mean absolute error of ``samples[s:e]``.  The median
    is the smallest value whose cumulative weight reaches half the total, or the midpoint with
    the next value when it reaches exactly half (as scikit-learn; ``np.median`` unweighted)."""
    m = e - s
    ys = np.empty(m)
    for p in range(s, e):
        ys[p - s] = y[samples[p]]
    o = np.argsort(ys, kind="mergesort")
    ws = np.empty(m)
    W = 0.0
    for q in range(m):
        ws[q] = w[samples[s + o[q]]]
        W += ws[q]
    ys = ys[o]
    half = 0.5 * W
    cum = 0.0
    med = ys[m - 1]
    for q in range(m):
        cum += ws[q]
        if cum >= half:
            med = ys[q]
            if cum == half and q + 1 < m:
                med = 0.5 * (ys[q] + ys[q + 1])
            break
    A = 0.0
    for q in range(m):
        A += ws[q] * abs(ys[q] - med)
    return W, med, A / W


# -- squared error ---------------------------------------------------------------------------

@njit(cache=True)
def sweep_sorted_sse(Rt, foff, fval, feats, idx, samples, s, e, y, w, W, mean, mse, min_leaf,
                     yc):
    """Best squared-error split of the node ``[s, e)`` on the features ``feats`` (row ``r`` of
    ``idx`` holds feature ``feats[r]``'s presorted order, partitioned down to the node).
    Features are compared by their value ranks ``Rt[f]`` (rank ``r`` of feature ``f`` is the
    value ``fval[foff[f] + r]``).  Targets are centred on the node mean and scaled to unit
    variance first (``yc``)."""
    m = e - s
    scale = 1.0 / np.sqrt(mse)
    Sc = 0.0
    for p in range(s, e):
        i = samples[p]
        v = w[i] * (y[i] - mean) * scale
        yc[i] = v
        Sc += v
    best_num = -1.0
    best_den = 1.0
    bar = -1.0  # best_num + slack * best_den: what num / den must exceed to become the best
    slack = TIE * W * W  # the scaled targets' total error is W
    best_f = -1
    best_thr = 0.0
    hi = s + m - min_leaf  # last position (= s + n_left) leaving min_leaf samples on the right
    for r in range(feats.shape[0]):
        row = idx[r]
        f = feats[r]
        xr = Rt[f]
        if xr[row[s]] == xr[row[e - 1]]:
            continue  # constant in this node (and in all its descendants)
        sl = 0.0
        wl = 0.0
        i = row[s]
        xc = xr[i]
        for p in range(s + 1, s + min_leaf):  # too few samples on the left yet
            sl += yc[i]
            wl += w[i]
            i = row[p]
            xc = xr[i]
        for p in range(s + min_leaf, hi + 1):
            sl += yc[i]
            wl += w[i]
            j = row[p]
            xn = xr[j]
            t = sl * W - Sc * wl
            num = t * t
            den = wl * (W - wl)
            # one rarely taken branch: a boundary between distinct values that beats the best
            if (xn > xc) & (num * best_den > bar * den):
                if den > 0.0:
                    best_num = num
                    best_den = den
                    bar = num + slack * den
                    best_f = f
                    best_thr = midpoint(fval[foff[f] + xc], fval[foff[f] + xn])
            i = j
            xc = xn
    if best_f < 0:
        return -1.0, -1, 0.0
    return best_num / (best_den * W) * mse, best_f, best_thr


@njit(cache=True)
def sweep_small_sse(Rs, foff, fval, samples, s, e, y, w, W, mean, mse, min_leaf, rs, js):
    """Best squared-error split of a node of a few samples ``[s, e)``: per feature, its
    samples' value ranks (``Rs``, sample-major) are insertion-sorted into the scratch arrays
    ``rs``/``js`` and swept; no presorted segments or histograms needed."""
    m = e - s
    scale = 1.0 / np.sqrt(mse)
    Sc = 0.0
    for q in range(m):
        i = samples[s + q]
        Sc += w[i] * (y[i] - mean) * scale
    best_num = -1.0
    best_den = 1.0
    bar = -1.0
    slack = TIE * W * W
    best_c = -1
    best_lo = 0
    best_hi = 0
    for c in range(Rs.shape[1]):
        for q in range(m):
            i = samples[s + q]
            r = Rs[i, c]
            p = q
            while p > 0 and rs[p - 1] > r:
                rs[p] = rs[p - 1]
                js[p] = js[p - 1]
                p -= 1
            rs[p] = r
            js[p] = i
        if rs[0] == rs[m - 1]:
            continue
        sl = 0.0
        wl = 0.0
        for k in range(1, m - min_leaf + 1):
            i = js[k - 1]
            sl += w[i] * (y[i] - mean) * scale
            wl += w[i]
            t = sl * W - Sc * wl
            num = t * t
            den = wl * (W - wl)
            if ((k >= min_leaf) & (rs[k] > rs[k - 1]) & (den > 0.0)
                    & (num * best_den > bar * den)):
                best_num = num
                best_den = den
                bar = num + slack * den
                best_c = c
                best_lo = rs[k - 1]
                best_hi = rs[k]
    if best_c < 0:
        return -1.0, -1, 0.0
    o = foff[best_c]
    thr = midpoint(fval[o + best_lo], fval[o + best_hi])
    return best_num / (best_den * W) * mse, best_c, thr


@njit(cache=True)
def sweep_histogram_sse(feats, bin_off, bin_val, bin_default, hy, hw, hc, unit, W, S, C, scale2,
                        min_leaf, total):
    """Best squared-error split of a node from its histogram: for the feature ``feats[j]``,
    bins ``bin_off[j]:bin_off[j+1]`` hold its distinct values ``bin_val`` (ascending) and the
    node's per-value sums of the centred targets ``hy``, weights ``hw`` and counts ``hc`` --
    except the bin ``bin_default[j]`` (the feature's most common value), left empty: its sums
    are the node's totals ``(S, W, C)`` minus the other bins'.  Gains are multiplied by
    ``scale2`` (the targets' squared scale); ``total`` is the node's total error."""
    best_num = -1.0
    best_den = 1.0
    bar = -1.0
    slack = TIE * total * W / scale2
    best_f = -1
    best_thr = 0.0
    for j in range(feats.shape[0]):
        b0 = bin_off[j]
        b1 = bin_off[j + 1]
        d = bin_default[j]
        if b1 - b0 == 2:  # two values (indicator features): one candidate, one branch
            if d == b0:
                c = C - hc[b1 - 1]
                sl = S - hy[b1 - 1]
                wl = float(c) if unit else W - hw[b1 - 1]
            else:
                c = hc[b0]
                sl = hy[b0]
                wl = float(c) if unit else hw[b0]
            t = sl * W - S * wl
            num = t * t
            den = wl * (W - wl)
            if ((c >= min_leaf) & (C - c >= min_leaf) & (den > 0.0)
                    & (num * best_den > bar * den)):
                best_num = num
                best_den = den
                bar = num + slack * den
                best_f = feats[j]
                best_thr = midpoint(bin_val[b0], bin_val[b0 + 1])
            continue
        # the default bin's sums, then prefix sums over the bins; a boundary follows each
        # non-empty bin (its threshold, once a best is recorded: the midpoint with the next
        # non-empty bin)
        dy = S
        dc = C
        dw = W
        for b in range(b0, b1):
            dy -= hy[b]
            dc -= hc[b]
            if not unit:
                dw -= hw[b]
        sl = 0.0
        wl = 0.0
        cl = 0
        rec = -1
        for b in range(b0, b1 - 1):
            c = dc if b == d else hc[b]
            sl += dy if b == d else hy[b]
            if unit:
                wl += c
            else:
                wl += dw if b == d else hw[b]
            cl += c
            t = sl * W - S * wl
            num = t * t
            den = wl * (W - wl)
            if ((c > 0) & (cl >= min_leaf) & (C - cl >= min_leaf) & (den > 0.0)
                    & (num * best_den > bar * den)):
                best_num = num
                best_den = den
                bar = num + slack * den
                rec = b
        if rec >= 0:
            nxt = rec + 1
            while (dc if nxt == d else hc[nxt]) == 0:
                nxt += 1
            best_f = feats[j]
            best_thr = midpoint(bin_val[rec], bin_val[nxt])
    if best_f < 0:
        return -1.0, -1, 0.0
    return best_num / (best_den * W) * scale2, best_f, best_thr


# -- absolute error --------------------------------------------------------------------------

@njit(cache=True)
def _fenwick_add(fw, fwy, r, wv, wyv):
    j = r + 1
    n = fw.shape[0] - 1
    while j <= n:
        fw[j] += wv
        fwy[j] += wyv
        j += j & (-j)


@njit(cache=True)
def _fenwick_clear(fw, fwy, r):
    """Undo every insertion on the path of rank ``r`` (exactly: the entries are zeroed)."""
    j = r + 1
    n = fw.shape[0] - 1
    while j <= n:
        fw[j] = 0.0
        fwy[j] = 0.0
        j += j & (-j)


@njit(cache=True)
def _fenwick_sae(fw, fwy, top, Wt, WY, ysorted):
    """Sum of weighted absolute deviations from the weighted median of the samples in the
    Fenwick tree (total weight ``Wt``, weighted sum ``WY``; ``top`` = largest power of 2 <= n)."""
    n = fw.shape[0] - 1
    half = 0.5 * Wt
    pos = 0
    cw = 0.0
    cwy = 0.0
    step = top
    while step > 0:
        nxt = pos + step
        if nxt <= n and cw + fw[nxt] < half:
            pos = nxt
            cw += fw[nxt]
            cwy += fwy[nxt]
        step >>= 1
    med = ysorted[min(pos, n - 1)]
    return (med * cw - cwy) + ((WY - cwy) - med * (Wt - cw))


@njit(cache=True)
def sweep_sorted_sae(Rt, foff, fval, feats, idx, s, e, y, w, W, mae, min_leaf, yrank, ysorted,
                     fw, fwy, top, pre, suf, wpre):
    """Best absolute-error split of the node ``[s, e)`` (arguments as
    :func:`sweep_sorted_sse`; ``yrank``/``ysorted`` rank the targets, ``fw``/``fwy`` are an
    empty Fenwick tree over those ranks and ``pre``/``suf``/``wpre`` scratch space)."""
    m = e - s
    best = np.inf
    slack = TIE * mae * W
    best_f = -1
    best_thr = 0.0
    for r in range(feats.shape[0]):
        row = idx[r]
        f = feats[r]
        xr = Rt[f]
        if xr[row[s]] == xr[row[e - 1]]:
            continue
        Wt = 0.0
        WY = 0.0
        for p in range(s, e):
            i = row[p]
            _fenwick_add(fw, fwy, yrank[i], w[i], w[i] * y[i])
            Wt += w[i]
            WY += w[i] * y[i]
            pre[p - s] = _fenwick_sae(fw, fwy, top, Wt, WY, ysorted)
            wpre[p - s] = Wt
        for p in range(s, e):
            _fenwick_clear(fw, fwy, yrank[row[p]])
        Wt = 0.0
        WY = 0.0
        for p in range(e - 1, s - 1, -1):
            i = row[p]
            _fenwick_add(fw, fwy, yrank[i], w[i], w[i] * y[i])
            Wt += w[i]
            WY += w[i] * y[i]
            suf[p - s] = _fenwick_sae(fw, fwy, top, Wt, WY, ysorted)
        for p in range(s, e):
            _fenwick_clear(fw, fwy, yrank[row[p]])
        for k in range(min_leaf, m - min_leaf + 1):
            xa = xr[row[s + k - 1]]
            xb = xr[row[s + k]]
            if xb > xa and wpre[k - 1] > 0.0 and wpre[m - 1] - wpre[k - 1] > 0.0:
                total = pre[k - 1] + suf[k]
                if total < best - slack:
                    best = total
                    best_f = f
                    best_thr = midpoint(fval[foff[f] + xa], fval[foff[f] + xb])
    if best_f < 0:
        return -1.0, -1, 0.0
    return max(mae * W - best, 0.0), best_f, best_thr

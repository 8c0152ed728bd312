"""The work on a feature matrix that every tree fit on it reuses: sorting and ranking each
feature, and laying out histograms for the features with few distinct values."""

from __future__ import annotations

import numpy as np

from .tree_grow import SQUARED_ERROR

MAX_BINS = 48  # squared error: features with at most this many distinct values use histograms


class Layout:
    """A (checked, float64, C-ordered) feature matrix ``X`` (``n x d``) prepared for
    :func:`tree_grow.grow_tree`.

    ``Xt`` holds the features as rows and ``order`` each row's stable argsort; ``fval[foff[f]:
    foff[f+1]]`` are feature ``f``'s distinct values (ascending) and ``Rt`` (feature-major) /
    ``Rs`` (sample-major) the rank of every value among them.
    """

    def __init__(self, X: np.ndarray) -> None:
        self.X = X
        self.shape = X.shape
        self.Xt = np.ascontiguousarray(X.T)
        self.order = np.argsort(self.Xt, axis=1, kind="stable").astype(np.int32)
        values = [np.unique(col) for col in self.Xt]
        self.counts = np.array([v.size for v in values])
        dtype = np.int16 if self.counts.max() <= np.iinfo(np.int16).max else np.int32
        self.Rt = np.array([np.searchsorted(v, col) for v, col in zip(values, self.Xt,
                                                                      strict=True)], dtype=dtype)
        self.Rs = np.ascontiguousarray(self.Rt.T)
        self.foff = np.zeros(self.counts.size + 1, dtype=np.int64)
        self.foff[1:] = np.cumsum(self.counts)
        self.fval = np.concatenate(values)
        self.ones = np.ones(X.shape[0])
        self._plans: dict[int, tuple[np.ndarray, ...]] = {}

    def plan(self, criterion: int) -> tuple[np.ndarray, ...]:
        """The feature arguments of ``grow_tree`` for ``criterion``: ``(sorted_feats, order,
        binned_feats, bin_off, bin_val, bin_default, nz_ptr, nz_bin, Rt, Rs, foff, fval)``.

        Features constant over all samples are left out.  With squared error the features
        with at most ``MAX_BINS`` distinct values are searched by histograms, the others by
        sorted sweeps (absolute error: all by sorted sweeps).
        """
        if criterion not in self._plans:
            self._plans[criterion] = self._make_plan(criterion)
        return self._plans[criterion]

    def _make_plan(self, criterion: int) -> tuple[np.ndarray, ...]:
        counts = self.counts
        binned = np.flatnonzero((counts >= 2) & (counts <= MAX_BINS))
        if criterion != SQUARED_ERROR:
            binned = binned[:0]
        swept = np.setdiff1d(np.flatnonzero(counts >= 2), binned)
        return (swept.astype(np.int64), np.ascontiguousarray(self.order[swept]),
                *self._histogram_layout(binned), self.Rt, self.Rs, self.foff, self.fval)

    def _histogram_layout(self, binned: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(binned_feats, bin_off, bin_val, bin_default, nz_ptr, nz_bin)``: feature
        ``binned[j]`` owns bins ``bin_off[j]:bin_off[j+1]`` (values ``bin_val``), its most
        common value's bin is ``bin_default[j]``, and ``nz_bin[nz_ptr[i]:nz_ptr[i+1]]`` are
        sample ``i``'s bins other than the default ones."""
        n = self.shape[0]
        off = np.zeros(binned.size + 1, dtype=np.int64)
        off[1:] = np.cumsum(self.counts[binned])
        vals = np.concatenate([self.fval[self.foff[f]:self.foff[f + 1]] for f in binned]
                              + [np.zeros(0)])
        default = np.zeros(binned.size, dtype=np.int64)
        rows, bins = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
        for j, f in enumerate(binned):
            local = self.Rt[f].astype(np.int64)
            mode = int(np.argmax(np.bincount(local)))
            default[j] = off[j] + mode
            keep = np.flatnonzero(local != mode)
            rows.append(keep)
            bins.append(off[j] + local[keep])
        rows_all, bins_all = np.concatenate(rows), np.concatenate(bins)
        nz_bin = bins_all[np.argsort(rows_all, kind="stable")].astype(np.int32)
        nz_ptr = np.zeros(n + 1, dtype=np.int64)
        nz_ptr[1:] = np.cumsum(np.bincount(rows_all, minlength=n))
        return binned.astype(np.int64), off, vals, default, nz_ptr, nz_bin

"""Deep CFR's traversals over a compiled tree (either form), through the :class:`Form`
contract: the strategy of every information set is a table computed once per iteration from
the networks (one batched network call per player), so a traversal is the form's own numba pass
(external sampling, Lanctot et al. 2009; Brown et al. 2019, Alg. 2, or the full-width pass)
over that table, and its samples are read off the pass:

* advantage rows: the traverser's sampled regrets ``v(I, a) - v(I)`` at the information sets
  the pass touched (the pass lists them in ``work.touched``; a touched set whose regrets are
  all zero is still a sample), one row per information set and traversal;
* strategy rows: the average-strategy increments the pass adds (the opponent's strategy at the
  information sets external sampling visits, Brown et al. 2019, Alg. 2; the updating player's,
  weighted by its reach, in the full-width pass), one row per information set and traversal,
  weighted by its increment (the number of visits, or the reach).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit


@njit(cache=True)
def regret_matching(values, known, num_actions, argmax, out):
    """Rows of ``values`` (advantages, padded) to strategies by regret matching (Hart &
    Mas-Colell 2000); where no advantage is positive, the highest-advantage action (``argmax``,
    Brown et al. 2019, sec. 4) or uniform; unknown rows (no estimate yet): uniform."""
    for i in range(values.shape[0]):
        na = num_actions[i]
        total = 0.0
        for j in range(na):
            if values[i, j] > 0.0:
                total += values[i, j]
        for j in range(values.shape[1]):
            out[i, j] = 0.0
        if known[i] and total > 0.0:
            for j in range(na):
                out[i, j] = values[i, j] / total if values[i, j] > 0.0 else 0.0
        elif known[i] and argmax:
            best = 0
            for j in range(1, na):
                if values[i, j] > values[i, best]:
                    best = j
            out[i, best] = 1.0
        else:
            for j in range(na):
                out[i, j] = 1.0 / na


@njit(cache=True)
def scatter_rows(rows, seq_start, num_actions, info_lo, strategy):
    """Write padded per-information-set rows into a per-sequence ``strategy``."""
    for i in range(rows.shape[0]):
        s0 = seq_start[info_lo + i]
        for j in range(num_actions[info_lo + i]):
            strategy[s0 + j] = rows[i, j]


@njit(cache=True, inline="always")
def _write_row(k, i, inst, seq_start, num_actions, info_lo, out_info, out_rows):
    """Row ``k``: information set ``i``'s index among its player's and its sequences' values
    from ``inst``, padded with zeros to the widest information set."""
    s0 = seq_start[i]
    out_info[k] = i - info_lo
    for j in range(out_rows.shape[1]):
        out_rows[k, j] = inst[s0 + j] if j < num_actions[i] else 0.0


@njit(cache=True)
def touched_rows(touched, inst, seq_start, num_actions, info_lo, info_hi, out_info, out_rows,
                 k0):
    """Append the rows of the touched information sets (``touched`` up to its first -1, reset
    to -1 as read) of the player ``[info_lo, info_hi)``; returns the new row count."""
    nt = 0
    while nt < touched.shape[0] and touched[nt] >= 0:
        nt += 1
    if k0 + nt > out_info.shape[0]:
        return -1
    k = k0
    for m in range(nt):
        i = touched[m]
        touched[m] = -1
        if i < info_lo or i >= info_hi:
            continue
        _write_row(k, i, inst, seq_start, num_actions, info_lo, out_info, out_rows)
        k += 1
    return k


@njit(cache=True)
def all_rows(inst, seq_start, num_actions, info_lo, info_hi, out_info, out_rows, k0):
    """Append a row for every information set of ``[info_lo, info_hi)`` (a full-width pass)."""
    k = k0
    for i in range(info_lo, info_hi):
        _write_row(k, i, inst, seq_start, num_actions, info_lo, out_info, out_rows)
        k += 1
    return k


@njit(cache=True)
def increment_rows(avg, strategy, seq_start, num_actions, info_lo, info_hi, out_info, out_rows,
                   out_weight, k0):
    """Append a strategy row for every information set of ``[info_lo, info_hi)`` whose
    average-strategy increments ``avg`` are positive (weight: their sum), zeroing ``avg``."""
    need = 0
    for i in range(info_lo, info_hi):
        s0 = seq_start[i]
        for j in range(num_actions[i]):
            if avg[s0 + j] > 0.0:
                need += 1
                break
    if k0 + need > out_info.shape[0]:
        return -1
    k = k0
    for i in range(info_lo, info_hi):
        s0 = seq_start[i]
        na = num_actions[i]
        w = 0.0
        for j in range(na):
            w += avg[s0 + j]
        if w <= 0.0:
            continue
        out_info[k] = i - info_lo
        out_weight[k] = w
        for j in range(out_rows.shape[1]):
            out_rows[k, j] = strategy[s0 + j] if j < na else 0.0
        for j in range(na):
            avg[s0 + j] = 0.0
        k += 1
    return k


class Samples:
    """Growing row buffers (information set, padded target, weight)."""

    def __init__(self, width: int, size: int = 1024) -> None:
        self.info = np.zeros(size, dtype=np.int32)
        self.rows = np.zeros((size, width))
        self.weight = np.ones(size)
        self.n = 0

    def grow(self) -> None:
        size = 2 * len(self.info)
        for name in ("info", "rows", "weight"):
            old = getattr(self, name)
            new = np.ones((size, *old.shape[1:]), dtype=old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)

    def view(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.info[:self.n], self.rows[:self.n], self.weight[:self.n]


def traverse(tree: Any, pass_: Any, player: int, strategy: np.ndarray, count: int,
             sampled: bool, width: int, strategy_rows: bool = True
             ) -> tuple[Samples, list[Samples], int]:
    """``count`` traversals for ``player`` at the fixed per-sequence ``strategy``: its
    advantage rows, both players' strategy rows (none unless ``strategy_rows``) and the
    histories visited."""
    seq_start, num_actions = tree.infoset_seq_start, tree.infoset_num_actions
    bounds = (0, tree.num_infosets_per_player[0], tree.num_infosets)
    lo, hi = bounds[player], bounds[player + 1]
    S = tree.num_sequences
    inst = np.zeros(S)
    avg = np.zeros(S)
    adv = Samples(width)
    strat = [Samples(width), Samples(width)]
    touched = pass_.work.touched if sampled else None
    if touched is not None:
        touched[:] = -1
    nodes = 0
    for _ in range(count):
        nodes += int(pass_.run((player,), strategy, 1.0, avg, inst))
        while True:
            if sampled:
                k = touched_rows(touched, inst, seq_start, num_actions, lo, hi, adv.info,
                                 adv.rows, adv.n)
            else:
                k = adv.n + (hi - lo)
                if k <= len(adv.info):
                    k = all_rows(inst, seq_start, num_actions, lo, hi, adv.info, adv.rows,
                                 adv.n)
                else:
                    k = -1
            if k >= 0:
                adv.n = k
                break
            adv.grow()  # (touched is intact: rows are reset only as they are appended)
        for q in (0, 1) if strategy_rows else ():
            while True:
                k = increment_rows(avg, strategy, seq_start, num_actions, bounds[q],
                                   bounds[q + 1], strat[q].info, strat[q].rows,
                                   strat[q].weight, strat[q].n)
                if k >= 0:
                    strat[q].n = k
                    break
                strat[q].grow()
    return adv, strat, nodes

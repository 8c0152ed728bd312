"""Distribution-aware buckets of the 1,326 hold'em combos: earth mover's distance k-means on
equity histograms (Johanson, Burch, Valenzano & Bowling 2013, "Evaluating state-space
abstractions in extensive-form games"; Ganzfried & Sandholm 2014), for card abstractions of
spots beside the E[HS²] percentiles of :mod:`.spot_buckets`.

On a flop or turn board a combo's *equity histogram* is the distribution, over every runout
to the river, of its river hand strength HS (:func:`.spot_buckets.river_hs_num`: the share of
the 990 opponent hands it beats, ties counting half), in :data:`BINS` equal bins of [0, 1].
Two combos of equal E[HS²] can have very different histograms (a made hand against a draw);
E[HS²] merges them, the histogram keeps them apart.

Between two histograms on a line the earth mover's distance is the L1 distance between their
cumulative distributions (times the bin width), so the clustering works on the CDFs: each
combo goes to the centre nearest in L1, each centre becomes the coordinate-wise median of its
combos' CDFs (the point that minimises the summed L1 distance; a median of non-decreasing
vectors is non-decreasing, so it is a CDF too), until no combo moves: Lloyd's iteration for
the EMD objective itself (k-medians on the CDFs), not the squared-Euclidean k-means of
scikit-learn.  Centres start by k-means++ seeding (Arthur & Vassilvitskii 2007) under the
same distance, from a fixed seed, so the buckets are deterministic; identical CDFs (suit
isomorphs) always share a bucket.  Buckets are numbered by their centre's mean equity,
weakest first.  On the river a histogram is a single point and EMD is the difference of HS,
so the river keeps :func:`.spot_buckets.ehs2_buckets` (percentiles of HS², the same order).
On the flop the histogram is over the river equity too (Johanson et al.'s
"distribution-aware" abstraction), not over the turn's clusters as in Ganzfried & Sandholm's
potential-aware abstraction, whose ground distance between clusters is not a line's.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ...core.errors import RcfrError
from .combos import NUM_CARDS, NUM_COMBOS, live_combos
from .spot_buckets import among_key, ehs2_buckets, live_among, river_hs_num

BINS = 50  # equity bins of a histogram
SEED = 0  # the seeding's random generator
MAX_ROUNDS = 200  # Lloyd rounds at most (they stop when no combo moves)
HS_SCALE = 1980  # 2 * 990 opponent hands: river_hs_num / HS_SCALE is HS in [0, 1]


@functools.lru_cache(maxsize=4096)
def _river_bins(board: tuple[int, ...]) -> np.ndarray:
    """Each combo's HS bin on the five-card ``board`` (-1 where the board blocks it)."""
    hs = river_hs_num(board) / HS_SCALE
    out = np.minimum((hs * BINS).astype(np.int64), BINS - 1)
    out[~live_combos(board)] = -1
    return out


@functools.lru_cache(maxsize=256)
def equity_cdfs(board: tuple[int, ...]) -> np.ndarray:
    """``[1326, BINS]``: each combo's cumulative equity histogram on a flop or turn ``board``
    over every runout to the river (zeros where the board blocks the combo)."""
    board = tuple(sorted(board))
    if len(board) not in (3, 4):
        raise RcfrError(f"equity histograms need a flop or turn board, not {len(board)} cards")
    left = [c for c in range(NUM_CARDS) if c not in board]
    counts = np.zeros((NUM_COMBOS, BINS))
    rows = np.arange(NUM_COMBOS)
    for runout in itertools.combinations(left, 5 - len(board)):
        b = _river_bins(tuple(sorted(board + runout)))
        ok = b >= 0
        np.add.at(counts, (rows[ok], b[ok]), 1.0)
    total = counts.sum(axis=1, keepdims=True)
    cdf = np.cumsum(np.divide(counts, total, out=np.zeros_like(counts), where=total > 0), axis=1)
    cdf.flags.writeable = False
    return cdf


def _l1(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """``[points, centres]`` L1 distances."""
    return np.abs(points[:, None, :] - centres[None, :, :]).sum(axis=2)


def emd_kmedians(cdfs: np.ndarray, k: int, seed: int = SEED) -> np.ndarray:
    """Cluster the rows of ``cdfs`` (CDFs over equal bins) into at most ``k`` groups under the
    L1 distance between CDFs, the 1-D earth mover's distance (module docstring); returns each
    row's group, 0 to ``groups - 1``, numbered by the centres' mean equity."""
    cdfs = np.asarray(cdfs, dtype=np.float64)
    distinct = np.unique(cdfs, axis=0)
    k = min(int(k), distinct.shape[0])
    rng = np.random.default_rng(seed)
    centres = [distinct[rng.integers(distinct.shape[0])]]  # k-means++ seeding, L1 distance
    near = _l1(distinct, np.array(centres))[:, 0]
    while len(centres) < k:
        pick = int(rng.choice(distinct.shape[0], p=near / near.sum()))
        centres.append(distinct[pick])
        near = np.minimum(near, np.abs(distinct - distinct[pick]).sum(axis=1))
    centres = np.array(centres)
    assign = np.full(cdfs.shape[0], -1)
    for _ in range(MAX_ROUNDS):
        new = np.argmin(_l1(cdfs, centres), axis=1)
        if np.array_equal(new, assign):
            break
        assign = new
        for j in range(k):
            members = cdfs[assign == j]
            if members.shape[0]:
                centres[j] = np.median(members, axis=0)
    used = np.unique(assign)
    equity = (1.0 - centres[used]).sum(axis=1)  # mean equity in bins, up to a constant
    rank = np.empty(used.size, dtype=np.int64)
    rank[np.argsort(equity, kind="stable")] = np.arange(used.size)
    relabel = np.full(k, -1, dtype=np.int64)
    relabel[used] = rank
    return relabel[assign]


def emd_buckets(board: tuple[int, ...], buckets: int,
                among: np.ndarray | None = None) -> np.ndarray:
    """The bucket, 0 to ``buckets - 1``, of every combo on ``board``: EMD clusters of the
    equity histograms of the live combos (of ``among``, where given) on a flop or turn, the
    E[HS²] percentiles on a river (0 where the board blocks the combo or ``among`` leaves it
    out)."""
    if len(board) == 5:
        return ehs2_buckets(board, buckets, among)
    return _emd(tuple(sorted(board)), int(buckets), among_key(among))


@functools.lru_cache(maxsize=4096)
def _emd(board: tuple[int, ...], buckets: int, among: bytes | None) -> np.ndarray:
    live = live_among(board, among)
    out = np.zeros(NUM_COMBOS, dtype=np.int64)
    if live.size:
        out[live] = emd_kmedians(equity_cdfs(board)[live], buckets)
    out.flags.writeable = False
    return out


def emd_classes(board: tuple[int, ...], first: int, buckets: int,
                among: np.ndarray | None = None) -> np.ndarray:
    """Each combo's class on ``board`` (the spot's ``first`` cards, then the cards dealt in
    order): its :func:`emd_buckets` sequence over the streets so far, ``sum_s b_s *
    buckets^(S - 1 - s)`` (perfect recall, as :func:`.spot_buckets.bucket_classes`)."""
    out = np.zeros(NUM_COMBOS, dtype=np.int64)
    for n in range(first, len(board) + 1):
        out = out * buckets + emd_buckets(tuple(board[:n]), buckets, among)
    return out

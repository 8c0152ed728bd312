"""Features of any game (Morrill 2016; D'Orazio et al. 2019, sec. 5): ``onehot`` (one column
per sequence: a regressor can be tabular) and ``hashing:K`` (tug-of-war hashing of the
information state into ``K`` partitions of 10 buckets), and the column reduction that leaves a
regression tree's fit unchanged (:func:`tree_equivalent_columns`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.budget import check_matrix
from ..core.errors import RcfrError
from ..forms.base import Form
from .registry import register_features

ONEHOT_LIMIT = 8192  # one-hot matrices are dense: 8192 rows are 0.5 GB


HASH_BUCKETS = 10  # buckets per tug-of-war partition (D'Orazio et al. 2019)


# -- onehot ---------------------------------------------------------------------------------
def _onehot(n: int, what: str) -> np.ndarray:
    if n > ONEHOT_LIMIT:
        raise RcfrError(f"one-hot features for {n:,} {what} would be a dense {n:,} x {n:,} "
                        f"matrix; use hashing:K (or a tabular regressor) for a game this size")
    return np.eye(n)


def _onehot_rows(n: int, idx: np.ndarray) -> np.ndarray:
    out = np.zeros((idx.size, n))
    out[np.arange(idx.size), idx] = 1.0
    return out


# -- hashing:K ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Hashed:
    """A player's tug-of-war codes per information set, and its sequences' information sets
    and actions."""

    bucket: np.ndarray
    sign: np.ndarray
    info: np.ndarray  # local information set of each sequence
    action: np.ndarray  # index of each sequence's action among the player's action ids
    num_actions: int


def _hashing_prepare(tree: Form, player: int, k: int, seed: int) -> _Hashed:
    from ..regressors.tug_of_war import tug_of_war_codes

    keys = [tree.infoset_keys[i] for i in tree.player_infosets(player)]
    # sized as the dense matrix the codes stand for (building the codes is itself O(keys x k))
    check_matrix(len(keys), HASH_BUCKETS * k, f"hashing:{k} features for {tree.game}")
    bucket, sign = tug_of_war_codes(keys, k, buckets=HASH_BUCKETS, seed=seed + 7919 * player)
    seqs = tree.player_sequences(player)
    info = tree.seq_infoset[seqs.start:seqs.stop] - tree.player_infosets(player).start
    ids, action = np.unique(tree.seq_action[seqs.start:seqs.stop], return_inverse=True)
    return _Hashed(bucket, sign, info, action, ids.size)


def _hashing_rows(h: _Hashed, idx: np.ndarray) -> np.ndarray:
    from ..regressors.tug_of_war import tug_of_war_rows

    info = h.info[idx]
    onehot = np.zeros((idx.size, h.num_actions))
    onehot[np.arange(idx.size), h.action[idx]] = 1.0
    return np.hstack([tug_of_war_rows(h.bucket[info], h.sign[info], HASH_BUCKETS), onehot])


def _hashing_sequences(tree: Form, player: int, k: int, seed: int) -> np.ndarray:
    n = len(tree.player_sequences(player))
    check_matrix(n, HASH_BUCKETS * k, f"hashing:{k} features for {tree.game}")
    return _hashing_rows(_hashing_prepare(tree, player, k, seed), np.arange(n))


def _hashing_infosets(tree: Form, player: int, k: int, seed: int) -> np.ndarray:
    from ..regressors.tug_of_war import tug_of_war_rows

    check_matrix(len(tree.player_infosets(player)), HASH_BUCKETS * k,
                 f"hashing:{k} features for {tree.game}")
    h = _hashing_prepare(tree, player, k, seed)
    return tug_of_war_rows(h.bucket, h.sign, HASH_BUCKETS)


def tree_equivalent_columns(X: np.ndarray) -> np.ndarray:
    """Indices of the columns of ``X`` a regression tree needs: constant columns and columns
    that order the rows exactly as an earlier one does (or exactly reversed, like an indicator
    and its complement) offer the same splits, so dropping them leaves every tree's candidate
    partitions, and so its fit, unchanged (up to ties between equal splits)."""
    seen: set[bytes] = set()
    keep = []
    for j in range(X.shape[1]):
        codes = np.unique(X[:, j], return_inverse=True)[1].astype(np.int32)
        top = int(codes.max(initial=0))
        if top == 0:
            continue
        forward, backward = codes.tobytes(), (top - codes).tobytes()
        if forward in seen or backward in seen:
            continue
        seen.add(forward)
        keep.append(j)
    return np.asarray(keep, dtype=np.int64)


register_features("onehot", lambda tree, player, k, seed: _onehot(
    len(tree.player_sequences(player)), "sequences"),
    prepare=lambda tree, player, k, seed: len(tree.player_sequences(player)), rows=_onehot_rows,
    infosets=lambda tree, player, k, seed: _onehot(len(tree.player_infosets(player)),
                                                   "information sets"))
register_features("hashing", _hashing_sequences, prepare=_hashing_prepare, rows=_hashing_rows,
                  infosets=_hashing_infosets, param=True)

"""``infostate``: OpenSpiel's information-state tensor (:mod:`rcfr.games.infostate`: Kuhn
poker, Leduc hold'em, ``openspiel:`` games) as information-set features -- the observation
NFSP's networks read, and what OpenSpiel's ``rl_environment`` hands its agents.

Per sequence, the row is followed by a one-hot of the action (as ``hashing:K``).  The rows are
read off one history of each information set (the history form); the tensor is a function of
the information set, so any history of it gives the same row.
"""

from __future__ import annotations

import numpy as np

from ..forms.base import KIND_CHANCE, Form
from ..games.infostate import INFOSTATE_GAMES, infostate_size, infostate_tensor
from .registry import register_features


def _path(tree: Form, node: int) -> tuple[list[int], list[bool]]:
    actions, chance = [], []
    while node > 0:
        parent = int(tree.node_parent[node])
        actions.append(int(tree.node_action[node]))
        chance.append(int(tree.node_kind[parent]) == KIND_CHANCE)
        node = parent
    return actions[::-1], chance[::-1]


def _infosets(tree: Form, player: int, k: int, seed: int) -> np.ndarray:
    infos = tree.player_infosets(player)
    node_info = np.asarray(tree.node_infoset)
    decision = np.flatnonzero((node_info >= infos.start) & (node_info < infos.stop))
    first = np.full(len(infos), -1, dtype=np.int64)
    local = node_info[decision] - infos.start
    first[local[::-1]] = decision[::-1]  # the first history of each information set
    out = np.zeros((len(infos), infostate_size(tree.game)))
    for i, node in enumerate(first):
        out[i] = infostate_tensor(tree.game, *_path(tree, int(node)), player)
    return out


def _sequences(tree: Form, player: int, k: int, seed: int) -> np.ndarray:
    rows = _infosets(tree, player, k, seed)
    infos, seqs = tree.player_infosets(player), tree.player_sequences(player)
    info = np.asarray(tree.seq_infoset[seqs.start:seqs.stop]) - infos.start
    action = np.arange(len(seqs)) - (np.asarray(tree.infoset_seq_start)[info + infos.start]
                                     - seqs.start)
    width = int(np.max(tree.infoset_num_actions))
    onehot = np.zeros((len(seqs), width))
    onehot[np.arange(len(seqs)), action] = 1.0
    return np.hstack([rows[info], onehot])


register_features("infostate", _sequences, infosets=_infosets, games=INFOSTATE_GAMES,
                  games_text="kuhn, leduc and openspiel: games", history_only=True)

"""The training set of a distillation (Bertsimas & Paskov 2021): one row per information set
of a player, its features, the strategy's probabilities over the player's actions, which
actions are legal there, its weight and its betting round."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import RcfrError
from ..evaluate import realization_plans
from ..features import feature_provider, infoset_features, sequence_features
from ..forms.base import KIND_CHANCE, Form
from ..policy import TabularPolicy
from .feature_names import feature_names

WEIGHTS = ("reach", "uniform")


@dataclass(frozen=True)
class TrainingSet:
    """``player``'s information sets (``infosets``, global indices): features ``X``, target
    probabilities ``Y`` over ``actions`` (the player's action ids; zero where illegal),
    ``legal`` (bool, as ``Y``), ``weight`` per row and ``round`` per row; each of the
    player's sequences is ``Y[seq_row, seq_col]``."""

    player: int
    infosets: np.ndarray
    X: np.ndarray
    Y: np.ndarray
    legal: np.ndarray
    weight: np.ndarray
    round: np.ndarray
    actions: np.ndarray
    action_names: list[str]
    names: list[str]
    seq_row: np.ndarray
    seq_col: np.ndarray


def infoset_rounds(tree: Form) -> np.ndarray:
    """The betting round of every information set: the runs of chance events on the way to
    it (consecutive chance nodes deal one round's cards, one node per card in the history form
    or one public node for them all in the public form), less those before the game's first
    decision, so both forms number the rounds alike."""
    kind, parent = np.asarray(tree.node_kind), np.asarray(tree.node_parent)
    step = np.zeros(kind.shape[0], dtype=np.int64)
    # the edge into node n closes a run of chance events: chance's edge into a non-chance node
    step[1:] = (kind[parent[1:]] == KIND_CHANCE) & (kind[1:] != KIND_CHANCE)
    chance, up = step.copy(), parent.astype(np.int64)
    while (up > 0).any():  # add each ancestor's step: one pass per level of the tree
        live = up > 0
        chance[live] += step[up[live]]
        up = np.where(live, parent[np.maximum(up, 0)], 0)
    per_infoset = chance[np.asarray(tree.infoset_node)]
    return per_infoset - (per_infoset.min() if per_infoset.size else 0)


def _infoset_rows(tree: Form, player: int, spec: str) -> tuple[np.ndarray, np.ndarray]:
    """Features per information set and the kept columns of the provider's matrix: the
    provider's own information-set features, else the columns of its sequence features that
    are constant within every information set (those that describe the set, not the action),
    read off each set's first sequence."""
    if feature_provider(spec).infosets is not None:
        X = np.asarray(infoset_features(tree, player, spec), dtype=np.float64)
        return X, np.arange(X.shape[1])
    S = sequence_features(tree, player, spec)
    infos, seqs = tree.player_infosets(player), tree.player_sequences(player)
    info = np.asarray(tree.seq_infoset[seqs.start:seqs.stop]) - infos.start
    first = np.asarray(tree.infoset_seq_start[infos.start:infos.stop]) - seqs.start
    same = np.all(S == S[first[info]], axis=0)
    keep = np.flatnonzero(same)
    if keep.size == 0:
        keep = np.arange(1)
    return S[first][:, keep], keep


def training_set(tree: Form, policy: TabularPolicy, player: int, features: str,
                 weights: str = "reach") -> TrainingSet:
    """The rows of ``player``: weight ``"reach"`` is the player's own reach of the set (the
    product of its own probabilities on the way, as the strategy viewer shows it), or
    ``"uniform"`` (one per set)."""
    if weights not in WEIGHTS:
        raise RcfrError(f"unknown weights {weights!r}; use one of {', '.join(WEIGHTS)}")
    infos = tree.player_infosets(player)
    seqs = tree.player_sequences(player)
    X, keep = _infoset_rows(tree, player, features)
    seq_action = np.asarray(tree.seq_action[seqs.start:seqs.stop])
    actions, column = np.unique(seq_action, return_inverse=True)
    info = np.asarray(tree.seq_infoset[seqs.start:seqs.stop]) - infos.start
    Y = np.zeros((len(infos), actions.size))
    legal = np.zeros((len(infos), actions.size), dtype=bool)
    Y[info, column] = policy.probs[seqs.start:seqs.stop]
    legal[info, column] = True
    names_of = {}
    for s, c in zip(range(seqs.start, seqs.stop), column, strict=True):
        names_of.setdefault(int(c), str(tree.seq_action_names[s]))
    if weights == "reach":
        plan = realization_plans(tree, policy.probs)
        w = np.asarray(plan[np.asarray(tree.infoset_parent_seq[infos.start:infos.stop])],
                       dtype=np.float64)
    else:
        w = np.ones(len(infos))
    rounds = infoset_rounds(tree)[infos.start:infos.stop]
    keys = [tree.infoset_keys[i] for i in infos]
    return TrainingSet(player, np.arange(infos.start, infos.stop), X, Y, legal, w, rounds,
                       actions, [names_of[c] for c in range(actions.size)],
                       feature_names(tree, player, features, keep, X.shape[1], keys),
                       info, column)

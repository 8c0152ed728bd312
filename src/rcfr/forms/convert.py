"""Strategies between the two compiled forms of one game: information sets and sequences
matched by information-state string, so a conversion copies each set's probabilities exactly."""

from __future__ import annotations

import numpy as np

from ..core.errors import RcfrError
from .base import Form
from .compile import compile_game


def infoset_map(source, target) -> np.ndarray:
    """``m[i]``: the information set of ``source`` with ``target``'s information set ``i``'s
    key (both trees of one game, in either form)."""
    m = np.empty(target.num_infosets, dtype=np.int64)
    for p in (0, 1):
        src, dst = source.player_infosets(p), target.player_infosets(p)
        sk = np.array(source.infoset_keys[src.start : src.stop])
        tk = np.array(target.infoset_keys[dst.start : dst.stop])
        order = np.argsort(sk)
        pos = np.minimum(np.searchsorted(sk[order], tk), max(len(sk) - 1, 0))
        found = order[pos] if len(sk) else pos
        if len(sk) != len(tk) or (len(tk) and np.any(sk[found] != tk)):
            raise RcfrError(f"the two trees of {target.game} have different information sets")
        m[dst.start : dst.stop] = src.start + found
    if not np.array_equal(source.infoset_num_actions[m], target.infoset_num_actions):
        raise RcfrError(f"the two trees of {target.game} have different actions")
    starts = np.repeat(source.infoset_seq_start[m], target.infoset_num_actions)
    offsets = (np.arange(target.num_sequences)
               - np.repeat(target.infoset_seq_start, target.infoset_num_actions))
    if not np.array_equal(source.seq_action[starts + offsets], target.seq_action):
        raise RcfrError(f"the two trees of {target.game} have different actions")
    return m


def sequence_map(source, target) -> np.ndarray:
    """``m[s]``: the sequence of ``source`` that is ``target``'s sequence ``s``."""
    m = infoset_map(source, target)
    return (np.repeat(source.infoset_seq_start[m], target.infoset_num_actions)
            + np.arange(target.num_sequences)
            - np.repeat(target.infoset_seq_start, target.infoset_num_actions))


def convert_probs(probs: np.ndarray, source: Form, target: Form) -> np.ndarray:
    """A behavioural profile of ``source`` as the same profile on ``target`` (the game's other
    compiled form): each information set's probabilities are copied, so the conversion is
    exact."""
    if source is target:
        return probs
    if str(source.game) != str(target.game):
        raise RcfrError(f"the policy is for {source.game}, not for {target.game}")
    return probs[sequence_map(source, target)]


def written_on(tree: Form, form: object, fingerprint: object) -> Form | None:
    """The game's compiled form that a file recording ``form`` and ``fingerprint`` was written
    on, where that is not ``tree`` (``None``: read it on ``tree``)."""
    if form == tree.form or form not in ("history", "public") or fingerprint == tree.fingerprint():
        return None
    return compile_game(tree.game, form=form)

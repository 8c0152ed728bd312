"""Readable names of the feature columns a distilled model splits on."""

from __future__ import annotations

import numpy as np

from ..features import parse_features
from ..features.holdem import HOLDEM_ACTION_NAMES, HOLDEM_NAMES
from ..forms.base import Form

_WAUGH = ["hand strength", "board rank", "board pairs", "round", "player 1 acts",
          "player 2 acts", "fold", "call", "raise", "raises round 1 by player 1",
          "raises round 1 by player 2", "raises round 2 by player 1",
          "raises round 2 by player 2", "first raiser round 1", "first raiser round 2",
          "raises this round", "pot", "pot after"]
_THESIS_EVENT = ["player 1 acts", "player 2 acts", "pot", "stack left", "fold", "call",
                 "wager", "all-in", "wager chips", "wager / pot", "wager / stack"]


def _thesis(j: int) -> str:
    if j < 2:
        return ("hand strength", "board rank")[j]
    k, c = divmod(j - 2, len(_THESIS_EVENT))
    where = "this decision" if k == 0 else f"{k} action{'s' * (k > 1)} back"
    return f"{_THESIS_EVENT[c]} ({where})"


def feature_names(tree: Form, player: int, spec: str, keep: np.ndarray, width: int,
                  keys: list[str]) -> list[str]:
    """One name per column: the provider's meaning where rcfr knows it (``waugh``,
    ``holdem``, ``thesis``, ``thesis-relative``, ``onehot``), else ``x[j]``."""
    name, _ = parse_features(spec)
    if name == "onehot":
        return [f"at {k!r}" for k in keys]
    if name == "waugh":
        return [_WAUGH[j] for j in keep]
    if name == "holdem":
        return [(HOLDEM_NAMES + HOLDEM_ACTION_NAMES)[j] for j in keep]
    if name in ("thesis", "thesis-relative"):
        out = [_thesis(int(j)) for j in keep]
        if name == "thesis-relative":
            out = [n.replace("player 1 acts", "I act").replace("player 2 acts", "opponent acts")
                   for n in out]
        return out
    return [f"x[{j}]" for j in range(width)]

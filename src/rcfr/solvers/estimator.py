"""The regret-estimator contract of the solver loop (ARCHITECTURE.md, RegretEstimator)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class RegretEstimator(Protocol):
    """What the solver loop needs of a regret estimator.

    Arrays are over all sequences of the game (:mod:`rcfr.forms.history.tree`'s order); a method
    called for
    ``player`` reads and writes only that player's slice ``tree.player_sequences(player)``.

    * ``rule``: the :class:`~rcfr.core.rules.UpdateRule` (or its spec string) by which the
      estimator absorbs regrets; the solver records it and takes its average weighting.
      ``None`` lets the solver's ``rule`` decide.
    * ``initialize(tree)``: allocate for a compiled game.
    * ``update(player, regrets, iteration)``: absorb ``player``'s instantaneous counterfactual
      regrets of iteration ``iteration`` (1-based).
    * ``predict(player)``: the values the link turns into ``player``'s next strategy.
    * ``state()`` / ``load_state(arrays)``: arrays for checkpoints (``KeyError`` or
      ``ValueError`` on arrays that do not fit).
    * ``complexity``: the estimator's size (table entries, leaves or weights).
    """

    rule: Any

    def initialize(self, tree: Any) -> None: ...

    def update(self, player: int, regrets: np.ndarray, iteration: int) -> None: ...

    def predict(self, player: int) -> np.ndarray: ...

    def state(self) -> dict[str, np.ndarray]: ...

    def load_state(self, arrays: dict[str, np.ndarray]) -> None: ...

    @property
    def complexity(self) -> int: ...

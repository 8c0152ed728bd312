"""A strategy for play that answers an opponent's bet off the blueprint's action abstraction
by nested re-solving (Brown & Sandholm 2017, sec. 6) when play first reaches it, instead of
by translation (:func:`rcfr.subgame.offtree.nested_resolve_spot`)."""

from __future__ import annotations

from collections.abc import Callable

from ..forms.compile import compile_game
from ..games.holdem.spot_game import SpotGame
from ..games.protocol import State
from ..policy import TabularPolicy
from .offtree import nested_resolve_spot, off_tree_lines


class NestedResponder:
    """Plays ``policy`` (a strategy of a real-card spot, lifted from its action abstraction
    ``abstract``); the first time ``opponent`` makes a bet the abstraction lacks, the subgame
    that bet starts is re-solved with ``method`` from the strategy played so far, and played
    from then on (``notify`` hears of each re-solve).  Off-tree bets below one already
    re-solved are the re-solved strategy's own actions: nothing is translated there."""

    def __init__(self, policy: TabularPolicy, abstract: SpotGame, opponent: int,
                 method: str = "resolve", *, iterations: int = 1000, algorithm: str = "cfr+",
                 notify: Callable[[str], None] | None = None) -> None:
        self.policy = policy
        self.tree = policy.tree
        self.abstract = abstract
        self.method, self.iterations, self.algorithm = method, iterations, algorithm
        self.notify = notify
        self.resolved: list[tuple] = []
        self._lines = set(off_tree_lines(self.tree.game, abstract, opponent))
        self._public: TabularPolicy | None = None

    def _line(self, state: State) -> tuple | None:
        """The off-tree bet at the start of ``state``'s betting line, if any."""
        line = tuple("deal" if isinstance(t, int) else t for t in state.line)
        return next((line[:k] for k in range(1, len(line) + 1) if line[:k] in self._lines),
                    None)

    def action_probabilities(self, state: State, player: int | None = None) -> dict[int, float]:
        """``{action: probability}`` at ``state``, re-solving first where an off-tree bet not
        yet re-solved starts its line."""
        x = self._line(state)
        if x is not None and x not in self.resolved:
            if self._public is None:
                self._public = self.policy.convert(compile_game(self.tree.game, form="public"))
            if self.notify is not None:
                self.notify(f"re-solving after the off-tree {','.join(x)} (nested "
                            f"{self.method}, {self.iterations:,} iterations of "
                            f"{self.algorithm})")
            res = nested_resolve_spot(self._public, self.abstract, [x], self.method,
                                      iterations=self.iterations, algorithm=self.algorithm,
                                      evaluate_gains=False)
            self._public = res.policy
            self.policy = res.policy.convert(self.tree)
            self.resolved.append(x)
        return self.policy.action_probabilities(state, player)

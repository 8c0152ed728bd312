"""Head-to-head play between two strategies of a game, with the luck of the actions taken
out: each sampled deal is scored by its exact expected payoff (every action and every later
card enumerated, :class:`rcfr.forms.base.Capability` ``"deal values"``), so that only the
luck of the cards dealt remains (the exact form of the control variates of AIVAT, Burch,
Schmid, Moravčík, Morrill & Bowling 2018).  Each deal is played twice, the strategies
swapping seats (duplicate play), and the estimate is the mean over ``N`` deals with a 95%
normal interval; the exact expectation over every deal, ``(u(A, B) - u(B, A)) / 2``, is the
value the profiles' own evaluation gives (:meth:`rcfr.forms.base.Form.expected_value`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core.errors import RcfrError
from .policy import TabularPolicy

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


@dataclass(frozen=True)
class MatchResult:
    """``a``'s mean winnings per hand against ``b`` over ``hands`` sampled deals, both seats
    each (``estimate``, ``half_width`` of the 95% interval, in game units), the exact
    expectation over every deal (``exact``), and the game's ``big_blind`` (for mbb/g) and
    ``starting_pot`` where it has them."""

    hands: int
    seed: int
    estimate: float
    half_width: float
    exact: float
    big_blind: float | None
    starting_pot: float | None

    @property
    def interval(self) -> tuple[float, float]:
        return self.estimate - self.half_width, self.estimate + self.half_width

    def mbb(self, x: float) -> float | None:
        """``x`` (chips per hand) in milli-big-blinds per hand, where the game has a blind."""
        return None if self.big_blind is None else 1000.0 * x / self.big_blind

    def to_dict(self) -> dict:
        out = {"hands": self.hands, "seed": self.seed, "estimate": self.estimate,
               "half_width": self.half_width, "interval": list(self.interval),
               "exact": self.exact}
        if self.big_blind is not None:
            out.update(estimate_mbb=self.mbb(self.estimate),
                       half_width_mbb=self.mbb(self.half_width), exact_mbb=self.mbb(self.exact))
        return out


def match(a: TabularPolicy, b: TabularPolicy, hands: int, seed: int = 0) -> MatchResult:
    """``a`` against ``b`` over ``hands`` deals drawn with ``seed``, each deal played in both
    seats and valued exactly (module docstring)."""
    tree = a.tree
    if b.tree is not tree:
        b = b.convert(tree)
    if not tree.supports("deal values"):
        raise RcfrError(f"head-to-head play values each deal exactly, which the compiled "
                        f"{tree.form} form of {tree.game} does not offer (a hold'em spot's "
                        f"public form does)")
    if hands < 2:
        raise RcfrError(f"a match needs at least 2 hands for its interval, not {hands}")
    pa, pb = tree.realization_plans(a.probs), tree.realization_plans(b.probs)
    deals = tree.sample_deals(hands, np.random.default_rng(seed))
    g = (tree.deal_values(pa, pb, deals) - tree.deal_values(pb, pa, deals)) / 2.0
    exact = (tree.expected_value(_mixed(tree, pa, pb)) - tree.expected_value(
        _mixed(tree, pb, pa))) / 2.0
    half = Z95 * float(g.std(ddof=1)) / float(np.sqrt(hands))
    game = tree.game
    return MatchResult(int(hands), int(seed), float(g.mean()), half, float(exact),
                       game.big_blind, game.starting_pot)


def _mixed(tree, plan0: np.ndarray, plan1: np.ndarray) -> np.ndarray:
    """The padded plan with player 0's sequences from ``plan0``, player 1's from ``plan1``."""
    s0 = tree.num_sequences_per_player[0]
    S = tree.num_sequences
    out = plan1.copy()
    out[:s0] = plan0[:s0]
    out[S] = 1.0
    out[S + 1] = 1.0
    return out

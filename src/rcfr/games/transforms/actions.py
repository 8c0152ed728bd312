"""Action abstractions for games with wager sizes, and soft geometric translation.

An action abstraction keeps fold, check/call, all-in and the wagers of a few pot fractions
(Morrill 2016, sec. 4.3: ``null``, ``P``, ``HP``, ``PD``, ``HPD``; H = half pot, P = pot,
D = double pot).  A wager of pot fraction ``f`` raises, after matching the opponent's
contribution ``o``, by ``f`` times the pot ``2 o``: it is a raise to ``o * (1 + 2 f)`` chips,
rounded to a whole chip and kept between the smallest legal raise and all-in.

Translation is abstract, soft and geometric (Schnizlein, Bowling & Szafron 2009, with the
geometric similarity of Gilpin, Sandholm & Sorensen 2008): an opponent's real wager is
measured as a pot fraction ``x`` in the *abstract* game's pot, ``x = (k - o_abs) / (2 o_abs)``
for a raise to ``k`` chips, and mapped to the nearest abstract wagers ``A < x < B`` (their pot
fractions in the same abstract history) with

    P(A) = (A / x - A / B) / (1 - A / B),    P(B) = 1 - P(A),

so ``P(A) = 1`` at ``x = A`` and ``0`` at ``x = B``; below the smallest abstract wager it maps
to that wager and above the largest to the largest (all-in), never to check/call or fold,
except where the abstract player faces an all-in and has no wager left: there a real raise
is read as a call.  A
player's own abstract wager of pot fraction ``g`` is played as the real wager of fraction ``g``
in the real pot (all-in as all-in).
"""

from __future__ import annotations

import math

from ...core.errors import RcfrError
from ..nl_holdem2 import NLHoldem2
from ..nl_one_card import NLOneCardPoker
from ..protocol import Game, State
from .abstract_game import Abstraction

FOLD, CALL = 0, 1
NAMED_BETS = {"null": (), "P": (1.0,), "HP": (0.5, 1.0), "PD": (1.0, 2.0),
              "HPD": (0.5, 1.0, 2.0)}
_LETTERS = {"H": 0.5, "P": 1.0, "D": 2.0}


class RaiseToWagers:
    """Wager arithmetic for games whose actions are ``0`` fold, ``1`` check/call and ``k >= 2``
    "raise to ``k`` chips in all", whose states hold the contributions in ``spent``, and whose
    largest legal raise is all-in (no-limit one-card poker; 2-NL Hold'em(k) by
    :class:`BettingWagers`)."""

    @staticmethod
    def facing(state: State) -> int:
        """The contribution the player to act must match."""
        return state.spent[1 - state.current_player()]

    @staticmethod
    def wagers(state: State) -> list[int]:
        return [a for a in state.legal_actions() if a >= 2]

    def fraction(self, state: State, action: int) -> float:
        """Pot fraction of the raise to ``action`` chips at ``state``."""
        o = self.facing(state)
        return (action - o) / (2.0 * o)

    def raise_to(self, state: State, fraction: float) -> int | None:
        """The legal wager closest to pot fraction ``fraction`` (``None`` if no wager is
        legal)."""
        legal = self.wagers(state)
        if not legal:
            return None
        o = self.facing(state)
        k = math.floor(o * (1.0 + 2.0 * fraction) + 0.5)
        return min(max(k, legal[0]), legal[-1])


class BettingWagers(RaiseToWagers):
    """:class:`RaiseToWagers` for games whose states keep the contributions in
    ``betting.spent`` (2-NL Hold'em(k): the same "raise to ``k``" actions, with the
    abstraction applied in both betting rounds)."""

    @staticmethod
    def facing(state: State) -> int:
        return state.betting.spent[1 - state.current_player()]


WAGER_GAMES: dict[type, RaiseToWagers] = {NLOneCardPoker: RaiseToWagers(),
                                          NLHoldem2: BettingWagers()}


def wager_rules(game: Game) -> RaiseToWagers:
    for kind, rules in WAGER_GAMES.items():
        if isinstance(game, kind):
            return rules
    raise RcfrError(f"action abstractions apply to games with wager sizes "
                    f"({', '.join(k.short_name for k in WAGER_GAMES)}), not {game}")


def parse_bets(spec: str) -> tuple[float, ...]:
    """``null``, letters from H, P, D (``HPD``) or ``bets:0.5,1,2`` -> pot fractions."""
    text = spec.strip()
    if text.lower() in ("null", "∅", "none-bets"):
        return ()
    if text.lower().startswith("bets:"):
        body = text.split(":", 1)[1]
        try:
            values = [float(x) for x in body.split(",") if x.strip()]
        except ValueError:
            raise RcfrError(f"cannot read the pot fractions in {spec!r}: numbers expected, "
                            "e.g. bets:0.5,1,2") from None
        for v in values:
            if not math.isfinite(v) or v <= 0:
                raise RcfrError(f"pot fractions must be positive numbers, got {v:g} in {spec!r}")
        return tuple(sorted(set(values)))
    if text and all(c in _LETTERS for c in text.upper()):
        return tuple(sorted({_LETTERS[c] for c in text.upper()}))
    raise RcfrError(f"unknown action abstraction {spec!r}")


def _soft_translation(x: float, sizes: list[float], lower) -> list[tuple[int, float]]:
    """Translate pot fraction ``x`` onto the ascending ``sizes``: all to the nearest where
    ``x`` is at or beyond an end or equals a size, else between the two that bracket it,
    ``lower(a, b, x)`` to the smaller ``a``."""
    if not sizes:
        raise RcfrError("no abstract size to translate to")
    if x <= sizes[0]:
        return [(0, 1.0)]
    if x >= sizes[-1]:
        return [(len(sizes) - 1, 1.0)]
    hi = next(i for i, s in enumerate(sizes) if s >= x)
    if sizes[hi] == x:
        return [(hi, 1.0)]
    p_a = lower(sizes[hi - 1], sizes[hi], x)
    return [(hi - 1, p_a), (hi, 1.0 - p_a)]


def geometric_translation(x: float, sizes: list[float]) -> list[tuple[int, float]]:
    """Soft geometric translation of pot fraction ``x`` onto the ascending pot fractions
    ``sizes``: ``[(index, probability), ...]`` over at most the two nearest (module doc)."""
    return _soft_translation(x, sizes, lambda a, b, x: (a / x - a / b) / (1.0 - a / b))


def pseudo_harmonic(x: float, sizes: list[float]) -> list[tuple[int, float]]:
    """Soft pseudo-harmonic translation of pot fraction ``x`` onto the ascending pot
    fractions ``sizes`` (Ganzfried & Sandholm 2013, eq. 2): ``[(index, probability)]`` over
    at most the two nearest; below the smallest to it, above the largest to the largest."""
    return _soft_translation(x, sizes,
                             lambda a, b, x: (b - x) * (1.0 + a) / ((b - a) * (1.0 + x)))


class BetAbstraction(Abstraction):
    """Fold, check/call, all-in and wagers of the pot fractions ``fractions``; translation as
    in the module docstring."""

    def __init__(self, fractions: tuple[float, ...], name: str | None = None) -> None:
        self.fractions = tuple(sorted(fractions))
        self.name = name or "bets:" + ",".join(f"{f:g}" for f in self.fractions)
        self.rules: RaiseToWagers | None = None

    def check(self, game: Game) -> None:
        self.rules = wager_rules(game)

    def _rules(self, state: State) -> RaiseToWagers:
        if self.rules is None:
            raise RcfrError("the action abstraction was not attached to a game")
        return self.rules

    def actions(self, state: State) -> list[int]:
        rules = self._rules(state)
        legal = state.legal_actions()
        wagers = rules.wagers(state)
        if not wagers:
            return legal
        kept = {wagers[-1]}  # all-in
        kept.update(rules.raise_to(state, f) for f in self.fractions)
        return [a for a in legal if a < 2] + sorted(kept)

    def translate(self, real: State, abstract: State, action: int) -> list[tuple[int, float]]:
        if action < 2:
            return [(action, 1.0)]
        rules = self._rules(abstract)
        options = [a for a in self.actions(abstract) if a >= 2]
        if not options:  # the abstract player faces an all-in (the real one a smaller wager
            # that was translated to it): a real raise can only be read as a call
            return [(CALL, 1.0)]
        sizes = [rules.fraction(abstract, a) for a in options]
        x = rules.fraction(abstract, action)
        return [(options[i], p) for i, p in geometric_translation(x, sizes)]

    def back(self, real: State, abstract: State, action: int) -> int:
        if action < 2:
            return action
        rules = self._rules(abstract)
        if action == rules.wagers(abstract)[-1]:  # all-in stays all-in
            return rules.wagers(real)[-1]
        k = rules.raise_to(real, rules.fraction(abstract, action))
        if k is None:
            raise RcfrError(f"no real wager for {abstract.information_state_string()!r}")
        return k

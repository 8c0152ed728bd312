"""Abstractions by name (``GAME@SPEC`` game strings, ``--abstraction``): Leduc's card
abstractions and the wager abstractions of no-limit one-card poker (Morrill 2016, sec. 4.3)."""

from __future__ import annotations

from typing import Any

from ...core.errors import RcfrError
from ..leduc import LeducPoker
from ..protocol import Game
from ..registry import load_game, set_abstraction_hook
from .abstract_game import AbstractGame, Abstraction
from .actions import NAMED_BETS, WAGER_GAMES, BetAbstraction, parse_bets
from .card_abstraction import LEDUC_ABSTRACTIONS, LeducCardAbstraction

ABSTRACTIONS = ("identity", *LEDUC_ABSTRACTIONS, *NAMED_BETS, "bets:F1,F2,...")


def parse_abstraction(spec: str | Abstraction, game: Any) -> Abstraction:
    """An abstraction from its name, checked against ``game``: ``identity``; Leduc's ``JQK``,
    ``J.QK``, ``JQ.K``, ``J.Q.K``; wager abstractions ``null``, ``P``, ``HP``, ``PD``, ``HPD``
    or ``bets:0.5,1,2`` (pot fractions)."""
    base = game if isinstance(game, Game) else getattr(game, "game", None)  # a compiled tree
    base = base if isinstance(base, Game) else load_game(game)
    if isinstance(spec, Abstraction):
        spec.check(base)
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise RcfrError(f"an abstraction is a name such as J.QK or HP, got {spec!r}")
    text = spec.strip()
    if text.lower() == "identity":
        return Abstraction()
    if text.upper() in LEDUC_ABSTRACTIONS:
        out: Abstraction = LeducCardAbstraction(text)
    elif text.lower().startswith("bets:") or text.upper() in NAMED_BETS or text.lower() in (
            "null", "∅"):
        key = "null" if text.lower() in ("null", "∅") else text.upper()
        name = key if key in NAMED_BETS else None
        out = BetAbstraction(parse_bets(text), name)
    else:
        raise RcfrError(f"unknown abstraction {spec!r}; use one of {', '.join(ABSTRACTIONS)}")
    out.check(base)
    return out


def abstract_game_of(base: Game, spec: str) -> AbstractGame:
    """The abstract game ``base@spec`` (the registry's ``GAME@SPEC`` strings)."""
    return AbstractGame(base, parse_abstraction(spec, base))


set_abstraction_hook(abstract_game_of)


def standard_abstractions_of(base: Game) -> tuple[str, ...]:
    """The thesis's baseline abstractions for the game ``base`` (sec. 4.3): Leduc's four card
    abstractions or the five wager abstractions of the no-limit games."""
    if isinstance(base, LeducPoker):
        return LEDUC_ABSTRACTIONS
    if any(isinstance(base, k) for k in WAGER_GAMES):
        return tuple(NAMED_BETS)
    raise RcfrError(f"no standard abstractions for {base}; give them by name")

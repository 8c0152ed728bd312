"""Load games from OpenSpiel-style strings: ``leduc``, ``leduc(canonical=true)``,
``matrix(payoffs=[[0,-1],[1,0]])`` (rows may also be written ``0 -1;1 0``)."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from typing import Any

from ..core.errors import RcfrError
from ..core.lazy import Deferred
from .goofspiel import Goofspiel
from .kuhn import KuhnPoker
from .leduc import LeducPoker
from .liars_dice import LiarsDice
from .matrix import MatrixGame, RockPaperScissors
from .nl_holdem2 import NLHoldem2
from .nl_one_card import NLOneCardPoker
from .protocol import Game
from .random_game import RandomGame
from .suite import SUITE, small_matrix

OPENSPIEL_PREFIX = "openspiel:"
_REGISTRY: dict[str, tuple[Callable[..., Game], str]] = {}
# builds ``GAME@SPEC`` (an abstract game) from the base game and the spec; set by
# :mod:`rcfr.games.transforms.parse`, which the ``rcfr.games`` package imports
_ABSTRACT: Callable[[Game, str], Game] | None = None


def set_abstraction_hook(build: Callable[[Game, str], Game]) -> None:
    """Let ``GAME@SPEC`` game strings build abstract games with ``build(base, spec)``."""
    global _ABSTRACT
    _ABSTRACT = build


def register(name: str, factory: Callable[..., Game], description: str) -> None:
    """Make ``factory`` loadable as ``name(param=value, ...)``."""
    _REGISTRY[name] = (factory, description)


def registered_games() -> dict[str, str]:
    """Registered game names and their one-line descriptions."""
    return {name: desc for name, (_, desc) in _REGISTRY.items()}


MAX_GAME_STRING = 1_000_000  # characters: a 300 x 300 payoff matrix fits
MAX_NESTING = 32  # brackets inside a game string's parameters


def _split_top_level(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
            if depth > MAX_NESTING:
                raise RcfrError(f"game parameters nested more than {MAX_NESTING} deep")
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                raise RcfrError(f"unbalanced brackets in game parameters {text!r}")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise RcfrError(f"unbalanced brackets in game parameters {text!r}")
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def _number(text: str, cast: Callable[[str], Any]) -> Any:
    """``cast(text)`` for a number written in ASCII digits (Python also reads other scripts'
    digits, such as ``١``); ValueError otherwise."""
    if not text.isascii():
        cast(text)  # not a number at all: ValueError
        raise RcfrError(f"game parameter value {text!r}: write numbers with ASCII digits 0-9")
    return cast(text)


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise RcfrError(f"cannot read parameter value {text!r}: {exc.msg}") from None
    if ";" in text:  # a table written row by row: "0 -1 1;1 0 -1;-1 1 0"
        try:
            return [[_number(x, float) for x in row.split()] for row in text.split(";")]
        except RcfrError:
            raise
        except ValueError:
            raise RcfrError(f"cannot read table {text!r}: rows of numbers expected") from None
    for cast in (int, float):
        try:
            return _number(text, cast)
        except RcfrError:
            raise
        except ValueError:
            pass
    return text


def parse_game_string(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name(k=v,...)`` into the name and a dict of typed parameters."""
    spec = spec.strip()
    if len(spec) > MAX_GAME_STRING:
        raise RcfrError(f"game string of {len(spec):,} characters; the limit is "
                        f"{MAX_GAME_STRING:,}")
    if "(" not in spec:
        return spec, {}
    if not spec.endswith(")"):
        raise RcfrError(f"malformed game string {spec!r}: expected name(param=value,...)")
    name, body = spec[: spec.index("(")].strip(), spec[spec.index("(") + 1 : -1]
    params: dict[str, Any] = {}
    parts = _split_top_level(body) if body.strip() else []
    for part in parts:
        if not part:
            raise RcfrError(f"malformed game string {spec!r}: an empty parameter between commas")
        if "=" not in part:
            raise RcfrError(f"malformed game parameter {part!r}: expected param=value")
        key, value = part.split("=", 1)
        key = key.strip()
        if not value.strip():
            raise RcfrError(f"game parameter {key!r} has no value")
        if key in params:
            raise RcfrError(f"game parameter {key!r} is given twice in {spec!r}")
        params[key] = _parse_value(value.strip())
    return name, params


def _parameters(factory: Callable[..., Game]) -> dict[str, inspect.Parameter]:
    """The keyword parameters ``factory`` takes; a game class that keeps the protocol's
    ``Game.__init__(**params)`` takes none (its ``**params`` only records them)."""
    if isinstance(factory, Deferred):
        factory = factory.target()
    if isinstance(factory, type) and issubclass(factory, Game):
        if factory.__init__ is Game.__init__:
            return {}
    try:
        return dict(inspect.signature(factory).parameters)
    except (TypeError, ValueError):  # a builtin without a signature: let it check for itself
        return {"params": inspect.Parameter("params", inspect.Parameter.VAR_KEYWORD)}


def load_game(spec: str | Game) -> Game:
    """The game named by an OpenSpiel-style string (a :class:`Game` passes through)."""
    if isinstance(spec, Game):
        return spec
    spec = str(spec).strip()
    if "@" in spec and not spec.startswith(OPENSPIEL_PREFIX):  # an abstract game: GAME@SPEC
        base_spec, _, abstraction = spec.rpartition("@")
        base = load_game(base_spec)
        if _ABSTRACT is None:  # pragma: no cover (the rcfr.games package sets it)
            raise RcfrError("abstract games (GAME@SPEC) need rcfr.games.transforms")
        return _ABSTRACT(base, abstraction)
    if spec.startswith(OPENSPIEL_PREFIX):
        from .openspiel_game import load_openspiel_game

        return load_openspiel_game(spec[len(OPENSPIEL_PREFIX) :])
    name, params = parse_game_string(str(spec))
    if name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY))
        raise RcfrError(f"unknown game {name!r}; known games: {known}")
    factory, _ = _REGISTRY[name]
    accepted = _parameters(factory)
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
    unknown = [k for k in params if k not in accepted and not takes_any]
    if unknown:
        names = ", ".join(k for k, p in accepted.items() if k != "action_names"
                          and p.kind is not inspect.Parameter.VAR_KEYWORD) or "none"
        raise RcfrError(f"game {name!r} has no parameter {unknown[0]!r}; parameters: {names}")
    try:
        return factory(**params)
    except RcfrError:
        raise
    except (TypeError, ValueError) as exc:
        raise RcfrError(f"bad parameters for game {name!r}: {exc}") from None


register("kuhn", KuhnPoker, "Kuhn poker")
register("leduc", LeducPoker, "Leduc hold'em (suits distinct; canonical=true: ranks only)")
register("rps", RockPaperScissors, "rock-paper-scissors")
register("matrix", MatrixGame, "matrix game: matrix(payoffs=[[..],..])")
register("nl_one_card", NLOneCardPoker,
         "no-limit one-card poker (thesis): nl_one_card(cards=4,stack=10,ante=1)")
register("nl_holdem2", NLHoldem2,
         "2-NL Hold'em(k), five E[HS^2] buckets a round (Gibson et al. 2012): "
         "nl_holdem2(stack=36,buckets=5,ranks=13,suits=4)")
# (the hold'em spots' modules load numba kernels: imported when such a game is loaded, so
# that `rcfr --help` imports none)
register("holdem_spot", Deferred(".holdem.spot_game", "holdem_spot", __package__),
         "real-card no-limit hold'em from the flop, turn or river: holdem_spot(file=SPOT.toml) "
         "or holdem_spot(spot=basic_turn)")
register("libratus_endgame", Deferred(".holdem.libratus", "libratus_endgame", __package__),
         "a Libratus HUNL endgame (1, 2: turn; 3, 4: river) with PokerRL's bets, as in the "
         "DCFR/DDCFR papers: libratus_endgame(n=3,pokerrl=false)")
register("goofspiel", Goofspiel,
         "goofspiel, bids hidden: goofspiel(num_cards=5,points_order=descending,imp_info=true)")
register("liars_dice", LiarsDice, "liar's dice / Bluff: liars_dice(dice=1,faces=6)")
register("random_game", RandomGame, "seeded random perfect-recall game: random_game(seed=N,...)")
for _g in SUITE:  # the DCFR/DDCFR suite: new short names for its games' strings
    if _g.description is not None:
        register(_g.name, small_matrix if _g.name == "small_matrix" else
                 functools.partial(load_game, _g.game_string), _g.description)

# Games listed by `rcfr games`: one instance of each family, with its usual parameters.
STANDARD_GAMES = ["kuhn", "leduc", "leduc(canonical=true)", "nl_one_card", "goofspiel",
                  "liars_dice", "rps", "random_game(seed=0)", "libratus_endgame(n=3)"]

"""Card abstractions of real-card hold'em spots: the bucketed spot and its lift.

A spot with ``buckets=K`` (:class:`rcfr.games.holdem.spot_game.SpotGame`) is the real spot in
which a player observes only the E[HS²] bucket sequence of its combo; deal, betting and payoffs
are the real spot's.  So a strategy of the abstract spot is a strategy of the real one: each
combo plays its class's strategy at every information set (Gilpin & Sandholm 2007; the
blueprint of Brown & Sandholm 2017, lifted to the real game by the bucket map).
``--abstraction buckets:K`` solves a spot through it and measures the lifted strategy exactly
in the real spot.
"""

from __future__ import annotations

import copy
import re

import numpy as np

from ..core.errors import RcfrError
from ..forms.base import Form
from ..forms.compile import compile_game
from ..games.holdem.cards import cards_from_str
from ..games.holdem.combos import combo_from_str
from ..games.holdem.spot_game import SpotGame, holdem_spot
from ..games.protocol import Game
from ..policy import TabularPolicy

_BUCKETS = re.compile(r"^\s*buckets\s*:\s*([^,\s]+)\s*(?:,\s*kind\s*=\s*(\S+)\s*)?$",
                      re.IGNORECASE)
_ACTIONS = re.compile(r"^\s*actions\s*:(.*)$", re.IGNORECASE | re.DOTALL)
_SIZE_PARAMS = ("bets", "raises")


def is_spot(game: Game) -> bool:
    """Whether ``game`` is a real-card spot (abstracted or not)."""
    return isinstance(game, SpotGame)


def is_bucketed(game: Game) -> bool:
    """Whether ``game`` is a spot's card abstraction (``buckets=K``)."""
    return isinstance(game, SpotGame) and game.buckets is not None


def is_sized(game: Game) -> bool:
    """Whether ``game`` is a spot's action abstraction (``bets=...`` or ``raises=...``)."""
    return isinstance(game, SpotGame) and any(k in game.params for k in _SIZE_PARAMS)


def is_spot_abstraction(game: Game) -> bool:
    """Whether ``game`` abstracts a spot: its cards (buckets), its bet sizes, or both."""
    return is_bucketed(game) or is_sized(game)


def spec_of(game: SpotGame) -> str:
    """The ``--abstraction`` spec of a spot's card abstraction (``buckets:8``,
    ``buckets:8,kind=emd``)."""
    kind = "" if game.bucket_kind == "ehs2" else f",kind={game.bucket_kind}"
    return f"buckets:{game.buckets}{kind}"


def spot_abstraction_name(game: SpotGame) -> str:
    """The ``--abstraction`` spec of the spot abstraction ``game``
    (``buckets:8,kind=emd+actions:60%,a/2.5x``)."""
    parts = [spec_of(game)] if game.buckets is not None else []
    if is_sized(game):
        bets = ",".join(str(game.params.get("bets", "")).split())
        raises = ",".join(str(game.params.get("raises", "")).split())
        parts.append(f"actions:{bets}" + (f"/{raises}" if raises else ""))
    return "+".join(parts)


def unabstracted(game: SpotGame) -> str:
    """The game string of the real spot that ``game`` abstracts."""
    real = copy.copy(game)
    real.params = {k: v for k, v in game.params.items()
                   if k not in ("buckets", "kind", *_SIZE_PARAMS)}
    return str(real)


def _spot_params(spec) -> dict | None:
    """The game parameters a spot abstraction spec names: ``buckets:K`` or
    ``buckets:K,kind=emd`` (cards; EMD clusters on the flop and turn),
    ``actions:BETS[/RAISES]`` (bet sizes, as a spot file writes them), or both joined by
    ``+``; ``None`` where ``spec`` names none."""
    if not isinstance(spec, str):
        return None
    parts = spec.split("+")
    if not any(_BUCKETS.match(p) or _ACTIONS.match(p) for p in parts):
        return None
    params: dict = {}
    for part in parts:
        b, a = _BUCKETS.match(part), _ACTIONS.match(part)
        if b is None and a is None:
            raise RcfrError(f"{part.strip()!r} in {spec!r}: a spot abstraction joins "
                            f"buckets:K and actions:BETS[/RAISES] with +")
        key = "buckets" if b is not None else "actions"
        if key in params or (key == "actions" and "bets" in params):
            raise RcfrError(f"{spec!r} gives {key} twice")
        if b is not None:
            try:
                params["buckets"] = int(b.group(1))
            except ValueError:
                raise RcfrError(f"buckets:K takes a whole number of buckets, not "
                                f"{b.group(1)!r}") from None
            if b.group(2) is not None:
                params["kind"] = b.group(2).lower()
            continue
        bets, _, raises = a.group(1).partition("/")
        params["bets"] = " ".join(bets.replace(",", " ").split())
        if not params["bets"]:
            raise RcfrError(f"actions:BETS[/RAISES] needs bet sizes (such as actions:60%,a), "
                            f"got {spec!r}")
        if raises.strip():
            params["raises"] = " ".join(raises.replace(",", " ").split())
    return params


def names_buckets(spec) -> bool:
    """Whether the abstraction ``spec`` is a spot abstraction (``buckets:K``,
    ``buckets:K,kind=emd``, ``actions:...`` or both; it compiles on either form)."""
    try:
        return _spot_params(spec) is not None
    except RcfrError:
        return True  # (a spot abstraction written wrong: its error comes when it is built)


def bucketed_spot(game: Game, spec: str) -> Game | None:
    """The spot abstraction ``spec`` (``buckets:K``, ``buckets:K,kind=emd``: EMD clusters on
    the flop and turn, ``actions:BETS[/RAISES]``, or cards and actions joined by ``+``) of the
    spot ``game``, or ``None`` where ``spec`` names no spot
    abstraction; a spot abstraction of another game is an error."""
    params = _spot_params(spec)
    if params is None:
        return None
    if not isinstance(game, SpotGame) or is_spot_abstraction(game) \
            or game.short_name != "holdem_spot":
        raise RcfrError(f"{spec} abstracts a real-card spot (holdem_spot(...)), not {game}")
    return holdem_spot(**game.params, **params)


def _abstract_key(key: str, game: SpotGame, memo: dict) -> str:
    """The abstract spot's information-state string of the real spot's ``key``
    (``hand|board|actions|card|actions...``): the hand replaced by its bucket sequence."""
    parts = key.split("|")
    board = memo.get(parts[1])
    if board is None:
        board = memo[parts[1]] = tuple(cards_from_str(parts[1]))
    cards = board + tuple(memo.setdefault(c, cards_from_str(c)[0]) for c in parts[3::2])
    return game.hand_label(combo_from_str(parts[0]), cards) + key[len(parts[0]):]


def lift_classes(full: Form | Game | str, abstract: Form | Game | str,
                 probs: np.ndarray | TabularPolicy, metadata: dict | None = None
                 ) -> TabularPolicy:
    """The real spot's strategy in which every combo plays its bucket sequence's strategy in
    ``probs`` (a strategy of ``abstract``, the real spot's ``buckets=K`` abstraction).  Either
    tree may be in either form: information sets are matched by their strings."""
    full, abstract = compile_game(full), compile_game(abstract)
    if not is_bucketed(abstract.game) or is_sized(abstract.game):
        raise RcfrError(f"{abstract.game} is not a card abstraction of a spot (buckets=K)")
    if unabstracted(abstract.game) != str(full.game):
        raise RcfrError(f"{abstract.game} does not abstract {full.game}")
    if isinstance(probs, TabularPolicy):
        metadata = {**dict(probs.metadata or {}), **(metadata or {})}
        probs = probs.probs
    probs = np.asarray(probs, dtype=np.float64)
    if probs.shape != (abstract.num_sequences,):
        raise RcfrError(f"a strategy of {abstract.game} has {abstract.num_sequences} "
                        f"sequences, not {probs.shape}")
    out = np.zeros(full.num_sequences)
    memo: dict = {}
    keys, abstract_keys = full.infoset_keys, abstract.infoset_keys
    for p in (0, 1):
        index = {abstract_keys[j]: j for j in abstract.player_infosets(p)}
        for i in full.player_infosets(p):
            key = _abstract_key(keys[i], abstract.game, memo)
            j = index.get(key)
            if j is None:
                raise RcfrError(f"no information state {key!r} in {abstract.game}")
            start, k = int(full.infoset_seq_start[i]), int(full.infoset_num_actions[i])
            astart = int(abstract.infoset_seq_start[j])
            out[start:start + k] = probs[astart:astart + k]
    meta = dict(metadata or {})
    meta["abstraction"] = spec_of(abstract.game)
    return TabularPolicy(full, out, meta)

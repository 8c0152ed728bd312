"""The registry of feature providers (:func:`register_features`) and the matrices and lazy rows
built from them (:func:`sequence_features`, :func:`infoset_features`, :class:`FeatureRows`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from ..forms.base import Capability, Form
from ..forms.compile import is_compiled

# (tree, player, param, seed) -> one row per sequence / information set of the player
MatrixFn = Callable[[Form, int, int, int], np.ndarray]
# (what prepare returned, local sequence indices) -> those sequences' rows
RowsFn = Callable[[Any, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class FeatureProvider:
    """A named feature set: ``sequences`` builds a player's whole sequence matrix; ``prepare``
    and ``rows`` (optional) build the rows of some sequences only (``prepare(tree, player,
    param, seed)`` once, then ``rows(prepared, indices)``); ``infosets`` (optional) builds
    information-set features; ``games`` (optional) are the game classes it is defined for,
    described as ``games_text`` in errors; ``param`` says whether it is spelt ``name:K``;
    ``history_only``: it reads the history form's nodes (not defined on the public form)."""

    name: str
    sequences: MatrixFn
    prepare: MatrixFn | None = None
    rows: RowsFn | None = None
    infosets: MatrixFn | None = None
    games: tuple[type, ...] | None = None
    games_text: str = ""
    param: bool = False
    history_only: bool = False

    def check_game(self, tree: Form) -> None:
        if self.games is not None and not isinstance(tree.game, self.games):
            raise RcfrError(f"the {self.name} features are defined for {self.games_text}, not "
                            f"{tree.game}; use onehot or hashing:K")
        if self.history_only and not tree.supports(Capability.HISTORY_NODES):
            raise RcfrError(f"the {self.name} features read the history form's nodes; on the "
                            "public form use --features onehot or hashing:K, or --form history")


_PROVIDERS: dict[str, FeatureProvider] = {}
_DEFAULTS: dict[type, str] = {}


def register_features(name: str, sequences: MatrixFn, *, prepare: MatrixFn | None = None,
                      rows: RowsFn | None = None, infosets: MatrixFn | None = None,
                      games: tuple[type, ...] | None = None, games_text: str = "",
                      param: bool = False, history_only: bool = False) -> FeatureProvider:
    """Register (or replace) the feature set ``name``; returns its provider.  ``sequences(tree,
    player, param, seed)`` must return one row per sequence of ``player`` in the tree's order
    (``param`` is ``K`` of ``name:K``, else 0)."""
    key = str(name).strip().lower()
    if not key or ":" in key or not callable(sequences):
        raise RcfrError(f"a feature set needs a plain name and a function, got {name!r}")
    if (prepare is None) != (rows is None):
        raise RcfrError("give both prepare and rows, or neither")
    provider = FeatureProvider(key, sequences, prepare, rows, infosets, games,
                               games_text or ", ".join(g.__name__ for g in games or ()), param,
                               history_only)
    _PROVIDERS[key] = provider
    return provider


def register_default_features(game_class: type, name: str) -> None:
    """Make ``name`` the default feature set of ``game_class`` (and its subclasses)."""
    _DEFAULTS[game_class] = str(name).strip().lower()


def feature_sets() -> tuple[str, ...]:
    """The registered feature sets, as they are spelt (``hashing:K``)."""
    return tuple(f"{k}:K" if p.param else k for k, p in _PROVIDERS.items())


def default_features(game: Any) -> str:
    """The feature set registered as ``game``'s default (the thesis's for poker), else
    ``onehot``."""
    game = game.game if is_compiled(game) else game
    for cls in type(game).__mro__:
        if cls in _DEFAULTS:
            return _DEFAULTS[cls]
    return "onehot"


def parse_features(spec: str) -> tuple[str, int]:
    """``"onehot"``, ``"thesis"``, ``"hashing:K"`` or another registered name -> (name, K)."""
    text = str(spec).strip().lower()
    name, colon, arg = text.partition(":")
    provider = _PROVIDERS.get(name)
    if provider is None:
        raise RcfrError(f"unknown features {spec!r}; use one of {', '.join(feature_sets())}")
    if not provider.param:
        if colon:
            raise RcfrError(f"the {name} features take no parameter, got {spec!r}")
        return name, 0
    try:
        k = int(arg)
    except ValueError:
        raise RcfrError(f"{name} features need a number of partitions, e.g. {name}:5; "
                        f"got {spec!r}") from None
    if k < 1:
        raise RcfrError(f"{name} needs at least 1 partition, got {k}")
    return name, k


def feature_provider(spec: str) -> FeatureProvider:
    """The registered provider of ``spec`` (``"waugh"``, ``"hashing:5"``, ...)."""
    return _PROVIDERS[parse_features(spec)[0]]


def _provider(tree: Form, spec: str) -> tuple[FeatureProvider, int]:
    name, k = parse_features(spec)
    provider = _PROVIDERS[name]
    provider.check_game(tree)
    return provider, k


def _checked(M: Any, rows: int, what: str) -> np.ndarray:
    try:
        A = np.asarray(M, dtype=np.float64)
    except (TypeError, ValueError):
        raise RcfrError(f"{what} must return a numeric matrix") from None
    if A.ndim != 2 or A.shape[0] != rows or A.shape[1] == 0:
        raise RcfrError(f"{what} must return a matrix of {rows} rows (one per sequence) and at "
                        f"least one column, got shape {A.shape}")
    if not np.isfinite(A).all():
        raise RcfrError(f"{what} returned NaN or infinite values")
    return np.ascontiguousarray(A)


def sequence_features(tree: Form, player: int, spec: Any = "onehot",
                      seed: int = 0) -> np.ndarray:
    """Features of ``player``'s sequences, one row per sequence in the tree's order.
    ``spec`` is a registered name or a callable ``f(tree, player) -> matrix``."""
    n = len(tree.player_sequences(player))
    if callable(spec):
        return _checked(spec(tree, player), n, f"feature function {spec!r}")
    provider, k = _provider(tree, spec)
    return _checked(provider.sequences(tree, player, k, seed), n,
                    f"the {provider.name} feature set")


def infoset_features(tree: Form, player: int, spec: str = "onehot",
                     seed: int = 0) -> np.ndarray:
    """Features of ``player``'s information sets (for one linear model per action)."""
    provider, k = _provider(tree, spec)
    if provider.infosets is None:
        raise RcfrError(f"the {provider.name} features describe sequences; use onehot or "
                        "hashing:K for information-set features")
    return provider.infosets(tree, player, k, seed)


class FeatureRows:
    """The feature rows of ``player``'s sequences, built when asked for: ``rows(seqs)`` (local
    sequence indices, ``0 ..`` the player's sequence count) returns those rows only, for the
    providers that can build rows one by one (``onehot``, ``hashing:K``; the others build
    their whole matrix once, on the first call)."""

    def __init__(self, tree: Form, player: int, spec: Any = "onehot",
                 seed: int = 0) -> None:
        self.tree, self.player, self.spec, self.seed = tree, player, spec, seed
        self.num_sequences = len(tree.player_sequences(player))
        self._provider = None if callable(spec) else _provider(tree, spec)[0]
        self._prepared: Any = None
        if self._provider is not None and self._provider.rows is not None:
            self._prepared = self._provider.prepare(tree, player, parse_features(spec)[1], seed)
        self._matrix: np.ndarray | None = None

    @property
    def lazy(self) -> bool:
        """Whether rows are built one by one (else the whole matrix, on the first call)."""
        return self._prepared is not None

    def rows(self, seqs: Any) -> np.ndarray:
        idx = np.asarray(seqs, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_sequences):
            raise RcfrError(f"sequence indices must lie in [0, {self.num_sequences})")
        if self._prepared is not None:
            return self._provider.rows(self._prepared, idx)
        if self._matrix is None:
            self._matrix = sequence_features(self.tree, self.player, self.spec, self.seed)
        return self._matrix[idx]

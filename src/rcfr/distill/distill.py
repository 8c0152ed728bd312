"""Distil a solved strategy into small models, one per player (and per betting round), and
price the simplification exactly (Bertsimas & Paskov 2021, "World-Class Interpretable Poker"):
the models' predicted policy, normalised over the legal actions, is a tabular strategy whose
exploitability in the full game sits beside the original's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from ..evaluate import Evaluation, evaluate
from ..features import feature_provider, parse_features
from ..forms.base import Capability
from ..forms.compile import compile_game, is_compiled
from ..games.registry import load_game
from ..policy import TabularPolicy
from .dataset import training_set
from .models import make_model


@dataclass(frozen=True)
class Part:
    """One fitted model: its player, its round (``None``: all rounds), the information sets it
    covers, its size and its text rules; ``model`` (the fitted model: its ``walk()`` draws
    it), the names of its feature columns and of its outputs' actions."""

    player: int
    round: int | None
    infosets: int
    size: int
    rules: list[str] | None
    unit: str = "leaves"
    model: Any = field(default=None, repr=False, compare=False)
    names: list[str] = field(default_factory=list, repr=False, compare=False)
    actions: list[str] = field(default_factory=list, repr=False, compare=False)


@dataclass(frozen=True)
class Distilled:
    """The distilled policy, its evaluation and the original's, and the fitted parts."""

    policy: TabularPolicy
    evaluation: Evaluation
    original: Evaluation
    parts: list[Part] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Leaves (or parameters) over all the parts."""
        return sum(p.size for p in self.parts)

    @property
    def unit(self) -> str:
        """What :attr:`size` counts: ``"leaves"`` or ``"parameters"``."""
        return self.parts[0].unit if self.parts else "leaves"

    def to_dict(self) -> dict[str, Any]:
        return {"exploitability": self.evaluation.exploitability,
                "original_exploitability": self.original.exploitability,
                "exploitability_mbb": self.evaluation.exploitability_mbb,
                "original_exploitability_mbb": self.original.exploitability_mbb,
                "size": self.size, "unit": self.unit,
                "parts": [{"player": p.player, "round": p.round, "infosets": p.infosets,
                           "size": p.size} for p in self.parts]}


KEPT_RULES = 1024  # leaves up to which the distilled strategy's metadata keeps the text rules
# (the strategy viewer shows them beside the grid)

# readable feature sets: the first defined for a game is its default
READABLE = ("waugh", "holdem")


def default_distill_features(tree) -> str:
    """The first of :data:`READABLE` defined for ``tree``'s game, on whichever form
    (``waugh``: limit poker's readable betting counts, for Leduc and no-limit one-card poker;
    ``holdem``: 2-NL Hold'em's buckets and betting), else ``onehot``."""
    for name in READABLE:
        games = feature_provider(name).games
        if games is None or isinstance(tree.game, games):
            return name
    return "onehot"


def _form_policy(game: Any, policy: TabularPolicy, spec: str) -> TabularPolicy:
    """``policy`` on a form the features ``spec`` read: its own, or the history form
    (converted exactly) where they read history nodes (``waugh``, ``thesis``); ``game``
    (optional) must be the policy's game."""
    if game is not None:
        game = game.game if is_compiled(game) else load_game(game)
        if str(game) != str(policy.game):
            raise RcfrError(f"the strategy is for {policy.game}, not for {game}")
    if (feature_provider(spec).history_only
            and not policy.tree.supports(Capability.HISTORY_NODES)):
        return policy.convert(compile_game(policy.game, form="history"))
    return policy


def distill(policy: TabularPolicy, model: str = "cart", max_depth: int | None = None, *,
            per_round: bool = False, features: str | None = None, weights: str = "reach",
            game: Any = None, seed: int = 0) -> Distilled:
    """Fit ``model`` (:data:`rcfr.distill.models.MODELS`) of at most ``max_depth`` levels
    (``None``: unbounded) to ``policy``, one per player, or per player and betting round with
    ``per_round``, on ``features`` (a feature set with information-set meaning; default
    :func:`default_distill_features`), each information set weighted by the acting player's own
    reach (``weights="uniform"``: equally); returns the predicted policy and both
    exploitabilities."""
    make_model(model, max_depth, seed)  # a bad name or depth fails before any work
    return _fit(_prepare(policy, game, features, weights), model, max_depth, per_round, seed)


def _prepare(policy: TabularPolicy, game: Any, features: str | None, weights: str):
    """What every fit of ``policy`` shares, whatever the model and depth: the policy on a form
    the features read (:func:`_form_policy`), the feature set, both players' training sets and
    the original's evaluation."""
    spec = features or default_distill_features(policy.tree)
    parse_features(spec)
    policy = _form_policy(game, policy, spec)
    tree = policy.tree
    data = [training_set(tree, policy, player, spec, weights) for player in (0, 1)]
    return policy, spec, weights, data, evaluate(tree, policy)


def _fit(prepared, model: str, max_depth: int | None, per_round: bool,
         seed: int) -> Distilled:
    """One model per player (and round) fitted to :func:`_prepare`'s training sets."""
    policy, spec, weights, training, original = prepared
    tree = policy.tree
    weights_out = np.zeros(tree.num_sequences)
    parts: list[Part] = []
    for player, data in enumerate(training):
        groups = np.unique(data.round) if per_round else [None]
        pred = np.zeros_like(data.Y)
        for r in groups:
            rows = np.arange(data.X.shape[0]) if r is None else np.flatnonzero(data.round == r)
            if rows.size == 0:
                continue
            w = data.weight[rows]
            if not w.sum() > 0:  # nowhere reached: equal weights
                w = np.ones(rows.size)
            m = make_model(model, max_depth, seed)
            m.fit(data.X[rows], data.Y[rows], w)
            pred[rows] = np.nan_to_num(m.predict(data.X[rows]), nan=0.0)
            parts.append(Part(player, None if r is None else int(r), int(rows.size), m.size,
                              m.rules(data.names, data.action_names), m.unit, m, data.names,
                              data.action_names))
        seqs = tree.player_sequences(player)  # the legal actions only, clipped at zero
        weights_out[seqs.start:seqs.stop] = np.clip(pred[data.seq_row, data.seq_col], 0.0, None)
    meta = {"model": model, "max_depth": max_depth, "per_round": per_round, "features": spec,
            "weights": weights}
    if all(p.rules is not None for p in parts) and sum(p.size for p in parts) <= KEPT_RULES:
        meta["rules"] = [{"player": p.player, "round": p.round, "rules": p.rules}
                         for p in parts]
    small = TabularPolicy.from_weights(tree, weights_out, {"distilled": meta}, consume=True)
    return Distilled(small, evaluate(tree, small), original, parts)


def sweep(policy: TabularPolicy, depths: list[int], model: str = "cart", *,
          per_round: bool = False, features: str | None = None, weights: str = "reach",
          game: Any = None, seed: int = 0) -> list[tuple[int, Distilled]]:
    """:func:`distill` at every depth in ``depths``: the curve of exploitability against model
    size (the training sets and the original's evaluation are built once)."""
    for d in depths:
        make_model(model, d, seed)  # a bad name or depth fails before any work
    prepared = _prepare(policy, game, features, weights)
    return [(d, _fit(prepared, model, d, per_round, seed)) for d in depths]

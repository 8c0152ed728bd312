"""Tabular behaviour strategies of both players, indexed by sequence."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .core.errors import RcfrError
from .core.fileio import check_game_matches, read_npz, shown, write_npz
from .core.kernels import normalize
from .forms.base import Form
from .forms.compile import compile_game
from .forms.convert import convert_probs, written_on
from .games.protocol import Game, State

POLICY_FORMAT = "rcfr.policy"


class TabularPolicy:
    """A behavioural strategy profile: ``probs[s]`` is the probability of sequence ``s``'s action
    at its information set (each information set's slice sums to one)."""

    def __init__(self, tree: Form | Game | str, probs: np.ndarray,
                 metadata: dict | None = None) -> None:
        self.tree = compile_game(tree)
        probs = np.ascontiguousarray(probs, dtype=np.float64)
        if probs.shape != (self.tree.num_sequences,):
            raise RcfrError(
                f"a policy for {self.tree.game} needs {self.tree.num_sequences} probabilities, "
                f"got shape {probs.shape}"
            )
        if not np.all(np.isfinite(probs)) or np.any(probs < -1e-12):
            raise RcfrError("policy probabilities must be finite and non-negative")
        sums = np.add.reduceat(probs, self.tree.infoset_seq_start) if probs.size else probs
        if probs.size:
            sums -= 1.0  # (in place: one vector over the information sets)
            np.abs(sums, out=sums)
        if probs.size and np.max(sums) > 1e-6:
            bad = int(np.argmax(sums))
            raise RcfrError(
                f"policy probabilities at {self.tree.infoset_keys[bad]!r} sum to {sums[bad]:.6g}"
            )
        self.probs = probs
        self.metadata: dict[str, Any] = dict(metadata or {})

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def uniform(cls, tree: Form | Game | str) -> TabularPolicy:
        tree = compile_game(tree)
        return cls(tree, 1.0 / tree.infoset_num_actions[tree.seq_infoset])

    @classmethod
    def from_weights(cls, tree: Form, weights: np.ndarray, metadata=None,
                     consume: bool = False) -> TabularPolicy:
        """Normalise non-negative weights per information set (uniform where all are zero).
        The probabilities overwrite a float64 copy the conversion made (e.g. of float32 weights),
        or ``weights`` itself where ``consume``: no second vector over the sequences."""
        w = np.asarray(weights, dtype=np.float64)
        own = consume or not (isinstance(weights, np.ndarray) and np.may_share_memory(w, weights))
        out = w if own and w.flags.c_contiguous and w.flags.writeable else np.empty(
            tree.num_sequences)
        normalize(w, 0, tree.num_infosets, tree.infoset_seq_start, tree.infoset_num_actions, out)
        return cls(tree, out, metadata)

    # -- queries -------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.tree.game

    def infoset_probabilities(self, infoset: int) -> np.ndarray:
        start = self.tree.infoset_seq_start[infoset]
        return self.probs[start : start + self.tree.infoset_num_actions[infoset]]

    def action_probabilities(self, state: State | str,
                             player: int | None = None) -> dict[int, float]:
        """``{action: probability}`` at a state of the game or an information-state string."""
        if isinstance(state, State):
            player = state.current_player() if player is None else player
            key = state.information_state_string(player)
        else:
            key = state
        i = self.tree.infoset_index(key, player)
        return {int(a): float(p) for a, p in
                zip(self.tree.infoset_actions(i), self.infoset_probabilities(i), strict=True)}

    def table(self) -> list[tuple[int, str, str, float]]:
        """Rows ``(player, information state, action name, probability)``."""
        t = self.tree
        return [(int(t.infoset_player[t.seq_infoset[s]]), t.infoset_keys[t.seq_infoset[s]],
                 t.seq_action_names[s], float(self.probs[s])) for s in range(t.num_sequences)]

    def convert(self, tree: Form) -> TabularPolicy:
        """The same profile on ``tree``, the game's other compiled form (exact: each
        information set's probabilities are copied)."""
        if tree is self.tree:
            return self
        return TabularPolicy(tree, convert_probs(self.probs, self.tree, tree), self.metadata)

    # -- files ---------------------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> Path:
        """Write ``.npz`` (probabilities) with a JSON header naming the game; atomic."""
        meta = {
            "format": POLICY_FORMAT,
            "version": 1,
            "game": str(self.game),
            "fingerprint": self.tree.fingerprint(),
            "num_sequences": self.tree.num_sequences,
            "form": self.tree.form,
            "metadata": self.metadata,
        }
        return write_npz(path, {"probs": self.probs}, meta)

    @classmethod
    def load(cls, path: str | os.PathLike,
             game: Form | Game | str | None = None) -> TabularPolicy:
        """Read a policy file, checking it against ``game`` (default: the game it names)."""
        name = shown(path)
        arrays, meta = read_npz(path, POLICY_FORMAT)
        if game is None:
            game = meta.get("game")
            if not isinstance(game, str) or not game:
                raise RcfrError(f"{name} is corrupted: its header names no game")
        tree = compile_game(game)
        metadata = meta.get("metadata")
        theirs = meta.get("form") or (metadata.get("form") if isinstance(metadata, dict)
                                      else None) or "history"
        other = written_on(tree, theirs, meta.get("fingerprint"))
        if other is not None:  # written on the game's other compiled form: read there,
            # converted exactly
            return cls.load(path, other).convert(tree)
        check_game_matches(path, "a strategy", meta, tree)
        probs = arrays.get("probs")
        if probs is None or probs.dtype != np.float64 or probs.ndim != 1:
            raise RcfrError(f"{name} is corrupted: no float64 probability vector")
        metadata = meta.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise RcfrError(f"{name} is corrupted: its metadata is not a JSON object")
        try:
            return cls(tree, probs, metadata)
        except RcfrError as exc:
            raise RcfrError(f"{name} is corrupted: {exc}") from None


def convert_policy(policy: TabularPolicy, tree: Form) -> TabularPolicy:
    """``policy`` on ``tree``, its game's other compiled form (:meth:`TabularPolicy.convert`)."""
    return policy.convert(tree)

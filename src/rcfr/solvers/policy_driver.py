"""What the drivers that are not the regret loop share -- fictitious play and its variants
(:mod:`rcfr.solvers.fp`) and the Deep CFR family (:mod:`rcfr.solvers.deep`): the interface
:mod:`rcfr.run.engine` drives (``run(n)``, ``iteration``, ``nodes_visited``,
``average_policy()``, ``current_policy()``, ``save_checkpoint`` / ``load_checkpoint``,
``setup()``, ``name``) and their checkpoints (:mod:`rcfr.solvers.checkpoint`).

They are other drivers over the same compiled forms, beside
:class:`rcfr.solvers.loop.RegretSolver` (docs/architecture.md, "An algorithm").
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..core.checks import MAX_COUNT, whole_number
from ..core.errors import RcfrError
from ..core.fileio import shown
from ..core.statecheck import check_checkpoint
from ..forms.base import Form
from ..forms.compile import compile_game
from ..policy import TabularPolicy
from .checkpoint import check_options, read_checkpoint, write_checkpoint


class PolicyDriver:
    """The run engine's driver interface (:class:`rcfr.run.protocol.Solver`) for the drivers
    that are not the regret loop (fictitious play, the Deep CFR family).  A subclass sets
    ``name``, fills :meth:`_init_state`, :meth:`_iterate`, :meth:`_average`, and names its
    checkpoint arrays (:meth:`_state` / :meth:`_load_state`) and the options a resumed run must
    share (:meth:`_config`)."""

    name: str  # the algorithm (each driver names itself)
    complexity = None  # no estimator: tables over sequences (or networks: see NFSP)
    _growing_state: tuple[str, ...] = ()  # checkpoint keys of memories that fill up

    def __init__(self, game: Form | Any, *, seed: int | None = None) -> None:
        self.game = game
        self.seed = seed
        self.iteration = 0
        self.nodes_visited = 0
        self._ready = False

    def _take_options(self, options: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
        """``options`` completed by ``defaults`` (``None``: the default); a name not among the
        defaults is refused with one line."""
        unknown = set(options) - set(defaults)
        if unknown:
            raise RcfrError(f"{self.name} takes no option {sorted(unknown)[0]!r}")
        return {k: (defaults[k] if options.get(k) is None else options[k]) for k in defaults}

    # -- set-up --------------------------------------------------------------------------
    def setup(self) -> None:
        if self._ready:
            return
        self.tree = compile_game(self.game)
        self._init_state()
        self._ready = True

    def _init_state(self) -> None:
        raise NotImplementedError

    # -- iterations ----------------------------------------------------------------------
    def run(self, iterations: int) -> PolicyDriver:
        """Advance ``iterations`` iterations."""
        iterations = whole_number(iterations, "iterations")
        self.setup()
        for _ in range(iterations):
            self._iterate()
        return self

    def _iterate(self) -> None:
        raise NotImplementedError

    # -- outputs -------------------------------------------------------------------------
    def _average(self) -> np.ndarray:
        raise NotImplementedError

    def _current(self) -> np.ndarray:
        return self._average()

    def _config(self) -> dict[str, Any]:
        return {}

    def _info(self) -> dict[str, Any]:
        info = {"algorithm": self.name, "iterations": self.iteration, "seed": self.seed,
                "nodes_visited": self.nodes_visited, **self._config()}
        info.update(self.tree.file_meta())
        return info

    def average_policy(self) -> TabularPolicy:
        """The average strategy (the one that converges to an equilibrium)."""
        self.setup()
        return TabularPolicy(self.tree, self._average().copy(), self._info())

    def current_policy(self) -> TabularPolicy:
        """The last iteration's strategy (the best responses, or what the agents play)."""
        self.setup()
        return TabularPolicy(self.tree, self._current().copy(), self._info())

    # -- checkpoints ---------------------------------------------------------------------
    def _state(self) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def _load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        raise NotImplementedError

    def _meta(self) -> dict[str, Any]:
        """JSON-able state beyond the arrays (e.g. counters) a checkpoint keeps."""
        return {}

    def save_checkpoint(self, path: str | os.PathLike) -> None:
        """Write the solver's full state (``.npz`` + JSON header, atomic)."""
        self.setup()
        write_checkpoint(path, self.tree, self._info(), self._state(), state=self._meta())

    def load_checkpoint(self, path: str | os.PathLike) -> PolicyDriver:
        """Resume from a checkpoint of the same game, algorithm and options."""
        name = shown(path)
        self.setup()
        arrays, meta = read_checkpoint(path, self.tree, self.name)
        check_options(path, meta, self._config())
        iteration, nodes = meta.get("iterations", 0), meta.get("nodes_visited", 0)
        if not all(type(v) is int and 0 <= v <= MAX_COUNT for v in (iteration, nodes)):
            raise RcfrError(f"{name} is corrupted: bad counters")
        check_checkpoint(name, arrays, self._state(), growing=self._growing_state)
        try:
            self._load_state(arrays, meta.get("state") or {})
        except (KeyError, ValueError, TypeError, IndexError, RuntimeError):
            raise RcfrError(f"{name} is corrupted: its arrays do not fit the game") from None
        self.iteration, self.nodes_visited = iteration, nodes
        return self

"""What the fictitious-play solvers share: the interface :mod:`rcfr.run.engine` drives
(``run(n)``, ``iteration``, ``nodes_visited``, ``average_policy()``, ``current_policy()``,
``save_checkpoint`` / ``load_checkpoint``, ``setup()``, ``name``) and their checkpoints
(``.npz`` + JSON header, :func:`rcfr.core.fileio.write_npz`; never pickle).

Fictitious play is not a regret loop (docs/architecture.md, "An algorithm"): it is a second
driver over the same compiled forms, beside :class:`rcfr.solvers.loop.RegretSolver`.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ...core.checks import MAX_COUNT, whole_number
from ...core.errors import RcfrError
from ...core.fileio import check_game_matches, read_npz, shown, write_npz
from ...core.statecheck import check_checkpoint
from ...forms.base import Form
from ...forms.compile import compile_game
from ...policy import TabularPolicy

CHECKPOINT_FORMAT = "rcfr.checkpoint"


def parse_step(step: Any) -> tuple[str, float]:
    """A step-size schedule ``alpha_t`` (the weight iteration ``t``'s best response gets in the
    average): ``"harmonic"`` (default, ``1/(t+1)``: the plain average of the best responses,
    Brown 1951; Heinrich et al. 2015, Alg. 1), ``"power:P"`` (``(t+1)**-P``, ``0 < P <= 1``)
    or ``"const:A"`` (``A``, ``0 < A <= 1``)."""
    text = "harmonic" if step is None else str(step).strip().lower()
    kind, _, arg = text.partition(":")
    if kind == "harmonic" and not arg:
        return "harmonic", 1.0
    if kind in ("power", "const") and arg:
        try:
            value = float(arg)
        except ValueError:
            value = float("nan")
        if 0 < value <= 1:
            return kind, value
    raise RcfrError(f"--step must be harmonic, power:P or const:A (0 < P, A <= 1), got {step!r}")


def step_size(schedule: tuple[str, float], t: int) -> float:
    """``alpha_t`` of a parsed schedule at iteration ``t >= 1``."""
    kind, value = schedule
    if kind == "harmonic":
        return 1 / (t + 1)  # as OpenSpiel's XFPSolver writes it (bit for bit)
    if kind == "power":
        return float((t + 1) ** -value)
    return value


class FPSolverBase:
    """The run engine's driver interface (:class:`rcfr.run.protocol.Solver`) for the
    fictitious-play family.  A subclass sets ``name``, fills :meth:`_init_state`,
    :meth:`_iterate`, :meth:`_average`, and names its checkpoint arrays (:meth:`_state` /
    :meth:`_load_state`) and the options a resumed run must share (:meth:`_config`)."""

    name = "fp"
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
    def run(self, iterations: int) -> FPSolverBase:
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
        meta = {"format": CHECKPOINT_FORMAT, "version": 1, "game": str(self.tree.game),
                "fingerprint": self.tree.fingerprint(), **self._info(), "state": self._meta()}
        write_npz(path, self._state(), meta)

    def load_checkpoint(self, path: str | os.PathLike) -> FPSolverBase:
        """Resume from a checkpoint of the same game, algorithm and options."""
        name = shown(path)
        self.setup()
        arrays, meta = read_npz(path, CHECKPOINT_FORMAT)
        check_game_matches(path, "a checkpoint", meta, self.tree)
        if meta.get("algorithm") != self.name:
            raise RcfrError(f"{name} is a {meta.get('algorithm')} checkpoint, not {self.name}")
        for key, value in self._config().items():
            if meta.get(key) != value:
                raise RcfrError(f"{name} was run with {key} {meta.get(key)!r}, not {value!r}")
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


class SteppedSolver(FPSolverBase):
    """A fictitious-play solver whose average moves toward best responses by a step-size
    schedule (``step``: ``harmonic`` = ``1/(t+1)``, ``power:P``, ``const:A``; see
    :func:`parse_step`), with alternating or simultaneous updates."""

    def __init__(self, game: Form | Any, *, step: str | None = None, alternating: bool = True,
                 seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        self.step = step
        self.alternating = alternating


def checked(array: np.ndarray, shape: tuple[int, ...], dtype=np.float64) -> np.ndarray:
    """``array`` as ``dtype`` if it has ``shape`` (else ``ValueError``)."""
    out = np.array(array, dtype=dtype)
    if out.shape != shape:
        raise ValueError("shape")
    return out

"""The driver contract the run engine (:mod:`rcfr.run.engine`) runs: what a regret solver
(:class:`~rcfr.solvers.loop.RegretSolver`), the fictitious-play and deep drivers
(:mod:`rcfr.solvers.fp`, :mod:`rcfr.solvers.deep`), a solver through an abstraction
(:class:`~rcfr.abstraction.solve.AbstractedSolver`) and the distributed solver keep.  As
OpenSpiel's solver API, a few methods: set up, iterate, give the policies, save and load the
state."""

from __future__ import annotations

import os
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Solver(Protocol):
    """A solver the engine drives.

    ``setup()`` validates the options and loads the kernels (the engine calls it once, before
    the first timed run; running sets up a solver not set up yet); ``run(n)`` advances ``n``
    iterations, ``run_nodes(budget)`` whole iterations until ``budget`` more histories have
    been visited (a driver that does not walk the tree by histories runs one iteration a
    call); ``iteration`` and ``nodes_visited`` count them.  ``average_policy()`` is the
    strategy that converges to an equilibrium, ``current_policy()`` the last iteration's;
    ``save_checkpoint(path)`` / ``load_checkpoint(path)`` write and read the whole state
    (exactly: a resumed run gives the uninterrupted run's numbers).  ``tree`` is the compiled
    game its policies index (after ``setup()``); ``name`` the algorithm's name;
    ``complexity`` its size where it has one (a regressor's leaves), else ``None``.  A driver
    that holds a node lock gives it as ``locked`` (a :class:`~rcfr.forms.lock.NodeLock`; the
    engine evaluates its policies in the locked game)."""

    name: str
    iteration: int
    nodes_visited: int

    def setup(self) -> None: ...

    def run(self, iterations: int) -> Any: ...

    def average_policy(self) -> Any: ...

    def current_policy(self) -> Any: ...

    def save_checkpoint(self, path: str | os.PathLike) -> Any: ...

    def load_checkpoint(self, path: str | os.PathLike) -> Any: ...

"""Experiments: run specs, sweeps on local processes or Ray, a SQLite results store, the
papers' figures read from it, and the reproduction report.  Exports load on first use
(:func:`rcfr.core.lazy.lazy_exports`)."""

from typing import TYPE_CHECKING

from ..core.lazy import lazy_exports

if TYPE_CHECKING:
    from .execute import execute
    from .spec import RunSpec, SweepSpec, load_run_spec, load_sweep, parse_sweep
    from .store import Store
    from .sweep import plan, run_sweep

__getattr__, __dir__ = lazy_exports(__name__, {
    "execute": ".execute", "RunSpec": ".spec", "SweepSpec": ".spec",
    "load_run_spec": ".spec", "load_sweep": ".spec", "parse_sweep": ".spec", "Store": ".store",
    "plan": ".sweep", "run_sweep": ".sweep"})

__all__ = ["RunSpec", "Store", "SweepSpec", "execute", "load_run_spec", "load_sweep",
           "parse_sweep", "plan", "run_sweep"]

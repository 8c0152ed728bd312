"""Experiments: run specs, sweeps on local processes or Ray, a SQLite results store, the
papers' figures read from it, and the reproduction report."""

from .execute import execute
from .spec import RunSpec, SweepSpec, load_run_spec, load_sweep, parse_sweep
from .store import Store
from .sweep import plan, run_sweep

__all__ = ["RunSpec", "Store", "SweepSpec", "execute", "load_run_spec", "load_sweep",
           "parse_sweep", "plan", "run_sweep"]

"""The run engine: one loop for every solve (:mod:`rcfr.run.engine`), the run spec that defines
a run (:mod:`rcfr.run.spec`), the solver protocol the engine drives
(:mod:`rcfr.run.protocol`) and the one result (:mod:`rcfr.run.result`).  Exports load on first
use (:func:`rcfr.core.lazy.lazy_exports`)."""

from typing import TYPE_CHECKING

from ..core.lazy import lazy_exports

if TYPE_CHECKING:
    from .engine import RunHooks, drive, run_spec, solve
    from .protocol import Solver
    from .result import RunResult
    from .spec import RunSpec, load_run_spec

__getattr__, __dir__ = lazy_exports(__name__, {
    "RunHooks": ".engine", "drive": ".engine", "run_spec": ".engine", "solve": ".engine",
    "Solver": ".protocol", "RunResult": ".result", "RunSpec": ".spec",
    "load_run_spec": ".spec"})

__all__ = ["RunHooks", "RunResult", "RunSpec", "Solver", "drive", "load_run_spec", "run_spec",
           "solve"]

"""What the benchmark scripts share: wall-clock (and CPU) timing of repeated calls and package
versions."""

from __future__ import annotations

import statistics
import time
from importlib import metadata


def timed(fn, repeats: int) -> list[float]:
    """Wall-clock seconds of ``repeats`` calls of ``fn`` (the caller warms up)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def median_time(fn, repeats: int) -> float:
    """Median wall-clock seconds of ``repeats`` calls of ``fn``."""
    return statistics.median(timed(fn, repeats))


def median_times(fn, repeats: int) -> tuple[float, float]:
    """Median wall-clock and median CPU seconds (``time.process_time``) of ``repeats`` calls
    of ``fn``: on a shared machine the CPU time is what the process itself spent."""
    walls, cpus = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def version_of(dist: str) -> str | None:
    """The installed version of a distribution, or ``None``."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def proc_status(field: str) -> int:
    """A memory field of ``/proc/self/status`` in bytes (``VmRSS``: resident now, ``VmHWM``:
    the peak); 0 where there is none (not Linux)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover (not Linux)
        pass
    return 0

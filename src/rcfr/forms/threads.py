"""How many threads the compiled kernels use (numba's thread pool).

The public form's full-width pass, its exact evaluation and terminal sweeps run on
``numba.get_num_threads()`` threads and give the same numbers bit for bit on any count
(:mod:`rcfr.forms.public.terminals`); :func:`kernel_threads` sets the count for a block of
calls.  ``NUMBA_NUM_THREADS`` (read when numba loads) caps it.

Unless ``NUMBA_THREADING_LAYER`` says otherwise, the kernels run on numba's ``workqueue``
layer: OpenMP's threads spin between the many short parallel regions of a pass, which on a
loaded machine cost up to six times the one-thread CPU time (2-NL Hold'em(20), two cores at
load 9: one DCFR iteration 0.06 s of CPU on one thread, 0.36 s on two with ``omp``, 0.07 s with
``workqueue``).  The workqueue layer takes parallel calls from one Python thread at a time."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import numba

from ..core.errors import RcfrError

if "NUMBA_THREADING_LAYER" not in os.environ:  # (read at numba's first parallel call)
    numba.config.THREADING_LAYER = "workqueue"


def available_cores() -> int:
    """The cores this process may run on (``os.sched_getaffinity``), at most numba's pool."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover (not Linux)
        cores = os.cpu_count() or 1
    return max(1, min(cores, numba.config.NUMBA_NUM_THREADS))


@contextmanager
def kernel_threads(threads: int | None = None) -> Iterator[int]:
    """Run the kernels called inside the block on ``threads`` threads (``None``: numba's
    current count, which a sweep's workers set to 1 and which is otherwise the machine's
    cores); the previous count is restored after it.  Yields the count used."""
    if threads is None:
        n = numba.get_num_threads()
    elif isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise RcfrError(f"threads must be a positive whole number, got {threads!r}")
    else:
        n = min(threads, numba.config.NUMBA_NUM_THREADS)
    before = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield n
    finally:
        numba.set_num_threads(before)


def thread_args(*more, always: bool = False) -> tuple:
    """The trailing arguments of a threaded kernel: ``(n, *more)`` on ``n`` > 1 numba threads,
    else none, so that one thread runs the kernel compiled without its threaded branches (a
    reachable parallel region, even one never entered, made Leduc's CFR+ iteration three times
    slower).  ``always``: ``(n, *more)`` on one thread too, so that every thread count runs
    one compilation: two compilations of a kernel may fuse a multiply and an add into one
    rounding (FMA) in one and not the other, which changed the last bits of hold'em spots'
    values between one thread and two."""
    n = numba.get_num_threads()
    return (n, *more) if n > 1 or always else ()

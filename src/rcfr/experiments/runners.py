"""Backends that run sweep tasks: local processes (:mod:`concurrent.futures`) or Ray tasks.

Both keep at most ``workers`` runs in flight, hand each finished run's result dict back to the
driver's ``on_result`` (the driver alone writes the store) and call ``on_start`` before a run
is handed to a worker (it returns False for a run to skip: another driver holds it).
Workers pin numba and BLAS to one thread each.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError, install_hint
from .execute import execute
from .spec import RunSpec

OnStart = Callable[[RunSpec], bool | None]  # False: the run is skipped (held elsewhere)
OnResult = Callable[[dict[str, Any]], None]
BACKENDS = ("local", "ray")  # the command line's; run_sweep also takes "inline"
_PARENT: int | None = None  # the driver's pid, in a local worker
_BUSY = threading.Event()  # set while a local worker runs a task


def _one_thread() -> None:
    # numba reads NUMBA_NUM_THREADS when its configuration loads and again whenever it
    # reloads it; where numba is already imported (a forked worker), changing the variable
    # makes the next reload refuse, so only the thread count is set there
    if "numba" not in sys.modules:
        os.environ["NUMBA_NUM_THREADS"] = "1"
    os.environ["OMP_NUM_THREADS"] = "1"
    try:
        import numba

        numba.set_num_threads(1)
    except (ImportError, ValueError):  # pragma: no cover
        pass
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # pragma: no cover
        pass


def _init_local_worker(parent: int) -> None:
    global _PARENT
    _PARENT = parent
    _one_thread()
    threading.Thread(target=_watch_driver, daemon=True).start()


def _watch_driver() -> None:
    """Exit this worker once its driver is gone and it is not running a task (a running task
    stops at its next chunk and writes its checkpoint first): a ``kill -9`` of the driver
    leaves no process behind."""
    while True:
        time.sleep(0.2)
        if _driver_gone() and not _BUSY.is_set():
            os._exit(0)


def _driver_gone() -> bool:
    """True once the driver that started this worker has died (``kill -9``): the run stops
    after its current chunk and writes its checkpoint."""
    return _PARENT is not None and os.getppid() != _PARENT


def _local_task(spec_json: str, directory: str, checkpoint_every: float,
                max_memory: int | None = None) -> dict[str, Any]:
    _BUSY.set()
    try:
        return execute(spec_json, directory, checkpoint_every=checkpoint_every,
                       should_stop=_driver_gone, max_memory=max_memory)
    finally:
        _BUSY.clear()


def _failed(spec: RunSpec, message: str, status: str = "failed") -> dict[str, Any]:
    return {"hash": spec.hash, "status": status, "error": message, "points": []}


def run_local(specs: Iterable[RunSpec], directory: Path, *, workers: int,
              checkpoint_every: float, on_start: OnStart, on_result: OnResult,
              max_memory: int | None = None, fresh_workers: bool = False) -> None:
    """Run ``specs`` on ``workers`` spawned processes, one run per worker at a time
    (``max_memory``: each run's memory budget, :mod:`rcfr.core.budget`; ``fresh_workers``:
    each run in a new process, which then holds only that run's memory, at the cost of
    compiling its game again)."""
    pending = list(specs)[::-1]
    while pending:  # a new pool after a worker died: the others go on
        context = multiprocessing.get_context("spawn")  # no fork after numba's threads start
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_init_local_worker,
                                 initargs=(os.getpid(),),
                                 max_tasks_per_child=1 if fresh_workers else None) as pool:
            _drain(pool, pending, workers, str(directory), checkpoint_every, on_start,
                   on_result, max_memory)


def _drain(pool: ProcessPoolExecutor, pending: list[RunSpec], workers: int, directory: str,
           checkpoint_every: float, on_start: OnStart, on_result: OnResult,
           max_memory: int | None = None) -> None:
    """Feed ``pending`` (popped from the end) to ``pool`` until it is empty or the pool
    breaks."""
    inflight: dict[Any, RunSpec] = {}
    broken = False

    def submit() -> None:
        while pending:
            spec = pending.pop()
            if on_start(spec) is not False:
                inflight[pool.submit(_local_task, spec.to_json(), directory,
                                     checkpoint_every, max_memory)] = spec
                return

    while pending and len(inflight) < workers:
        submit()
    while inflight:
        finished, _ = wait(inflight, return_when=FIRST_COMPLETED)
        for future in finished:
            spec = inflight.pop(future)
            try:
                result = future.result()
            except BrokenProcessPool:
                broken = True
                # a re-run resumes it from its last checkpoint
                result = _failed(spec, "a worker process died (killed or out of memory)",
                                 "interrupted")
            on_result(result)
            if pending and not broken:
                submit()


def run_inline(specs: Iterable[RunSpec], directory: Path, *, checkpoint_every: float,
               on_start: OnStart, on_result: OnResult, max_memory: int | None = None,
               fresh_workers: bool = False) -> None:
    """Run ``specs`` one after the other in this process (for tests and debugging;
    ``fresh_workers`` has no process to renew here)."""
    for spec in specs:
        if on_start(spec) is False:
            continue
        on_result(execute(spec, directory, checkpoint_every=checkpoint_every,
                          max_memory=max_memory))


def _ray_task(spec_json: str, directory: str, checkpoint_every: float,
              max_memory: int | None = None) -> dict[str, Any]:
    _one_thread()
    Path(directory).mkdir(parents=True, exist_ok=True)
    return execute(spec_json, directory, checkpoint_every=checkpoint_every,
                   max_memory=max_memory)


def run_ray(specs: Iterable[RunSpec], directory: Path, *, workers: int | None,
            checkpoint_every: float, on_start: OnStart, on_result: OnResult,
            address: str | None = None, max_memory: int | None = None) -> None:
    """Run ``specs`` as Ray tasks (one CPU each).  ``address`` joins a cluster (``auto``: the
    one this machine belongs to); without it a local Ray instance with ``workers`` CPUs is
    started (and stopped at the end) unless Ray is already initialised.  Checkpoints are
    written to ``directory``: on a cluster it must be on a file system all nodes share for a
    run to resume on another node."""
    try:
        import ray
    except ImportError:
        raise RcfrError(f"the ray backend needs Ray: {install_hint('ray')}") from None
    started = False
    if not ray.is_initialized():
        env = {"env_vars": {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}}
        try:
            if address:
                ray.init(address=address, runtime_env=env, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, runtime_env=env, include_dashboard=False,
                         log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RcfrError(f"cannot start or join Ray{f' at {address}' if address else ''}: "
                            f"{' '.join(str(exc).split())}") from None
        started = True
    try:
        window = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(num_cpus=1, max_retries=0)(_ray_task)
        pending = list(specs)[::-1]
        inflight: dict[Any, RunSpec] = {}

        def submit() -> None:
            while pending:
                spec = pending.pop()
                if on_start(spec) is not False:
                    inflight[remote.remote(spec.to_json(), str(directory),
                                           checkpoint_every, max_memory)] = spec
                    return

        while pending and len(inflight) < window:
            submit()
        while inflight:
            ready, _ = ray.wait(list(inflight), num_returns=1)
            for ref in ready:
                spec = inflight.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception as exc:  # a worker that died: recorded, the sweep goes on
                    result = _failed(spec, f"Ray task failed: {type(exc).__name__}")
                on_result(result)
                if pending:
                    submit()
    finally:
        if started:
            ray.shutdown()

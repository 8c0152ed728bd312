"""Reaching Ray and sizing the processes: Ray imported with a one-line error where the extra is
missing, ``--address`` checked (and a ``HOST:PORT`` asked whether anything listens) before
``ray.init``, and the memory guard for the driver and each actor."""

from __future__ import annotations

import re
import socket
from typing import Any

from ..core.budget import format_bytes, parse_memory, public_sequences
from ..core.errors import RcfrError, install_hint

OBJECT_STORE_BYTES = 200 * 1024**2  # the local cluster's object store (small: shared machines)
CONNECT_SECONDS = 5.0  # how long HOST:PORT may take to accept a connection
# The memory model of a distributed run, per sequence (measured on 2-NL Hold'em(36), 2 actors,
# 199,672,165 sequences; docs/distributed.md): every process builds the skeleton (1.0 GiB,
# 5.4 bytes a sequence of the whole tree); an actor holds its part's tables (64 bytes a
# sequence in float64, 44 in float32) and arrays (12); the driver peaked at 2.66 GB (13.3 a
# sequence of the whole tree) in float64 and 3.32 GB (16.6) in float32.
SKELETON_BYTES_PER_SEQUENCE = 6
PART_BYTES_PER_SEQUENCE = {"float64": 76, "float32": 56}
DRIVER_BYTES_PER_SEQUENCE = 17
_HOST = re.compile(r"[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]")


def import_ray():
    """The ``ray`` module, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RcfrError(f"--distributed ray needs Ray, which is not installed: "
                        f"{install_hint('ray')}") from None
    return ray


def check_address(address: str | None) -> tuple[str, int] | None:
    """Refuse a malformed ``--address``; the host and port of a ``HOST:PORT`` (``None`` for
    none, ``auto`` or ``local``)."""
    if address is None:
        return None
    if not isinstance(address, str) or not address.strip():
        raise RcfrError("--address is empty: give auto or HOST:PORT (or leave it out for a "
                        "local cluster)")
    text = address.strip()
    if text.lower() in ("auto", "local"):
        return None
    rest = text[len("ray://"):] if text.lower().startswith("ray://") else text
    host, colon, port = rest.rpartition(":")
    if not colon or _HOST.fullmatch(host) is None or not port.isdigit() \
            or not 1 <= int(port) <= 65535:
        raise RcfrError(f"--address {address!r}: give auto or HOST:PORT (a host name or IP "
                        f"address, a port in 1..65535)")
    return host.strip("[]"), int(port)


def connect(address: str | None, num_cpus: int):
    """``ray.init``: a local cluster with ``num_cpus`` CPUs where ``address`` is ``None``,
    else the cluster at ``address``, refused in seconds where nothing listens there; returns
    the ``ray`` module."""
    ray = import_ray()
    where = check_address(address)
    if where is not None:
        try:
            socket.create_connection(where, timeout=CONNECT_SECONDS).close()
        except OSError as exc:
            raise RcfrError(f"--address {address}: no Ray cluster answers there "
                            f"({exc.strerror or exc})") from None
    if ray.is_initialized():
        return ray
    try:
        if address is not None:
            ray.init(address=address.strip(), include_dashboard=False)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False,
                     object_store_memory=OBJECT_STORE_BYTES, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RcfrError(f"cannot start or reach the Ray cluster"
                        f"{f' at {address}' if address else ''}: {first}") from None
    return ray


def _refuse(what: str, need: float, budget: int) -> RcfrError:
    return RcfrError(f"{what} needs about {format_bytes(need)}; the limit is "
                     f"{format_bytes(budget)}: see --max-memory, more --actors, "
                     f"--dtype float32, or a smaller game")


def check_memory(game: Any, sequences: int | None, parts: list[int] | None, actors: int,
                 dtype: str, max_memory: str | float | int | None) -> None:
    """Refuse a run whose driver or largest actor would need more than the budget
    (``max_memory``; default: :func:`rcfr.core.budget.parse_memory`'s).  Before the split,
    ``sequences`` and ``parts`` are ``None``: the game's closed-form size, parts of equal
    size; after it, the whole tree's sequences and each part's."""
    if sequences is None:
        sequences = public_sequences(game)
        if sequences is None:  # no closed form: the skeleton's own guard applies
            return
    budget = parse_memory(max_memory)
    largest = max(parts) if parts else -(-sequences // actors)
    skeleton = SKELETON_BYTES_PER_SEQUENCE * float(sequences)
    actor = skeleton + PART_BYTES_PER_SEQUENCE[dtype] * float(largest)
    if actor > budget:
        raise _refuse(f"{game} on {actors} actors: each actor ({largest:,} sequences of "
                      f"{sequences:,}, {dtype})", actor, budget)
    driver = DRIVER_BYTES_PER_SEQUENCE * float(sequences)
    if driver > budget:
        raise _refuse(f"{game} on {actors} actors: the driver ({sequences:,} sequences)",
                      driver, budget)

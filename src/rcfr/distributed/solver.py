"""The distributed full-width solver: the driver holds the trunk of the public tree, each Ray
actor a group of public subgames below the cut (CFR-D, Burch et al. 2014; the HULHE solve,
Bowling et al. 2015).  Per iteration the driver sends the realization weights at the actors'
subgame roots and receives the counterfactual values at them; the actors' tables never move.

The arithmetic is the single-process kernels' on sub-arrays of the public tree, and the trunk
adds the returned values in the whole tree's order (:mod:`rcfr.forms.public.split`), so a run
with any number of actors equals :class:`rcfr.solvers.loop.CFRSolver` on the public form bit
for bit, for every update rule, alternating or simultaneous.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..core.budget import peak_rss
from ..core.errors import RcfrError
from ..core.fileio import read_npz, write_atomic, write_npz
from ..core.links import parse_link
from ..core.names import ALGORITHMS
from ..core.rules import UpdateRule, parse_rule
from ..forms.compile import compile_game, is_compiled
from ..forms.public.split import PartState, cut_key, split_skeleton
from ..forms.public.tree import compile_skeleton
from ..games.registry import load_game
from ..solvers.loop import AVERAGING_NAMES, TABLE_DTYPES, averaging_power
from . import checkpoint_folder as ck
from .cluster import check_address, check_memory, connect, import_ray

MANIFEST = ck.MANIFEST
PART_FORMAT = "rcfr.distributed.part"
TRUNK_FORMAT = "rcfr.distributed.trunk"


def _rss() -> int:
    """This process's resident memory in bytes (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover
        return 0


def _game_key(game: Any) -> Any:
    """What an actor rebuilds the game from: its string (a game's object may hold its compiled
    tree, which must not travel)."""
    return str(game)


class PartWorker:
    """One actor's state: a :class:`rcfr.forms.public.split.PartState` and its steps, run in
    batches (one remote call per exchange with the driver).  The actor builds its part itself
    from the game's skeleton (:func:`rcfr.forms.public.split.split_skeleton`): the whole tree
    is never compiled, the part's arrays never travel."""

    def __init__(self, game: Any, cut: str, parts: int, index: int, rule_spec: str,
                 link_spec: str, fingerprint: str, dtype: str = "float64",
                 skeleton: Any = None) -> None:
        link = parse_link(link_spec)
        self.index = index
        skel = compile_skeleton(game) if skeleton is None else skeleton
        if skel.fingerprint() != fingerprint:
            raise RcfrError(f"the actor's {skel.game} is not the driver's game")
        split = split_skeleton(skel, cut, parts, build=index)
        part = split.parts[index]
        self.ret = split.ret_slots[index]
        del split, skel
        self.state = PartState(part, parse_rule(rule_spec).params, link.kind, link.param,
                               TABLE_DTYPES[dtype])

    def step(self, reach: np.ndarray, ops: list) -> list:
        """Set the roots' reach, then run ``ops``: ``("plan", lo, hi, weight, average)``,
        ``("sweep", p, t)`` (its values returned)."""
        st = self.state
        st.set_reach(reach)
        out = []
        for op in ops:
            if op[0] == "plan":
                st.plan_players(op[1], op[2], op[3], op[4])
            else:
                out.append(st.sweep(op[1], op[2], self.ret[op[1]]))
        return out

    def evaluate(self, reach: np.ndarray) -> list:
        """Best-response values at the roots of the average strategy, for both players, and
        the part's share of player 0's expected value."""
        st = self.state
        st.set_reach(reach)
        st.eval_plan(st.average_probs())
        v0, share = st.best_response(0, self.ret[0])
        v1, _ = st.best_response(1, self.ret[1])
        return [v0, v1, share]

    def arrays(self) -> dict:
        """The part's tables and (``global_seq``) their sequences in the whole tree."""
        return {"global_seq": self.state.part.global_seq,
                **{k: v.copy() for k, v in self.state.state().items()}}

    def memory(self) -> dict:
        return {"tables": self.state.table_bytes, "tree": self.state.tree_bytes, "rss": _rss(),
                "peak_rss": peak_rss(), "pid": os.getpid()}

    def save(self, path: str, meta: dict) -> str:
        write_npz(path, self.state.state(), {"format": PART_FORMAT, "version": 1, **meta,
                                             "part": self.index})
        return path

    def load(self, path: str, meta: dict) -> None:
        arrays, theirs = read_npz(path, PART_FORMAT)
        for key in ("fingerprint", "iterations", "parts", "cut"):
            if theirs.get(key) != meta.get(key) or theirs.get("part") != self.index:
                raise RcfrError(f"{path} does not belong to this run ({key} differs)")
        ck.check_tables(path, arrays, self.state.part.num_sequences,
                        np.dtype(self.state.dtype).name)
        self.state.load_state(arrays)

    def pid(self) -> int:
        return os.getpid()


class DistributedSolver:
    """A full-width CFR-family solver (``algorithm``: cfr, cfr+, lcfr, dcfr[:a,b,g], pcfr+,
    pdcfr+) on the public tree split at ``cut`` (``flop``, ``chance``, ``depth:D``; default
    per game) over ``actors`` Ray actors.  ``address``: a Ray cluster (``auto`` or
    ``HOST:PORT``); none: a local cluster.  ``dtype="float32"``: the tables in single
    precision, as :class:`rcfr.solvers.loop.CFRSolver`'s ``dtype`` (and bit for bit its
    numbers).  ``ray=False`` keeps the parts in this process (the same arithmetic, no Ray; for
    checks)."""

    def __init__(self, game: Any, algorithm: str = "cfr+", *, actors: int = 1,
                 cut: str | None = None, alternating: bool = True,
                 averaging: str | float | None = None, link: str | None = None,
                 address: str | None = None, ray: bool = True,
                 dtype: str = "float64", max_memory: str | float | int | None = None,
                 seed: int = 0, _start: bool = True) -> None:
        key = (algorithm.spec() if isinstance(algorithm, UpdateRule)
               else str(algorithm).strip().lower())
        if key.partition(":")[0] not in ALGORITHMS:
            raise RcfrError(f"unknown algorithm {algorithm!r}; use one of {', '.join(ALGORITHMS)}")
        if not isinstance(actors, int) or isinstance(actors, bool) or actors < 1:
            raise RcfrError(f"--actors must be a whole number >= 1, got {actors!r}")
        dt = str(dtype).strip().lower()
        if dt not in TABLE_DTYPES:
            raise RcfrError(f"dtype must be float64 or float32, got {dtype!r}")
        self.dtype = dt
        self.rule_ = parse_rule(key)
        self.name = self.rule_.name
        self.link_ = parse_link(link)
        self.alternating = bool(alternating)
        self.averaging_ = (AVERAGING_NAMES.get(self.rule_.averaging, self.rule_.averaging)
                           if averaging is None else averaging)
        self.avg_power_ = averaging_power(self.averaging_)
        self.seed = seed
        if ray:  # (refused before any work: Ray missing, a malformed address)
            import_ray()
            check_address(address)
        game = game.game if is_compiled(game) else game
        game = load_game(game) if isinstance(game, str) else game
        check_memory(game, None, None, actors, dt, max_memory)
        # the driver keeps the skeleton and the trunk; the actors build their parts
        self.tree = compile_skeleton(game)
        self.split = split_skeleton(self.tree, cut, actors)
        check_memory(game, self.tree.num_sequences,
                     [p.num_sequences for p in self.split.parts], actors, dt, max_memory)
        self.cut = str(self.split.cut).strip().lower()
        self.num_actors = actors
        self.address = address
        self.use_ray = ray
        self.iteration = 0
        self.nodes_visited = 0
        self.bytes_moved = 0  # sent and received, all iterations
        self.driver_seconds = 0.0
        self.total_seconds = 0.0
        self.iterations_run = 0  # by this process (a resumed run counts from its checkpoint)
        self.trunk = PartState(self.split.trunk, self.rule_.params, self.link_.kind,
                               self.link_.param, TABLE_DTYPES[dt])
        self._src = [p.slot_src for p in self.split.parts]
        self.workers: list = []
        if _start:
            self._start_workers()

    # -- workers ---------------------------------------------------------------------------
    def _start_workers(self) -> None:
        rule, link = self.rule_.spec(), self.link_.spec()
        n, fp = self.num_actors, self.tree.fingerprint()
        if not self.use_ray:
            self.workers = [PartWorker(self.tree.game, self.cut, n, j, rule, link, fp,
                                       self.dtype, self.tree) for j in range(n)]
            return
        ray = connect(self.address, max(2, self.num_actors))
        remote = ray.remote(num_cpus=0, max_restarts=0)(PartWorker)
        game = _game_key(self.tree.game)
        self.workers = [remote.remote(game, self.cut, n, j, rule, link, fp, self.dtype)
                        for j in range(n)]
        try:
            ray.get([w.pid.remote() for w in self.workers])  # (built: errors surface here)
        except ray.exceptions.RayActorError as exc:
            self.close()
            lines = [x for x in str(exc).splitlines() if x.strip()]
            raise RcfrError(f"an actor could not build its part: "
                            f"{lines[-1].strip() if lines else type(exc).__name__}") from None

    def _map(self, method: str, args: list) -> list:
        """``method`` on every worker (the j-th with ``args[j]``), in parallel on Ray."""
        if not self.use_ray:
            return [getattr(w, method)(*a) for w, a in zip(self.workers, args, strict=True)]
        import ray
        pairs = zip(self.workers, args, strict=True)
        try:
            return ray.get([getattr(w, method).remote(*a) for w, a in pairs])
        except ray.exceptions.RayTaskError as exc:  # an actor refused (a damaged file ...)
            if isinstance(exc.cause, RcfrError):
                raise RcfrError(str(exc.cause)) from None
            raise

    def worker_pids(self) -> list[int]:
        return self._map("pid", [()] * len(self.workers))

    def memory(self) -> list[dict]:
        """Per actor: bytes of its tables and part arrays, its resident memory."""
        return self._map("memory", [()] * len(self.workers))

    def close(self) -> None:
        """End the actors (the Ray cluster stays)."""
        if self.use_ray:
            import ray
            for w in self.workers:
                ray.kill(w)
        self.workers = []

    # -- iterations ------------------------------------------------------------------------
    def _exchange(self, ops: list) -> list:
        """Send the roots' reach and ``ops`` to every actor; the players' returned values,
        concatenated in part order, per sweep."""
        plan = self.trunk.plan
        reach = [plan[s] for s in self._src]
        t0 = time.perf_counter()
        out = self._map("step", [(r, ops) for r in reach])
        self._wait += time.perf_counter() - t0
        n = sum(op[0] == "sweep" for op in ops)
        got = [np.concatenate([o[k] for o in out]) if out else np.zeros(0) for k in range(n)]
        self.bytes_moved += sum(r.nbytes for r in reach) + sum(g.nbytes for g in got)
        return got

    def _iterate(self, t: int) -> None:
        w = float(t) ** self.avg_power_
        tr = self.trunk
        tr.plan_players(0, 2, w, True)
        if self.alternating:
            (v0,) = self._exchange([("plan", 0, 2, w, True), ("sweep", 0, t)])
            tr.trunk_sweep(0, t, self.split, v0)
            tr.plan_players(0, 1, 0.0, False)
            (v1,) = self._exchange([("plan", 0, 1, 0.0, False), ("sweep", 1, t)])
            tr.trunk_sweep(1, t, self.split, v1)
        else:
            v0, v1 = self._exchange([("plan", 0, 2, w, True), ("sweep", 0, t), ("sweep", 1, t)])
            tr.trunk_sweep(0, t, self.split, v0)
            tr.trunk_sweep(1, t, self.split, v1)

    def run(self, iterations: int, checkpoint_every: int = 0,
            checkpoint_dir: str | os.PathLike | None = None, progress=None,
            checkpoint_seconds: float | None = None,
            should_stop=None) -> DistributedSolver:
        """Advance ``iterations`` iterations, writing a checkpoint into ``checkpoint_dir``
        every ``checkpoint_every`` iterations and/or after each iteration that ends
        ``checkpoint_seconds`` of wall time after the last one (the CLI's
        ``--checkpoint-every``); ``progress(self)`` after each iteration; stopped early, after
        an iteration, where ``should_stop()`` is true (Ctrl-C, SIGTERM)."""
        if not isinstance(iterations, int) or iterations < 0:
            raise RcfrError(f"iterations must be a whole number >= 0, got {iterations!r}")
        if checkpoint_seconds is not None and not 0 < checkpoint_seconds < float("inf"):
            raise RcfrError(f"checkpoint_seconds must be a positive number of seconds, "
                            f"got {checkpoint_seconds!r}")
        last = time.monotonic()
        for _ in range(iterations):
            self._wait = 0.0
            t0 = time.perf_counter()
            self._iterate(self.iteration + 1)
            dt = time.perf_counter() - t0
            self.total_seconds += dt
            self.driver_seconds += dt - self._wait
            self.iteration += 1
            self.iterations_run += 1
            self.nodes_visited += 2 * self.tree.num_nodes
            due = bool(checkpoint_every) and self.iteration % checkpoint_every == 0
            if checkpoint_seconds is not None and time.monotonic() - last >= checkpoint_seconds:
                due = True
            if due and checkpoint_dir:
                self.save_checkpoint(checkpoint_dir)
                last = time.monotonic()
            if progress is not None:
                progress(self)
            if should_stop is not None and should_stop():
                break
        return self

    # -- outputs ---------------------------------------------------------------------------
    def global_arrays(self) -> dict[str, np.ndarray]:
        """The whole tree's regrets, strategy and average sums, gathered from the trunk and
        the actors (for checks and for writing a policy)."""
        S = self.tree.num_sequences
        out = {k: np.zeros(S, TABLE_DTYPES[self.dtype])
               for k in ("regrets", "prediction", "strategy", "avg_weights")}
        real = self.split.trunk.global_seq >= 0
        for k, v in self.trunk.state().items():
            out[k][self.split.trunk.global_seq[real]] = v[real]
        for arrays in self._map("arrays", [()] * len(self.workers)):
            where = arrays.pop("global_seq")
            for k, v in arrays.items():
                out[k][where] = v
        return out

    def setup(self) -> None:
        """Nothing left to set up: the trunk is built and the actors started with the solver
        (the run engine's :class:`~rcfr.run.protocol.Solver`)."""

    def current_policy(self):
        """The current strategy (the link applied to the regrets) as a
        :class:`rcfr.policy.TabularPolicy` of the whole tree."""
        from ..policy import TabularPolicy
        tree = compile_game(self.tree.game, form="public")
        return TabularPolicy(tree, self.global_arrays()["strategy"].astype(np.float64),
                             self.info())

    def average_policy(self):
        """The average strategy as a :class:`rcfr.policy.TabularPolicy` of the whole tree."""
        from ..policy import TabularPolicy
        tree = compile_game(self.tree.game, form="public")  # (cached on the game where given)
        return TabularPolicy.from_weights(tree, self.global_arrays()["avg_weights"],
                                          self.info())

    def evaluate(self) -> dict[str, float]:
        """Exact exploitability of the average strategy through the actors: each returns its
        roots' best-response values; the trunk backs them up (the same numbers as
        :func:`rcfr.evaluate.evaluate`; the game value sums the parts' shares, so only to
        rounding)."""
        tr = self.trunk
        probs = tr.average_probs()
        probs[self.split.phantom] = 1.0
        tr.eval_plan(probs)
        out = self._map("evaluate", [(tr.plan[s],) for s in self._src])
        vals = [np.concatenate([o[p] for o in out]) for p in range(2)]
        br0, share = tr.best_response(0, split=self.split, values=vals[0])
        br1, _ = tr.best_response(1, split=self.split, values=vals[1])
        value = share + sum(o[2] for o in out)
        nash_conv = br0 + br1
        return {"value": value, "best_response": (br0, br1), "nash_conv": nash_conv,
                "exploitability": nash_conv / 2.0}

    def info(self) -> dict[str, Any]:
        info = {"game": str(self.tree.game), "algorithm": self.name,
                "iterations": self.iteration,
                "rule": self.rule_.spec(), "link": self.link_.spec(),
                "alternating": self.alternating, "averaging": self.averaging_,
                "nodes_visited": self.nodes_visited, "distributed": "ray",
                "actors": self.num_actors, "cut": self.cut,
                "subgames": self.split.num_subgames, "dtype": self.dtype, "seed": self.seed}
        info.update(self.tree.file_meta())
        return info

    def stats(self) -> dict[str, Any]:
        """Bytes moved per iteration, the driver's share of the time, actor memory."""
        n = max(self.iterations_run, 1)  # (run by this process: a resumed run's too)
        return {"bytes_per_iteration": self.bytes_moved / n if self.iterations_run else
                self.split.bytes_per_iteration(self.alternating),
                "driver_share": self.driver_seconds / self.total_seconds
                if self.total_seconds else 0.0,
                "seconds_per_iteration": self.total_seconds / n,
                "actor_memory": self.memory(),
                "driver_tables": self.trunk.table_bytes,
                "driver_peak_rss": peak_rss()}

    # -- checkpoints -----------------------------------------------------------------------
    def _meta(self) -> dict[str, Any]:
        return {"game": str(self.tree.game), "fingerprint": self.tree.fingerprint(),
                "iterations": self.iteration, "parts": self.num_actors, "cut": self.cut}

    def save_checkpoint(self, folder: str | os.PathLike) -> Path:
        """Each actor writes its part's tables and the driver the trunk's, into new files;
        then the manifest naming them replaces the last one atomically; then the files it no
        longer names are removed.  Killed at any moment, the folder holds a checkpoint."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        meta = self._meta()
        trunk, names = ck.new_names(folder, self.iteration, len(self.workers))
        self._map("save", [(str((folder / n).resolve()), meta) for n in names])
        write_npz(folder / trunk, self.trunk.state(),
                  {"format": TRUNK_FORMAT, "version": 1, **meta,
                   "nodes_visited": self.nodes_visited})
        manifest = {"format": ck.FORMAT, "version": ck.VERSION, **self.info(), **meta,
                    "trunk": trunk, "part_files": names}
        text = json.dumps(manifest, indent=1, sort_keys=True)
        write_atomic(folder / MANIFEST, lambda h: h.write(text.encode()))
        ck.remove_stale(folder, {trunk, *names})
        return folder / MANIFEST

    @classmethod
    def resume(cls, folder: str | os.PathLike, *, address: str | None = None,
               ray: bool = True, expect: dict[str, Any] | None = None,
               max_memory: str | float | int | None = None) -> DistributedSolver:
        """A run restarted from the checkpoint in ``folder`` (new actors load their tables).
        The manifest is checked before any file it names is opened.  ``expect``: the run
        asked for (``game``, ``algorithm``, ``actors``, ``cut``, ``alternating``,
        ``averaging``, ``link``, ``dtype``, ``seed``; ``None`` or absent: the checkpoint's);
        a checkpoint of another run is refused, before any actor starts."""
        folder = Path(folder)
        path = folder / MANIFEST
        m = ck.read_manifest(folder)
        if expect:
            _check_expected(path, m, expect)
        solver = cls(m["game"], m["rule"], actors=m["parts"], cut=m["cut"],
                     alternating=m["alternating"], averaging=m["averaging"], link=m["link"],
                     address=address, ray=ray, dtype=m["dtype"], max_memory=max_memory,
                     seed=m.get("seed", 0), _start=False)
        if solver.tree.fingerprint() != m["fingerprint"]:
            raise RcfrError(f"{path} holds a checkpoint for {m['game']!r} whose information "
                            f"sets or actions differ from {m['game']!r} here: it was written "
                            f"by another version of the game's rules")
        solver._load_trunk(path, m)
        solver._start_workers()
        try:
            solver._load_parts(m)
        except BaseException:
            solver.close()
            raise
        return solver

    def load_checkpoint(self, folder: str | os.PathLike) -> DistributedSolver:
        """Load the checkpoint in ``folder`` into this solver's trunk and running actors: a
        checkpoint of the same run (game, rule, actors, cut and options; the run engine's
        :class:`~rcfr.run.protocol.Solver`).  :meth:`resume` starts a run from one."""
        path = Path(folder) / MANIFEST
        m = ck.read_manifest(Path(folder))
        _check_expected(path, m, {
            "game": self.tree.game, "algorithm": self.rule_.spec(), "actors": self.num_actors,
            "cut": self.cut, "alternating": self.alternating, "averaging": self.averaging_,
            "link": self.link_.spec(), "dtype": self.dtype, "seed": self.seed})
        if self.tree.fingerprint() != m["fingerprint"]:
            raise RcfrError(f"{path} holds a checkpoint whose information sets or actions "
                            f"differ from {m['game']!r} here")
        self._load_trunk(path, m)
        self._load_parts(m)
        return self

    def _load_trunk(self, path: Path, m: dict[str, Any]) -> None:
        """The trunk's tables and the counters from the manifest ``m`` read at ``path``."""
        iteration = self.iteration
        self.iteration = m["iterations"]
        meta = self._meta()
        trunk_path = m["trunk_path"]
        try:
            arrays, tm = read_npz(trunk_path, TRUNK_FORMAT)
            if tm.get("fingerprint") != meta["fingerprint"] or tm.get("iterations") != meta[
                    "iterations"]:
                raise RcfrError(f"{trunk_path} does not belong to {path}")
            nodes = tm.get("nodes_visited", 0)
            if not ck.is_count(nodes):
                raise RcfrError(f"{trunk_path} is corrupted: nodes_visited {nodes!r}")
            ck.check_tables(trunk_path, arrays, self.split.trunk.num_sequences, self.dtype)
        except BaseException:
            self.iteration = iteration
            raise
        self.trunk.load_state(arrays)
        self.nodes_visited = nodes

    def _load_parts(self, m: dict[str, Any]) -> None:
        """The actors' tables from the part files the manifest ``m`` names."""
        meta = self._meta()
        self._map("load", [(str(p.resolve()), meta) for p in m["part_paths"]])


def _check_expected(path: Path, m: dict[str, Any], expect: dict[str, Any]) -> None:
    """Refuse a checkpoint whose run differs from the one asked for (as the single-process
    resume does: ``... was run with KEY X, not Y``)."""
    game = expect.get("game")
    if game is not None:
        ours = str(load_game(game) if isinstance(game, str) else game)
        if ours != m["game"]:
            raise RcfrError(f"{path} holds a checkpoint for {m['game']!r}, not for {ours!r}")
    mine: dict[str, Any] = {}
    if expect.get("algorithm") is not None:
        rule = parse_rule(expect["algorithm"])
        theirs_name = m["rule"].partition(":")[0]
        if theirs_name != rule.name:
            raise RcfrError(f"{path} is a {theirs_name} checkpoint, not {rule.name}")
        mine["rule"] = rule.spec()
        if "averaging" in expect:
            avg = expect["averaging"]
            mine["averaging"] = (AVERAGING_NAMES.get(rule.averaging, rule.averaging)
                                 if avg is None else avg)
    if "link" in expect:
        mine["link"] = parse_link(expect["link"]).spec()
    if expect.get("alternating") is not None:
        mine["alternating"] = bool(expect["alternating"])
    if "dtype" in expect:
        mine["dtype"] = str(expect["dtype"] or "float64").strip().lower()
    for key in ("actors", "cut", "seed"):
        if expect.get(key) is not None:
            mine[key] = expect[key]
    if "cut" in mine:
        mine["cut"] = cut_key(mine["cut"])
    theirs = {**m, "actors": m["parts"], "seed": m.get("seed", 0), "cut": cut_key(m["cut"])}
    for key, value in mine.items():
        if theirs.get(key) != value:
            flag = {"actors": "--actors", "cut": "--cut", "seed": "--seed",
                    "dtype": "--dtype"}.get(key, key)
            raise RcfrError(f"{path} was run with {flag} {theirs.get(key)!r}, not {value!r}")


def solve_distributed(game: Any, algorithm: str = "cfr+", iterations: int = 100, *,
                      actors: int = 1, cut: str | None = None, address: str | None = None,
                      **options: Any) -> DistributedSolver:
    """The API equivalent of ``rcfr solve GAME --distributed ray``: a solver run for
    ``iterations`` iterations (close it with :meth:`DistributedSolver.close`)."""
    solver = DistributedSolver(game, algorithm, actors=actors, cut=cut, address=address,
                               **options)
    return solver.run(iterations)

"""rcfr.experiments: run specs, sweep specs, the store, sweeps on local workers (resume after
kill -9, failing cells), the Ray backend, and the commands."""

import dataclasses
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli as run

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.experiments import RunSpec, Store, load_sweep, parse_sweep, plan, run_sweep
from rcfr.experiments.figures import mean_ci
from rcfr.experiments.store import MIGRATIONS, SCHEMA_VERSION
from rcfr.run.engine import RunHooks, run_spec, solve
from rcfr.run.schedule import log_schedule

SMALL = """
name = "small"
seeds = [0, 1]
[base]
game = "kuhn"
iterations = 200
eval_every = 50
[grid]
algorithm = ["cfr", "cfr+", "rcfr+"]
[zip]
alternating = [true, false]
"""




def write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# -- specs --------------------------------------------------------------------------------------
def test_canonical_json_and_hash():
    spec = RunSpec(game="kuhn", algorithm="CFR+", iterations=1e3)
    text = ('{"algorithm":"cfr+","alternating":true,"bootstrap":false,"eval_every":0,'
            '"eval_nodes":0,"game":"kuhn","iterations":1000,"seed":0}')
    assert spec.canonical_json() == text
    assert spec.hash == hashlib.sha256(text.encode()).hexdigest()[:20]
    # the fields of other issues are omitted while unset: existing hashes stay stable
    assert RunSpec(game="kuhn", iterations=1000, rule=None, abstraction=None).hash == spec.hash
    assert RunSpec(game="kuhn", iterations=1000, rule="dcfr:1.5,0,2").hash != spec.hash
    assert RunSpec.from_json(spec.canonical_json()) == spec
    assert spec.solver_options() == {"alternating": True, "seed": 0}


def test_sweep_expansion():
    sweep = parse_sweep(__import__("tomllib").loads(SMALL))
    assert len(sweep.runs) == 12 and len(set(sweep.hashes())) == 12
    assert [(r.algorithm, r.alternating, r.seed) for r in sweep.runs[:4]] == [
        ("cfr", True, 0), ("cfr", True, 1), ("cfr", False, 0), ("cfr", False, 1)]
    assert log_schedule(1000, 3) == [1, 2, 5, 10, 22, 46, 100, 215, 464, 1000]


@pytest.mark.parametrize("text, key", [
    (SMALL.replace("eval_every = 50", "eval_evry = 50"), "eval_evry: unknown key"),
    (SMALL.replace("iterations = 200", "iterations = 0"), "iterations: the budget must be"),
    (SMALL.replace("iterations = 200", "iterations = \"many\""), "iterations: expected a whole"),
    (SMALL.replace('algorithm = ["cfr", "cfr+", "rcfr+"]', "algorithm = []"), "grid.algorithm"),
    (SMALL.replace('algorithm = ["cfr", "cfr+", "rcfr+"]', ""), "grid: empty"),
    (SMALL.replace("alternating = [true, false]", "alternating = [true, 1]"),
     "zip.alternating: expected true or false"),
    (SMALL.replace("seeds = [0, 1]", "seeds = 0"), "seeds:"),
    (SMALL.replace("[zip]", "[zipp]"), "zipp: unknown key"),
    (SMALL + "[[part]]\nbase = { share = 2.0 }\n", "share: must be in (0, 1]"),
    (SMALL.replace("eval_every = 50", "eval_from = 50"), "eval_from: a whole number"),
    ("[base\n", "not valid TOML"),
])
def test_bad_spec_files(capsys, tmp_path, text, key):
    db = tmp_path / "r.db"
    code, out, err = run(capsys, "sweep", write(tmp_path, text), "--db", db)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error:") and key in err, err
    assert not db.exists()  # nothing ran, nothing was created


# -- store ------------------------------------------------------------------------------------
def test_store_migrates_an_old_schema(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0])
    db.execute("INSERT INTO runs (hash, spec, status, exploitability) VALUES "
               "('abc', '{\"game\": \"kuhn\", \"iterations\": 10}', 'done', 0.5)")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with Store(path) as store:
        assert store.version == 1  # opening changes nothing: the first write migrates
        store.queue([])
        assert store.version == SCHEMA_VERSION == 4
        (row,) = store.runs()
        assert row["hash"] == "abc" and row["exploitability"] == 0.5
        assert row["complexity_share"] is None and row["resumed_from"] is None
        assert row["owner"] is None and row["regression_error"] is None
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(RcfrError, match="not a results database"):
        Store(write(tmp_path, "not sqlite at all" * 100, "x.db"))


# -- sweeps -----------------------------------------------------------------------------------
def test_a_run_held_by_a_live_driver_is_not_claimed_but_a_reused_pid_does_not_hold_it(tmp_path):
    """A stale ``running`` row resumes unless its driver still runs; a live process that only
    reuses the driver's number (it started after the claim) does not hold the run."""
    import platform

    spec = RunSpec(game="kuhn", iterations=10)
    me = f"{platform.node()}:{os.getpid()}"
    with Store(tmp_path / "r.db") as store:
        store.queue([spec])
        assert store.claim(spec.hash, "v", me)
        assert not store.claim(spec.hash, "v", "another:1")  # held by me, alive
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            time.sleep(2.5)  # the child starts (by /proc's clock) after the claim below
            store.db.execute("UPDATE runs SET owner = ?, started = ? WHERE hash = ?",
                             (f"{platform.node()}:{child.pid}", time.time() - 60, spec.hash))
            store.db.commit()
            assert store.claim(spec.hash, "v", me)  # the child reused a dead driver's number
            store.db.execute("UPDATE runs SET owner = ?, started = ? WHERE hash = ?",
                             (f"{platform.node()}:{child.pid}", time.time(), spec.hash))
            store.db.commit()
            assert not store.claim(spec.hash, "v", me)  # the child's own claim: it runs
        finally:
            child.kill()
            child.wait()
        assert store.claim(spec.hash, "v", me)  # its driver is gone


def test_a_driver_of_another_boot_or_machine_of_the_same_name_does_not_hold_a_run(tmp_path):
    """Owners carry the boot id: a store copied from another machine with the same host name
    (containers are often all 'localhost'), whose driver's number is alive here, resumes."""
    import platform

    from rcfr.experiments.store import driver_id

    boot = Path("/proc/sys/kernel/random/boot_id")
    if not boot.is_file():
        pytest.skip("no Linux boot id here")
    me = driver_id()
    assert me == f"{platform.node()}/{boot.read_text()[:8]}:{os.getpid()}"
    spec = RunSpec(game="kuhn", iterations=10)
    with Store(tmp_path / "r.db") as store:
        store.queue([spec])
        for owner, held in ((f"{platform.node()}/0000zzzz:{os.getpid()}", False),
                            (f"{platform.node()}:{os.getpid()}", True),  # the older HOST:PID
                            (me, True)):
            store.db.execute("UPDATE runs SET status = 'running', owner = ?, started = ? "
                             "WHERE hash = ?", (owner, time.time(), spec.hash))
            store.db.commit()
            assert store.claim(spec.hash, "v", "elsewhere:1") is not held, owner


def test_sweep_fills_the_store_and_a_rerun_runs_nothing(tmp_path):
    sweep = load_sweep(write(tmp_path, SMALL))
    with Store(tmp_path / "r.db") as store:
        summary = run_sweep(sweep, store, workers=2)
        assert (summary.ran, summary.done, summary.failed) == (12, 12, 0)
        rows = store.runs()
        assert len(rows) == 12 and {r["status"] for r in rows} == {"done"}
        assert all(len(store.points(r["hash"])) == 4 for r in rows)
        again = run_sweep(sweep, store, workers=2)
        assert again.ran == 0 and plan(sweep, store).todo == []
        # each stored result is what solve() gives in this process, bit for bit
        for spec in sweep.runs[::5]:
            row = store.run(spec.hash)
            direct = solve(spec.game, spec.algorithm, spec.iterations, eval_every=50,
                           alternating=spec.alternating, seed=spec.seed)
            assert row["exploitability"] == direct.evaluation.exploitability
            assert [p["exploitability"] for p in store.points(spec.hash)] == [
                e for _, e in direct.curve]
            saved = rcfr.TabularPolicy.load(store.strategy_path(spec.hash), "kuhn")
            np.testing.assert_array_equal(saved.probs, direct.policy.probs)


KILL_SPEC = """
name = "kill"
[base]
game = "leduc(canonical=true)"
iterations = 16000
eval_every = 4000
[grid]
algorithm = ["cfr", "cfr+"]
alternating = [true, false]
"""


def _sweep_cli(spec: Path, db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "rcfr", "sweep", str(spec), "--db", str(db), "--workers", "2",
            *extra]


def _parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_cli_sweep_on_local_workers_with_numba_threads_unset(tmp_path):
    # the driver has launched numba's threads before forking its workers; a worker that then
    # changed NUMBA_NUM_THREADS failed every run at numba's next configuration reload (which
    # compiling a kernel does: an empty cache makes the workers compile)
    # (a run a worker is enough: the first kernel a worker compiles reloads the configuration)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")
    spec = write(tmp_path, SMALL.replace("seeds = [0, 1]", "seeds = [0]").replace(
        '["cfr", "cfr+", "rcfr+"]', '["cfr", "cfr+"]').replace("[zip]\nalternating = [true, "
                                                              "false]\n", ""))
    out = subprocess.run(_sweep_cli(spec, tmp_path / "r.db"), env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 done, 0 failed" in out.stdout
    assert list((tmp_path / "numba-cache").rglob("*.nbi"))  # the workers compiled kernels


def test_kill_9_of_the_driver_then_rerun_equals_an_uninterrupted_sweep(tmp_path):
    spec = write(tmp_path, KILL_SPEC)
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    killed, clean = tmp_path / "killed.db", tmp_path / "clean.db"
    driver = subprocess.Popen(_sweep_cli(spec, killed, "--checkpoint-every", "0.05"), env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = Path(str(killed) + ".files")
    deadline = time.monotonic() + 120
    while not list(files.glob("*.ckpt.npz")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    children = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                and _parent_of(int(p.name)) == driver.pid]
    assert len(children) >= 2  # the two workers (and multiprocessing's resource tracker)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    with Store(killed) as store:
        assert any(r["status"] == "running" for r in store.runs())  # killed mid-sweep
    # the orphaned workers stop after their chunk, write their checkpoints and exit
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in children)  # none is left behind
    subprocess.run(_sweep_cli(spec, killed), env=env, check=True, capture_output=True)
    with Store(clean) as b:  # the same sweep, uninterrupted (in this process)
        assert run_sweep(load_sweep(spec), b, backend="inline").done == 4
    with Store(killed) as a, Store(clean) as b:
        rows_a, rows_b = a.runs(), b.runs()
        assert len(rows_a) == len(rows_b) == 4
        assert {r["status"] for r in rows_a} == {"done"}
        assert any(r["resumed_from"] for r in rows_a)  # at least one resumed mid-run
        for ra in rows_a:
            rb = b.run(ra["hash"])
            for key in ("iterations", "nodes", "value", "exploitability", "complexity"):
                assert ra[key] == rb[key], key
            assert ([(p["iterations"], p["exploitability"]) for p in a.points(ra["hash"])]
                    == [(p["iterations"], p["exploitability"]) for p in b.points(ra["hash"])])
            pa = np.load(a.strategy_path(ra["hash"]))["probs"]
            pb = np.load(b.strategy_path(ra["hash"]))["probs"]
            np.testing.assert_array_equal(pa, pb)
        assert not list(Path(str(killed) + ".files").glob("*.ckpt.npz"))  # cleaned up


def test_ray_backend_gives_the_same_rows_as_local(tmp_path):
    # the local reference runs inline: the same execute() as a local worker's, whose rows
    # equal the inline ones (test_kill_9_of_the_driver_then_rerun_equals_an_uninterrupted_sweep)
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'rcfr[ray]')")
    text = SMALL.replace("seeds = [0, 1]", "seeds = [0]").replace(
        '["cfr", "cfr+", "rcfr+"]', '["rcfr+", "es"]')
    sweep = load_sweep(write(tmp_path, text))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with Store(tmp_path / "ray.db") as store:
            summary = run_sweep(sweep, store, workers=2, backend="ray")
            # ES with simultaneous updates is refused: a failed row on both backends
            assert (summary.done, summary.failed) == (3, 1)
            ray_rows = store.runs()
            ray_points = {r["hash"]: store.points(r["hash"]) for r in ray_rows}
    finally:
        ray.shutdown()
    with Store(tmp_path / "local.db") as store:
        run_sweep(sweep, store, backend="inline")
        for r in ray_rows:
            local = store.run(r["hash"])
            for key in ("status", "error", "iterations", "nodes", "value", "exploitability",
                        "complexity"):
                assert r[key] == local[key], key
            assert ([p["exploitability"] for p in ray_points[r["hash"]]]
                    == [p["exploitability"] for p in store.points(r["hash"])])


# -- commands ---------------------------------------------------------------------------------
def test_a_failing_cell_then_results_and_solve_spec(capsys, tmp_path):
    spec = write(tmp_path, SMALL.replace('[grid]', '[grid]\ngame = ["kuhn", "no_such_game"]')
                 .replace("seeds = [0, 1]", "seeds = [0]")
                 .replace('["cfr", "cfr+", "rcfr+"]', '["cfr+"]'))
    db = tmp_path / "r.db"
    code, out, err = run(capsys, "sweep", spec, "--db", db, "--dry-run", "--json")
    # a dry run refuses what its runs would refuse; a sweep stores the failing runs as failed
    assert code == 2 and "2 of 4 runs would fail" in err and "unknown game" in err
    assert not db.exists()
    code, out, err = run(capsys, "sweep", spec, "--db", db, "--json")
    assert code == 0, err
    info = json.loads(out)
    assert (info["done"], info["failed"]) == (2, 2)  # a failing cell does not stop the others
    failed = json.loads(run(capsys, "results", "--db", db, "--where", "status=failed",
                            "--json")[1])
    assert len(failed) == 2 and all(r["spec"]["game"] == "no_such_game" for r in failed)
    assert all("unknown game" in r["error"] and "\n" not in r["error"] for r in failed)
    rows = json.loads(run(capsys, "results", "--db", db, "--where",
                          "alternating=false,game=kuhn", "--json")[1])
    assert len(rows) == 1 and rows[0]["spec"]["alternating"] is False
    curve = json.loads(run(capsys, "results", "--db", db, "--points", rows[0]["hash"][:8],
                           "--json")[1])
    assert [p["iterations"] for p in curve["points"]] == [50, 100, 150, 200]
    csv_file = tmp_path / "runs.csv"
    assert run(capsys, "results", "--db", db, "--csv", csv_file)[0] == 0
    assert len(csv_file.read_text().splitlines()) == 5
    # one run from a TOML file gives the stored result
    one = write(tmp_path, 'game = "kuhn"\nalgorithm = "cfr+"\niterations = 200\n'
                'eval_every = 50\nalternating = false\n', "run.toml")
    out_file = tmp_path / "s.npz"
    code, out, err = run(capsys, "solve", "--spec", one, "-o", out_file, "--json")
    assert code == 0, err
    assert json.loads(out)["exploitability"] == rows[0]["exploitability"]
    assert json.loads(out)["hash"] == rows[0]["hash"]
    assert rcfr.TabularPolicy.load(out_file, "kuhn").probs.shape == (24,)
    for args, message in [(["results", "--db", tmp_path / "none.db"], "no results database"),
                          (["results", "--db", db, "--where", "colour=red"], "unknown key"),
                          (["results", "--db", db, "--points", "zzz"], "no run"),
                          (["solve", "--spec", tmp_path / "none.toml"], "no such spec file"),
                          (["solve"], "give a game string or --spec")]:
        code, out, err = run(capsys, *args)
        assert code == 2 and len(err.splitlines()) == 1 and message in err, err


def test_t_interval():
    mean, half = mean_ci([1.0, 2.0, 3.0])  # sd 1, t(0.975, 2) = 4.30265272975
    assert mean == 2.0 and half == pytest.approx(4.30265272975 / 3 ** 0.5, rel=1e-10)
    assert mean_ci([5.0]) == (5.0, None)


def test_cli_solve_reports_the_hash_a_sweep_stores(capsys, tmp_path):
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "200", "--eval-every",
                         "50", "--simultaneous", "--json")
    assert code == 0, err
    spec = RunSpec(game="kuhn", algorithm="cfr+", iterations=200, eval_every=50,
                   alternating=False)
    assert json.loads(out)["run"] == spec.hash


# -- form, dtype and memory budget (issue 14: 2-NL Hold'em(36) through the runner) -----------
def test_form_and_dtype_are_part_of_a_run_and_reach_the_solver(tmp_path):
    base = RunSpec(game="liars_dice", algorithm="es", nodes=200_000, seed=3)
    assert base.replace(dtype="float32").hash != base.hash != base.replace(form="public").hash
    for key, value, message in [("dtype", "float16", "dtype: must be one of float64, float32"),
                                ("form", "tree", "form: must be one of auto, history, public")]:
        with pytest.raises(RcfrError, match=message):
            base.replace(**{key: value})
    spec = base.replace(form="public", dtype="float32")
    assert spec.solver_options()["dtype"] == "float32" and "form=public" in spec.label()
    sweep = parse_sweep({"name": "forms", "seeds": [3], "base": base.to_dict(),
                         "grid": {"form": ["public"], "dtype": ["float32"]}})
    assert sweep.hashes() == [spec.hash]
    with Store(tmp_path / "r.db") as store:
        assert run_sweep(sweep, store, backend="inline").done == 1
        row = store.run(spec.hash)
    # the stored run is what the API gives on that form with those tables, bit for bit
    direct = solve(rcfr.compile_game("liars_dice", "public"), "es", nodes=200_000, seed=3,
                   dtype="float32")
    assert row["exploitability"] == direct.evaluation.exploitability
    assert row["nodes"] == direct.solver.nodes_visited


def test_the_public_guard_counts_float32_tables_and_a_sweep_passes_its_budget(tmp_path):
    from rcfr.core.budget import check_public
    from rcfr.games.registry import load_game

    game = load_game("nl_holdem2(stack=36)")  # 199,672,165 sequences: ~11.5 GB (float32), ~17.7
    assert check_public(game, "16G", "float32") is True
    with pytest.raises(RcfrError, match="199,672,165 sequences"):
        check_public(game, "16G")
    # a sweep spec's max_memory reaches the workers (here: too small for Kuhn's history form)
    text = SMALL.replace("seeds = [0, 1]", 'seeds = [0]\nmax_memory = "1K"').replace(
        'algorithm = ["cfr", "cfr+", "rcfr+"]', 'algorithm = ["cfr+"]')
    with Store(tmp_path / "r.db") as store:
        summary = run_sweep(load_sweep(write(tmp_path, text)), store, workers=1)
        assert (summary.done, summary.failed) == (0, 2)
        assert all("the limit is 1 KB" in e for e in summary.errors.values()), summary.errors
        # --max-memory (here the API's argument) overrides the spec's
        assert run_sweep(load_sweep(write(tmp_path, text)), store, workers=1,
                         max_memory="1G").done == 2
    with pytest.raises(RcfrError, match="max_memory: expected a string"):
        parse_sweep({"max_memory": 5, "base": {"game": "kuhn", "iterations": 1},
                     "grid": {"seed": [0]}})


def test_eval_from_bounds_a_log_schedule_from_below(tmp_path):
    """Large games evaluate in seconds each: ``eval_from`` drops the log schedule's points
    below it (the run itself is unchanged)."""
    spec = RunSpec(game="kuhn", algorithm="cfr+", iterations=200, eval_log=2, eval_from=50)
    plain = spec.replace(eval_from=None)
    with Store(tmp_path / "r.db") as store:
        sweep = parse_sweep({"name": "f", "base": plain.to_dict(), "grid": {"eval_from": [50]}})
        assert run_sweep(sweep, store, backend="inline").done == 1
        points = [p["iterations"] for p in store.points(spec.hash)]
    assert points == [t for t in log_schedule(200, 2) if t >= 50] == [63, 200]


def test_a_segmented_run_keeps_only_its_last_segments_average(monkeypatch):
    """A run evaluated on a log schedule is one ``drive`` call per segment; the segments'
    averages are evaluated, not kept beside the next segment's tables (at 2-NL Hold'em(36)
    each is 1.6 GB), and the run's result is the last segment's, with the whole curve."""
    import gc
    import weakref

    import rcfr.run.engine as engine

    made, alive = [], []
    drive = engine.drive

    def driving(*args, **kwargs):
        gc.collect()
        alive.append(sum(ref() is not None for ref in made))  # as the segment starts
        result = drive(*args, **kwargs)
        made.append(weakref.ref(result.policy))
        return result

    monkeypatch.setattr(engine, "drive", driving)
    spec = RunSpec(game="kuhn", algorithm="cfr+", iterations=300, eval_log=2)
    run = run_spec(spec, RunHooks())
    assert len(made) == len(log_schedule(300, 2)) == 6
    assert alive == [0] * 6
    assert run.policy is made[-1]()
    assert [p["iterations"] for p in run.points] == log_schedule(300, 2)
    np.testing.assert_array_equal(run.policy.probs,
                                  solve("kuhn", "cfr+", 300).policy.probs)


def test_a_released_run_keeps_its_figures_but_no_strategy(tmp_path):
    """``release = true`` evaluates the float32 average (the policy path's, rounded to
    float32), whose exploitability differs from the float64 profile's in the last digits:
    it is part of the run's identity (it was not: one hash stored either number).  The same
    nodes, and no strategy file in the store."""
    base = RunSpec(game="liars_dice", algorithm="as", nodes=200_000, seed=2, dtype="float32",
                   form="public")
    spec = base.replace(release=True)
    assert spec.hash != base.hash and '"release":true' in spec.canonical_json()
    assert spec.replace(release=False).hash == base.hash  # off is the same run as unset
    data = spec.to_dict()
    sweep = parse_sweep({"name": "released", "seeds": [2], "grid": {"game": [data.pop("game")]},
                         "base": {k: v for k, v in data.items() if k != "seed"}})
    with Store(tmp_path / "r.db") as store:
        assert run_sweep(sweep, store, backend="inline").done == 1
        row = store.run(spec.hash)
        assert not store.strategy_path(spec.hash).exists()
    direct = solve(rcfr.compile_game("liars_dice", "public"), "as", nodes=200_000, seed=2,
                   dtype="float32")
    assert row["nodes"] == direct.solver.nodes_visited
    probs = direct.policy.probs.astype(np.float32)
    assert row["exploitability"] == rcfr.evaluate(direct.solver.tree, probs).exploitability
    assert row["exploitability"] != direct.evaluation.exploitability  # why it is identity
    with pytest.raises(RcfrError, match="release keeps no strategy"):
        run_spec(spec, RunHooks(out=tmp_path / "p.npz"))


class _Killed(BaseException):
    """A kill -9 at one exact moment: nothing after it runs (not even ``execute``'s
    handlers, which catch ``Exception``)."""


def test_a_run_killed_as_its_checkpoint_reaches_an_evaluation_point_keeps_the_point(
        tmp_path, monkeypatch):
    """A segment's checkpoint is written as its solve() returns, before its curve point is
    committed: killed in between, the run resumed past the point and lost it (points 1, 2, 25
    of 1, 2, 8, 25).  The resumed run measures it; every point's value is filled."""
    import rcfr.run.engine as run_module
    from rcfr.experiments.execute import execute

    spec = RunSpec(game="kuhn", algorithm="cfr", iterations=25, eval_log=2)
    assert log_schedule(25, 2) == [1, 2, 8, 25]
    (tmp_path / "clean").mkdir()
    clean = execute(spec, tmp_path / "clean")
    assert clean["status"] == "done", clean["error"]
    save = run_module._save_checkpoint

    def save_then_die(solver, path):
        failed = save(solver, path)
        if solver.iteration == 8:
            raise _Killed
        return failed

    monkeypatch.setattr(run_module, "_save_checkpoint", save_then_die)
    (tmp_path / "killed").mkdir()
    with pytest.raises(_Killed):
        execute(spec, tmp_path / "killed", checkpoint_every=1e9)
    monkeypatch.setattr(run_module, "_save_checkpoint", save)
    kept = json.loads((tmp_path / "killed" / f"{spec.hash}.curve.json").read_text())
    assert [p["iterations"] for p in kept["points"]] == [1, 2]  # 8 not committed yet
    resumed = execute(spec, tmp_path / "killed")
    assert resumed["status"] == "done" and resumed["resumed_from"] == 8
    keys = ("iterations", "nodes", "exploitability", "value")
    assert ([[p[k] for k in keys] for p in resumed["points"]]
            == [[p[k] for k in keys] for p in clean["points"]])
    assert [p["iterations"] for p in clean["points"]] == [1, 2, 8, 25]
    # the value column: the average strategy's game value at each point (Kuhn's is -1/18)
    assert all(isinstance(p["value"], float) for p in clean["points"])
    assert clean["points"][-1]["value"] == clean["value"]
    assert clean["value"] == pytest.approx(-1 / 18, abs=0.02)
    with Store(tmp_path / "r.db") as store:  # and the store keeps it
        store.queue([spec])
        store.record(dict(resumed))
        assert [p["value"] for p in store.points(spec.hash)] == [
            p["value"] for p in clean["points"]]


def test_a_node_budget_run_killed_at_an_evaluation_point_keeps_it_too(tmp_path, monkeypatch):
    """The same with a node budget: the segment ends at the first iteration past its point."""
    import rcfr.run.engine as run_module
    from rcfr.experiments.execute import execute

    spec = RunSpec(game="kuhn", algorithm="es", nodes=3000, eval_log=2, seed=1)
    fifth = log_schedule(3000, 2)[4]  # (1, 3 and 9 fall within the first iteration)
    for folder in ("clean", "killed"):
        (tmp_path / folder).mkdir()
    clean = execute(spec, tmp_path / "clean")
    save = run_module._save_checkpoint

    def save_then_die(solver, path):
        failed = save(solver, path)
        if solver.nodes_visited >= fifth:
            raise _Killed
        return failed

    monkeypatch.setattr(run_module, "_save_checkpoint", save_then_die)
    with pytest.raises(_Killed):
        execute(spec, tmp_path / "killed", checkpoint_every=1e9)
    monkeypatch.setattr(run_module, "_save_checkpoint", save)
    resumed = execute(spec, tmp_path / "killed")
    assert resumed["status"] == "done" and resumed["resumed_from"]
    keys = ("iterations", "nodes", "exploitability", "value")
    assert [p["nodes"] >= fifth for p in clean["points"]] == [False] * 2 + [True] * 4
    assert ([[p[k] for k in keys] for p in resumed["points"]]
            == [[p[k] for k in keys] for p in clean["points"]])


def test_a_parts_budget_replaces_the_bases():
    """A ``[[part]]`` (or a grid) with a node budget over a base of iterations runs nodes (it
    was refused as two budgets)."""
    sweep = parse_sweep({"name": "b", "base": {"game": "kuhn", "iterations": 100},
                         "grid": {"algorithm": ["cfr+"]},
                         "part": [{"base": {"algorithm": "es", "nodes": 5000}},
                                  {"grid": {"algorithm": ["os"], "nodes": [1000, 2000]}}]})
    budgets = [(r.algorithm, r.iterations, r.nodes) for r in sweep.runs]
    assert budgets == [("cfr+", 100, None), ("es", None, 5000), ("os", None, 1000),
                       ("os", None, 2000)]
    with pytest.raises(RcfrError, match="iterations: give exactly one budget"):
        parse_sweep({"base": {"game": "kuhn", "iterations": 100, "nodes": 5},
                     "grid": {"algorithm": ["cs"]}})


def test_dry_run_checks_every_run_as_it_would_run_and_compiles_nothing(capsys, tmp_path,
                                                                        monkeypatch):
    """``sweep --dry-run`` refuses the options a run would refuse (int16 tables with pcfr+,
    a bad game string, an abstraction on the public form), without compiling a game (sizing a
    large one took minutes): one error line, exit 2."""
    import rcfr.forms.compile as compile_module

    def no_compile(*args, **kwargs):
        raise AssertionError("a dry run compiled a game")

    monkeypatch.setattr(compile_module, "compile_history", no_compile)
    monkeypatch.setattr(compile_module, "compile_public", no_compile)
    good = write(tmp_path, 'name = "ok"\nseeds = 2\n[base]\ngame = "leduc"\n'
                 'iterations = 100\n[grid]\nalgorithm = ["cfr", "pcfr+"]\n', "ok.toml")
    code, out, err = run(capsys, "sweep", good, "--db", tmp_path / "r.db", "--dry-run",
                         "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["to_run"] == 4 and info["estimated_nodes"] == 4 * 2 * 100 * 9457
    for extra, message in [('storage = "int16"', "2 of 4 runs would fail; the first, run "),
                           ('storage = "int16"', "pcfr+ leduc 100 it seed 0): --storage sets "
                                                 "the tables of the full-width solvers"),
                           ('form = "public"\nabstraction = "JQK"', "--abstraction solves "
                                                                    "the abstract game's"),
                           ('game = "no_such_game"', "unknown game")]:
        text = good.read_text().replace("[grid]", f"{extra}\n[grid]")
        if extra.startswith("game"):
            text = text.replace('game = "leduc"\n', "", 1)
        code, out, err = run(capsys, "sweep", write(tmp_path, text, "bad.toml"), "--db",
                             tmp_path / "r.db", "--dry-run")
        assert code == 2 and len(err.splitlines()) == 1 and message in err, err


def test_fresh_workers_run_each_run_in_a_new_process(tmp_path, monkeypatch):
    """``fresh_workers = true`` gives the local backend's pool one task per worker process (a
    run of a game of GBs starts with a fresh process's memory); off by default; a wrong type
    is one error line."""
    from concurrent.futures import ProcessPoolExecutor

    from rcfr.experiments import runners

    pools = []

    def recording(*args, **kwargs):
        pools.append(kwargs.get("max_tasks_per_child"))
        return ProcessPoolExecutor(*args, **kwargs)

    monkeypatch.setattr(runners, "ProcessPoolExecutor", recording)
    text = """
name = "fresh"
fresh_workers = true
seeds = [0, 1]
[base]
game = "kuhn"
iterations = 20
[grid]
algorithm = ["es"]
"""
    sweep = load_sweep(write(tmp_path, text))
    assert sweep.fresh_workers and not load_sweep(write(tmp_path, SMALL, "s.toml")).fresh_workers
    with Store(tmp_path / "r.db") as store:
        assert run_sweep(sweep, store, workers=1).done == 2
        again = dataclasses.replace(sweep, runs=tuple(r.replace(iterations=21)
                                                      for r in sweep.runs), fresh_workers=False)
        assert run_sweep(again, store, workers=1).done == 2
    assert pools == [1, None]
    with pytest.raises(RcfrError, match="fresh_workers: expected true or false"):
        parse_sweep({"name": "x", "fresh_workers": "yes", "base": {"game": "kuhn",
                     "iterations": 1}, "grid": {"seed": [0]}})

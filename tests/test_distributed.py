"""The distributed solver (issue 27): the public tree split at a cut into a trunk and parts of
subgames on Ray actors gives the single-process solver's numbers bit for bit, for any number of
actors, every update rule, alternating and simultaneous; its evaluator gives the same
best-response values; a run resumed from a checkpoint after an actor or the driver was killed
ends where the uninterrupted run does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate
from rcfr.forms.compile import compile_game
from rcfr.forms.public.split import cut_roots, split_public
from rcfr.solvers.loop import CFRSolver

ray = pytest.importorskip("ray")

from rcfr.distributed import DistributedSolver  # noqa: E402

LEDUC = "leduc"
DICE = "liars_dice"
HOLDEM = "nl_holdem2(buckets=5,ranks=6,stack=6,suits=3)"  # 2-NL Hold'em on the 6 x 3 deck
ITERS = 50


@pytest.fixture(scope="module")
def cluster():
    """One local Ray cluster for the module (two CPUs, a small object store)."""
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=200 * 1024**2,
                 log_to_driver=False)
    yield
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def trees():
    return {g: compile_game(g, form="public") for g in (LEDUC, DICE, HOLDEM)}


def _local(tree, algorithm, alternating=True, iters=ITERS):
    s = CFRSolver(tree, algorithm, alternating=alternating)
    s.run(iters)
    return s


def _same(d, s):
    g = d.global_arrays()
    assert np.array_equal(g["strategy"], s.strategy_)
    assert np.array_equal(g["avg_weights"], s.avg_weights_)
    assert np.array_equal(g["regrets"], s.estimator_.regrets)


def _same_evaluation(d, tree, s):
    e = d.evaluate()
    local = evaluate(tree, s.average_policy())
    assert e["best_response"] == local.best_response_values  # bit for bit
    assert e["exploitability"] == local.exploitability
    assert e["value"] == pytest.approx(local.value, abs=1e-12)  # (parts' shares: rounding)


def test_split_covers_the_tree(trees):
    """Every sequence lies in exactly one of the trunk and the parts; the cut roots are the
    flop chance nodes of Leduc (one per first-round line that reaches the flop: 5) and the
    depth-2 nodes of liar's dice (two bids in increasing order: 12 * 11 / 2)."""
    tree = trees[LEDUC]
    assert tree.node_kind[cut_roots(tree, "flop")].tolist() == [2] * 5
    for name, actors in ((LEDUC, 3), (DICE, 2), (HOLDEM, 3)):
        tree = trees[name]
        sp = split_public(tree, None, actors)
        seqs = np.concatenate([sp.trunk.global_seq[sp.trunk.global_seq >= 0]]
                              + [p.global_seq for p in sp.parts])
        assert np.array_equal(np.sort(seqs), np.arange(tree.num_sequences))
        assert len(sp.parts) == actors
    dice = trees[DICE]
    depth2 = cut_roots(dice, "depth:2")
    assert depth2.size == 66
    assert split_public(dice, "depth:2", 1).num_subgames == depth2.size


@pytest.mark.parametrize("name", [LEDUC, DICE, HOLDEM])
@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+"])
@pytest.mark.parametrize("alternating", [True, False])
def test_parts_in_process_bit_identical(trees, name, algorithm, alternating):
    """The actors' code in this process (``ray=False``), 1, 2 and 3 parts: every rule,
    alternating and simultaneous, bit for bit the single-process solver (fewer iterations
    than with Ray: 60 cases)."""
    tree = trees[name]
    s = _local(tree, algorithm, alternating, 12)
    for actors in (1, 2, 3):
        d = DistributedSolver(tree, algorithm, actors=actors, alternating=alternating,
                              ray=False)
        d.run(12)
        _same(d, s)
    _same_evaluation(d, tree, s)


@pytest.mark.parametrize("name", [LEDUC, DICE, HOLDEM])
@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr", "pcfr+"])
def test_float32_tables_bit_identical(trees, name, algorithm, tmp_path):
    """``dtype="float32"``: 2 parts in process give the single-process float32 solver's tables
    (float32 too) and best-response values bit for bit, not float64's; a checkpoint after 6
    iterations resumes in float32 and ends where the uninterrupted run does.  Given the game's
    name, the driver holds only the skeleton (no per-sequence array)."""
    tree = trees[name]
    s = CFRSolver(tree, algorithm, dtype="float32")
    s.run(12)
    d = DistributedSolver(str(tree.game), algorithm, actors=2, ray=False, dtype="float32")
    assert d.tree.seq_infoset.size == 0 and d.tree.skeleton is not None
    d.run(6, checkpoint_every=6, checkpoint_dir=tmp_path)
    r = DistributedSolver.resume(tmp_path, ray=False)
    assert r.info()["dtype"] == "float32" and r.iteration == 6
    r.run(6)
    g = r.global_arrays()
    assert g["avg_weights"].dtype == np.float32
    _same(r, s)
    _same_evaluation(r, tree, s)
    d64 = DistributedSolver(tree, algorithm, actors=2, ray=False)
    d64.run(12)
    assert not np.array_equal(d64.global_arrays()["avg_weights"], s.avg_weights_)
    with pytest.raises(RcfrError, match="dtype"):
        DistributedSolver(tree, algorithm, ray=False, dtype="float16")


@pytest.mark.parametrize("name,algorithm,actors", [  # (every rule and count: in process)
    (LEDUC, "cfr+", 1), (LEDUC, "dcfr", 3), (DICE, "cfr+", 3), (DICE, "dcfr", 2),
    (HOLDEM, "cfr+", 2)])
def test_ray_bit_identical(cluster, trees, name, algorithm, actors):
    """On Ray actors, 50 iterations: the tables equal the single-process solver's bit for
    bit, and so do the best-response values of the distributed evaluator."""
    tree = trees[name]
    s = _local(tree, algorithm)
    d = DistributedSolver(tree, algorithm, actors=actors)
    try:
        d.run(ITERS)
        _same(d, s)
        _same_evaluation(d, tree, s)
        st = d.stats()
        assert st["bytes_per_iteration"] == d.split.bytes_per_iteration(True)
        assert len(st["actor_memory"]) == actors
        assert all(m["tables"] > 0 for m in st["actor_memory"])
    finally:
        d.close()


def test_kill_an_actor_and_resume(cluster, trees, tmp_path):
    """SIGKILL one actor after a checkpoint: the run fails; resumed from the checkpoint by new
    actors it ends bit for bit where the uninterrupted (single-process) run does."""
    tree = trees[LEDUC]
    s = _local(tree, "dcfr", iters=40)
    d = DistributedSolver(tree, "dcfr", actors=2)
    try:
        d.run(20, checkpoint_every=10, checkpoint_dir=tmp_path)
        d.run(3)
        os.kill(d.worker_pids()[1], signal.SIGKILL)
        with pytest.raises(ray.exceptions.RayActorError):
            d.run(1)
    finally:
        d.close()
    r = DistributedSolver.resume(tmp_path)
    try:
        assert r.iteration == 20
        r.run(20)
        _same(r, s)
        local = evaluate(tree, s.average_policy())
        assert r.evaluate()["best_response"] == local.best_response_values
    finally:
        r.close()


def _session(sid: int) -> dict[int, str]:
    """The live (not zombie) processes of session ``sid``: pid -> name (Linux /proc)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2:].split()  # state, ppid, pgrp, session, ...
        if int(rest[3]) == sid and rest[0] != "Z":
            out[int(entry)] = stat[stat.index("(") + 1:stat.rindex(")")]
    return out


def _end_session(sid: int, wait: float) -> None:
    """Wait up to ``wait`` s for session ``sid``'s processes to end, then SIGKILL each left."""
    deadline = time.monotonic() + wait
    while _session(sid) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in _session(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_the_driver_and_resume(cluster, trees, tmp_path):
    """``rcfr solve leduc --distributed ray --checkpoint DIR --checkpoint-every 0.2`` as a
    driver process of its own (a fresh local Ray cluster, in a session of its own): SIGKILL
    the driver once a periodic checkpoint is on disk, long before its last iteration; its Ray
    processes end (Ray's agents, which outlive it, are ended by id). Resumed here from DIR by
    new actors, the run ends bit for bit where the uninterrupted run does."""
    tree = trees[LEDUC]
    ck = tmp_path / "ck"
    src = str(Path(rcfr.__file__).resolve().parents[1])
    env = {**os.environ, "RAY_ADDRESS": "local",  # its own cluster, never this module's
           "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    with open(tmp_path / "stderr", "wb") as log:
        driver = subprocess.Popen(
            [sys.executable, "-m", "rcfr", "solve", LEDUC, "-a", "dcfr", "-n", "1000000",
             "--distributed", "ray", "--actors", "2", "--checkpoint", str(ck),
             "--checkpoint-every", "0.2", "--json"],
            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + 120  # (Ray's start: seconds; numba's compile if cold)
        while not (ck / "manifest.json").exists():
            assert driver.poll() is None, (tmp_path / "stderr").read_text()[-2000:]
            assert time.monotonic() < deadline, "no checkpoint written in 120 s"
            time.sleep(0.05)
        time.sleep(0.5)  # (a later checkpoint may be half written when the driver dies)
        assert driver.poll() is None  # still running: the checkpoint came during the run
        assert len(_session(driver.pid)) > 3  # the driver, Ray's GCS, raylet, actors ...
        os.kill(driver.pid, signal.SIGKILL)
        assert driver.wait(30) == -signal.SIGKILL
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        _end_session(driver.pid, 2.0)
    time.sleep(0.5)
    assert _session(driver.pid) == {}  # nothing of the killed driver's cluster lingers
    done = json.loads((ck / "manifest.json").read_text())["iterations"]
    assert 0 < done < 1000000
    r = DistributedSolver.resume(ck)
    try:
        assert r.iteration == done
        r.run(10)
        s = _local(tree, "dcfr", iters=done + 10)
        _same(r, s)
        local = evaluate(tree, s.average_policy())
        assert r.evaluate()["best_response"] == local.best_response_values
    finally:
        r.close()


def test_refusals(trees):
    tree = trees[LEDUC]
    with pytest.raises(RcfrError, match="cut"):
        split_public(tree, "river", 1)
    with pytest.raises(RcfrError, match="subgames"):
        split_public(tree, "flop", 6)  # 5 flop subgames
    with pytest.raises(RcfrError, match="actors"):
        DistributedSolver(tree, "cfr+", actors=0, ray=False)
    with pytest.raises(RcfrError, match="manifest"):
        DistributedSolver.resume("/nonexistent/folder", ray=False)
    with pytest.raises(RcfrError, match="seconds"):
        DistributedSolver(tree, "cfr+", ray=False).run(1, checkpoint_seconds=0.0)


def test_cli(cluster, trees, capsys, tmp_path):
    """``rcfr solve GAME --distributed ray``: the exploitability of the single-process run,
    bytes per iteration and actor memory in the JSON, a checkpoint folder that resumes; bad
    input gives one error line."""
    from conftest import one_line_error, run_cli
    code, out, err = run_cli(capsys, "solve", DICE, "-a", "dcfr", "-n", "10", "--distributed",
                             "ray", "--actors", "2", "--checkpoint", tmp_path / "ck", "--json")
    assert code == 0, err
    info = json.loads(out)
    local = evaluate(trees[DICE], _local(trees[DICE], "dcfr", iters=10).average_policy())
    assert info["exploitability"] == local.exploitability
    assert info["bytes_per_iteration"] > 0 and len(info["actor_memory"]) == 2
    assert info["cut"] == "depth:2" and info["subgames"] == 66
    code, out, err = run_cli(capsys, "solve", DICE, "-a", "dcfr", "-n", "5", "--distributed",
                             "ray", "--resume", tmp_path / "ck", "--checkpoint", tmp_path / "ck",
                             "--json")  # (the folder resumed from takes the new checkpoint)
    assert code == 0, err
    assert json.loads(out)["iterations"] == 15
    assert json.loads((tmp_path / "ck" / "manifest.json").read_text())["iterations"] == 15
    code, out, err = run_cli(capsys, "solve", LEDUC, "-a", "cfr+", "-n", "5", "--dtype",
                             "float32", "--distributed", "ray", "--actors", "2", "--json")
    assert code == 0, err
    single = CFRSolver(trees[LEDUC], "cfr+", dtype="float32")
    single.run(5)
    info = json.loads(out)
    assert info["dtype"] == "float32"
    assert info["exploitability"] == evaluate(trees[LEDUC],
                                              single.average_policy()).exploitability
    assert info["driver_peak_rss"] > 0
    for args in (["--actors", "2"], ["--distributed", "dask"], ["--distributed", "ray", "-a",
                                                                "os"],
                 ["--distributed", "ray", "--cut", "river"],
                 ["--distributed", "ray", "--resume", tmp_path / "none"],
                 ["--distributed", "ray", "--checkpoint-every", "1"],
                 ["--distributed", "ray", "--checkpoint", tmp_path / "c2",
                  "--checkpoint-every", "0"]):
        code, _, err = run_cli(capsys, "solve", LEDUC, "-n", "2", *args)
        one_line_error(code, err)


def test_cli_plain_output_and_json_match_a_single_process_solve(cluster, capsys, tmp_path):
    """The plain output names the game, the iterations, the exploitability in mbb/g and the
    seconds (it died with KeyError 'game' after writing its files); the JSON carries the
    single-process solve's keys with the same exploitability."""
    from conftest import run_cli
    args = ["solve", LEDUC, "-a", "cfr+", "-n", "3"]
    code, out, err = run_cli(capsys, *args, "--distributed", "ray", "--actors", "2", "-o",
                             tmp_path / "x.npz")
    assert code == 0, err
    assert "Traceback" not in err and (tmp_path / "x.npz").is_file()
    head = out.splitlines()[0]
    assert head.startswith("cfr+ on leduc: 3 iterations, ") and head.count(" s ") == 1
    assert "mbb/g" in out and "2 actors, 5 subgames below the cut flop" in out
    code, out, err = run_cli(capsys, *args, "--distributed", "ray", "--actors", "2", "--json")
    assert code == 0, err
    info = json.loads(out)
    code, single, err = run_cli(capsys, *args, "--form", "public", "--json")
    single = json.loads(single)
    for key in ("game", "algorithm", "iterations", "exploitability", "exploitability_mbb",
                "best_response_values", "nash_conv"):
        assert info[key] == single[key], key
    assert info["game"] == "leduc" and info["seconds"] > 0
    assert info["exploitability_mbb"] == 1000 * info["exploitability"]


RESUME_MISMATCHES = [  # (a flag that differs from the checkpoint's run, the words refused)
    (["--actors", "3"], "--actors 2, not 3"), (["-a", "dcfr"], "cfr+ checkpoint, not dcfr"),
    (["--dtype", "float32"], "--dtype 'float64'"), (["--cut", "depth:2"], "--cut 'flop'"),
    (["--link", "poly:3"], "link 'poly:2'"), (["--simultaneous"], "alternating True"),
    (["--averaging", "quadratic"], "averaging 'linear'"), (["--seed", "4"], "--seed 0, not 4"),
    (["-a", "dcfr", "--alpha", "2"], "dcfr"), (["--cut", "chance"], None)]


def test_cli_resume_refuses_another_run(cluster, capsys, tmp_path):
    """``--resume DIR`` with a game or an option that differs from the checkpoint's run is
    refused with one line before any actor starts (the manifest's run replaced them); the
    same options resume, and the folder resumed from takes the new checkpoint, holding one
    checkpoint's files (it refused any existing folder)."""
    from conftest import one_line_error, run_cli
    ck = tmp_path / "ck"
    ck.mkdir()  # (an empty folder is taken)
    base = ["solve", LEDUC, "-a", "cfr+", "--distributed", "ray", "--actors", "2"]
    code, _, err = run_cli(capsys, *base, "-n", "2", "--checkpoint", ck, "--checkpoint-every",
                           "0.001")
    assert code == 0, err
    code, _, err = run_cli(capsys, "solve", "kuhn", "-n", "1", "--distributed", "ray",
                           "--resume", ck)
    assert "for 'leduc', not for 'kuhn'" in one_line_error(code, err)
    for flags, words in RESUME_MISMATCHES:
        args = [a for a in base if a not in ("--actors", "2")] + ["-n", "1", "--resume", ck]
        if "-a" in flags:
            args = [a for a in args if a != "cfr+"]
            args.remove("-a")
        code, out, err = run_cli(capsys, *args, *flags)
        if words is None:  # (chance is the flop's other name: the same run)
            assert code == 0, err
            continue
        assert words in one_line_error(code, err), (flags, err)
    code, out, err = run_cli(capsys, *base, "-n", "2", "--resume", ck, "--checkpoint", ck,
                             "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["iterations"] == 4
    split = DistributedSolver(LEDUC, "cfr+", actors=2, ray=False).split
    assert info["bytes_per_iteration"] == split.bytes_per_iteration(True)  # (per iteration
    # run here: it was divided by the checkpoint's iterations too)
    assert sorted(p.name for p in ck.iterdir()) == [
        "manifest.json", "part0-00000004.npz", "part1-00000004.npz", "trunk-00000004.npz"]


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_cli_signal_stops_with_the_checkpoint(cluster, capsys, tmp_path, signum, code):
    """Ctrl-C and SIGTERM stop a distributed solve after the current iteration: the
    checkpoint is written, the exit code is 130 or 143 (SIGTERM aborted the driver with a C++
    stack trace, Ctrl-C was ignored), and the checkpoint resumes."""
    import threading

    from conftest import run_cli
    ck = tmp_path / "ck"

    def kill() -> None:
        deadline = time.monotonic() + 120
        while not (ck / "manifest.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signum)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    got, out, err = run_cli(capsys, "solve", LEDUC, "-n", "1000000", "--distributed", "ray",
                            "--actors", "2", "--checkpoint", ck, "--checkpoint-every", "0.05")
    thread.join()
    assert got == code, err
    assert "Traceback" not in err and f"interrupted by {signal.Signals(signum).name}" in err
    done = json.loads((ck / "manifest.json").read_text())["iterations"]
    assert 0 < done < 1000000
    r = DistributedSolver.resume(ck)
    try:
        assert r.iteration == done
    finally:
        r.close()


def test_cli_address_and_memory_refusals(cluster, capsys):
    """A malformed or empty ``--address`` is one error line (was a traceback); one where
    nothing listens fails at once (it hung for minutes); ``--max-memory`` sizes the actors'
    parts and the driver (it was not applied to them)."""
    from conftest import one_line_error, run_cli
    for address, words in (("not a host:xx", "HOST:PORT"), ("", "empty"),
                           ("127.0.0.1:1", "no Ray cluster answers")):
        code, _, err = run_cli(capsys, "solve", LEDUC, "-n", "1", "--distributed", "ray",
                               "--address", address)
        assert words in one_line_error(code, err)
    code, _, err = run_cli(capsys, "solve", "nl_holdem2(stack=40)", "-n", "1", "--distributed",
                           "ray", "--actors", "2", "--max-memory", "1G")
    assert "each actor" in one_line_error(code, err)
    code, _, err = run_cli(capsys, "solve", LEDUC, "-n", "1", "--distributed", "ray",
                           "--actors", "2", "--max-memory", "64K")  # (sized after the split)
    assert "each actor" in one_line_error(code, err)

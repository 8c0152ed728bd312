"""Distributed checkpoints without Ray (the actors' code in this process): one checkpoint's
files in the folder at a time, written so that a write killed at any moment leaves a folder
that resumes, folders that may be reused, and the command line's refusals that come before
Ray starts (Ray missing, a malformed ``--address``)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from rcfr.core.errors import RcfrError
from rcfr.distributed import DistributedSolver
from rcfr.distributed import checkpoint_folder as ck
from rcfr.distributed import solver as solver_module

LEDUC = "leduc"


def _files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _tables(d: DistributedSolver) -> dict:
    return {k: v.copy() for k, v in d.global_arrays().items()}


def test_periodic_checkpoints_keep_one_checkpoint(tmp_path):
    """13 periodic checkpoints leave one checkpoint's four files (they left 40 on Leduc); a
    second checkpoint at the same iteration gets new names; leftovers of a killed write are
    removed by the next checkpoint; the folder resumes where the run was."""
    d = DistributedSolver(LEDUC, "cfr+", actors=2, ray=False)
    d.run(13, checkpoint_every=1, checkpoint_dir=tmp_path)
    assert _files(tmp_path) == ["manifest.json", "part0-00000013.npz", "part1-00000013.npz",
                                "trunk-00000013.npz"]
    (tmp_path / "part1-00000007.npz").write_bytes(b"left by a killed write")
    (tmp_path / ".part0-00000014.npz.x1y2.tmp").write_bytes(b"a killed write's temporary")
    d.save_checkpoint(tmp_path)
    assert _files(tmp_path) == ["manifest.json", "part0-00000013-1.npz",
                                "part1-00000013-1.npz", "trunk-00000013-1.npz"]
    r = DistributedSolver.resume(tmp_path, ray=False)
    assert r.iteration == 13
    for k, v in _tables(d).items():
        assert np.array_equal(r.global_arrays()[k], v)


def test_a_write_killed_before_the_manifest_leaves_the_last_checkpoint(tmp_path, monkeypatch):
    """The new parts and trunk are written first, the manifest replaced last: a write that
    dies before the manifest leaves the previous checkpoint whole, and it resumes."""
    d = DistributedSolver(LEDUC, "cfr+", actors=2, ray=False)
    d.run(3, checkpoint_every=3, checkpoint_dir=tmp_path)
    at3 = _tables(d)
    d.run(2)

    def die(path, write):
        raise KeyboardInterrupt  # (killed just before the manifest's rename)

    monkeypatch.setattr(solver_module, "write_atomic", die)
    with pytest.raises(KeyboardInterrupt):
        d.save_checkpoint(tmp_path)
    monkeypatch.undo()
    assert "part0-00000005.npz" in _files(tmp_path)  # (written, not named by the manifest)
    r = DistributedSolver.resume(tmp_path, ray=False)
    assert r.iteration == 3
    for k, v in at3.items():
        assert np.array_equal(r.global_arrays()[k], v)
    r.run(2)
    r.save_checkpoint(tmp_path)
    assert _files(tmp_path) == ["manifest.json", "part0-00000005-1.npz",
                                "part1-00000005-1.npz", "trunk-00000005-1.npz"]


def test_checkpoint_folders(tmp_path):
    """A new folder, an empty one and a checkpoint's are taken; a file, or a folder with
    other files, is refused."""
    ck.check_folder(tmp_path / "new" / "deeper")
    ck.check_folder(tmp_path)
    DistributedSolver(LEDUC, "cfr+", actors=2, ray=False).save_checkpoint(tmp_path / "c")
    ck.check_folder(tmp_path / "c")
    (tmp_path / "file").write_text("x")
    with pytest.raises(RcfrError, match="not a folder"):
        ck.check_folder(tmp_path / "file")
    with pytest.raises(RcfrError, match="not a distributed checkpoint's"):
        ck.check_folder(tmp_path)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A Leduc checkpoint of 2 parts after 2 iterations, and its manifest."""
    folder = tmp_path_factory.mktemp("ck")
    d = DistributedSolver(LEDUC, "cfr+", actors=2, ray=False)
    d.run(2, checkpoint_every=2, checkpoint_dir=folder)
    return folder, json.loads((folder / "manifest.json").read_text())


def _damaged_tables(path, change) -> None:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: np.array(data[k]) for k in data.files}
    change(arrays)
    np.savez_compressed(path, **arrays)


@pytest.mark.parametrize("change, words", [
    (lambda a: a["regrets"].__setitem__(0, np.nan), "not finite"),
    (lambda a: a.update(avg_weights=a["avg_weights"].astype(np.float32)), "float32"),
    (lambda a: a.update(strategy=a["strategy"][:-1]), "shape"),
    (lambda a: a.pop("prediction"), "lacks prediction")])
@pytest.mark.parametrize("which", ["trunk", "part_files"])
def test_damaged_tables_are_refused(saved, tmp_path, change, words, which):
    """The trunk's and each part's tables are checked: finite, of the run's dtype and of the
    part's shape, before they are taken."""
    import shutil
    folder, m = saved
    shutil.copytree(folder, tmp_path / "c")
    name = m["trunk"] if which == "trunk" else m["part_files"][1]
    _damaged_tables(tmp_path / "c" / name, change)
    with pytest.raises(RcfrError, match=words):
        DistributedSolver.resume(tmp_path / "c", ray=False)


def test_resume_checks_the_run_asked_for(saved):
    """The API's ``expect``: what the command line asks for, compared before anything is
    built."""
    folder, _ = saved
    with pytest.raises(RcfrError, match="for 'leduc', not for 'kuhn'"):
        DistributedSolver.resume(folder, ray=False, expect={"game": "kuhn"})
    with pytest.raises(RcfrError, match="--actors 2, not 3"):
        DistributedSolver.resume(folder, ray=False, expect={"actors": 3})
    r = DistributedSolver.resume(folder, ray=False, expect={
        "game": LEDUC, "algorithm": "cfr+", "actors": None, "cut": "chance",
        "alternating": True, "averaging": None, "link": None, "dtype": None, "seed": None})
    assert r.iteration == 2


def test_cli_refusals_before_ray(capsys, monkeypatch):
    """Without the ray extra, one line saying how to install it from a checkout (was a
    ModuleNotFoundError traceback); a malformed ``--address``, one line."""
    from conftest import one_line_error, run_cli
    monkeypatch.setitem(sys.modules, "ray", None)  # (import ray raises ImportError)
    code, _, err = run_cli(capsys, "solve", LEDUC, "-n", "1", "--distributed", "ray")
    assert "pip install -e '.[ray]'" in one_line_error(code, err)
    monkeypatch.undo()
    pytest.importorskip("ray")
    for address in ("not a host:xx", "", "host:0", "host:99999", "host:"):
        code, _, err = run_cli(capsys, "solve", LEDUC, "-n", "1", "--distributed", "ray",
                               "--address", address)
        one_line_error(code, err)


def test_the_distributed_solver_keeps_the_solver_protocol(tmp_path):
    """The run engine's protocol: ``setup()``, the policies, and ``load_checkpoint`` into a
    running solver of the same run (the same tables as :meth:`resume`); a checkpoint of
    another run is refused with one line."""
    from rcfr.run.protocol import Solver

    d = DistributedSolver(LEDUC, "cfr+", actors=2, ray=False)
    assert isinstance(d, Solver)
    d.setup()
    d.run(7)
    d.save_checkpoint(tmp_path / "a")
    d.run(3)
    fresh = DistributedSolver(LEDUC, "cfr+", actors=2, ray=False)
    fresh.load_checkpoint(tmp_path / "a")
    resumed = DistributedSolver.resume(tmp_path / "a", ray=False)
    assert fresh.iteration == resumed.iteration == 7
    assert fresh.nodes_visited == resumed.nodes_visited
    for k, v in _tables(resumed).items():
        assert np.array_equal(fresh.global_arrays()[k], v)
    current = fresh.current_policy()
    assert np.array_equal(current.probs, resumed.global_arrays()["strategy"])
    with pytest.raises(RcfrError, match="--actors 2, not 3"):
        DistributedSolver(LEDUC, "cfr+", actors=3, ray=False).load_checkpoint(tmp_path / "a")

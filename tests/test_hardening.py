"""Issue 30's hardening, the points after the store and spec validation (tests/test_fuzz.py):
a failed checkpoint keeps the other outputs, ``sklearn:`` takes only regressor classes, option
conflicts are refused, torch layer lists are checked and counted, seeds repeat, game-string
parameters are bounded, evaluation is judged by its own memory, and help/version import
nothing heavy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rcfr.cli import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def one_line_error(code: int, err: str) -> str:
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error:")
    return lines[0]


# -- a failed checkpoint write ---------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_failed_checkpoint_still_writes_the_strategies(capsys, tmp_path):
    out, current = tmp_path / "avg.npz", tmp_path / "cur.npz"
    code, _, err = run(capsys, "solve", "kuhn", "-n", "20", "--checkpoint", "/dev/full",
                       "-o", out, "--out-current", current)
    line = one_line_error(code, err)
    assert "/dev/full" in line
    assert out.is_file() and current.is_file()  # the work is not lost
    with np.load(out, allow_pickle=False) as data:
        assert data["probs"].shape[0] > 0


def test_failed_checkpoint_keeps_the_previous_one(capsys, tmp_path, monkeypatch):
    ck, out = tmp_path / "ck.npz", tmp_path / "avg.npz"
    assert run(capsys, "solve", "kuhn", "-n", "10", "--checkpoint", ck)[0] == 0
    before = ck.read_bytes()
    import rcfr.core.fileio as fileio

    real = fileio.np.savez_compressed

    def full(handle, **arrays):
        if "strategy" in arrays:  # the checkpoint's write fails; the strategies' do not
            raise OSError(28, "No space left on device")
        return real(handle, **arrays)

    monkeypatch.setattr(fileio.np, "savez_compressed", full)
    code, _, err = run(capsys, "solve", "kuhn", "-n", "10", "--resume", ck, "--checkpoint", ck,
                       "-o", out)
    line = one_line_error(code, err)
    assert str(ck) in line and "No space left" in line
    assert ck.read_bytes() == before
    assert out.is_file()


# -- --regressor sklearn:CLASS takes only scikit-learn regressor classes ---------------------


@pytest.mark.parametrize("path", ["os.abort", "sys.exit", "builtins.breakpoint", "os.getcwd",
                                  "sklearn.tree.DecisionTreeClassifier",
                                  "sklearn.preprocessing.StandardScaler", "builtins.int",
                                  "sklearn.tree._classes"])
def test_sklearn_path_must_name_a_regressor_class(capsys, monkeypatch, path):
    import os
    import sys

    def called(*_args, **_kwargs):  # what the path names must never be called
        raise AssertionError(f"{path} was called")

    monkeypatch.setattr(os, "abort", called)
    monkeypatch.setattr(sys, "exit", called)
    monkeypatch.setattr(sys, "breakpointhook", called)
    code, _, err = run(capsys, "solve", "kuhn", "-a", "rcfr", "-n", "2",
                       "--regressor", f"sklearn:{path}")
    line = one_line_error(code, err)
    assert "scikit-learn regressor" in line


def test_sklearn_abort_in_a_real_process():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "rcfr", "solve", "kuhn", "-a", "rcfr", "-n",
                           "2", "--regressor", "sklearn:os.abort"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "scikit-learn regressor" in proc.stderr


def test_sklearn_regressor_class_runs_and_help_says_so(capsys):
    code, out, err = run(capsys, "solve", "kuhn", "-a", "rcfr", "-n", "3", "--regressor",
                         "sklearn:sklearn.tree.DecisionTreeRegressor", "--json")
    assert code == 0, err
    assert json.loads(out)["iterations"] == 3
    code, out, _ = run(capsys, "solve", "--help")
    assert "scikit-learn regressor class" in " ".join(out.split())

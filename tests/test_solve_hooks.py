"""solve()'s hooks: periodic checkpoints and a cooperative stop, without changing results."""

import numpy as np
import pytest

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.run.engine import solve
from rcfr.solvers.run import make_solver


def test_stop_after_a_chunk_then_resume_equals_an_uninterrupted_run(tmp_path):
    ckpt = tmp_path / "run.ckpt.npz"
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) >= 3  # stop after the third chunk

    first = solve("kuhn", "cfr+", 500, eval_every=50, checkpoint=ckpt, should_stop=stop)
    assert first.interrupted and first.iterations == 150
    assert ckpt.is_file()
    resumed = make_solver(rcfr.compile_game("kuhn"), "cfr+")
    resumed.load_checkpoint(ckpt)
    assert resumed.iteration == 150
    rest = solve("kuhn", "cfr+", 350, eval_every=50, solver=resumed)
    whole = solve("kuhn", "cfr+", 500, eval_every=50)
    assert not rest.interrupted and rest.iterations == 500
    np.testing.assert_array_equal(rest.policy.probs, whole.policy.probs)
    assert rest.evaluation.exploitability == whole.evaluation.exploitability


def test_periodic_checkpoint_is_written_during_the_run(tmp_path):
    ckpt = tmp_path / "periodic.npz"
    seen = []

    def stop() -> bool:
        seen.append(ckpt.is_file())
        return False

    solve("kuhn", "cfr", 40, eval_every=10, checkpoint=ckpt, checkpoint_every=1e-9,
          should_stop=stop)
    assert seen[0]  # written after the first chunk, before the end


def test_checkpoint_every_must_be_positive():
    with pytest.raises(RcfrError, match="checkpoint-every"):
        solve("kuhn", "cfr", 10, checkpoint_every=0)

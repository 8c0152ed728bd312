"""The Deep CFR family (issue 25): Deep CFR, Single Deep CFR and DREAM (rcfr.solvers.deep)."""

from __future__ import annotations

import numpy as np
import pytest

from rcfr.cli import main
from rcfr.evaluate import evaluate
from rcfr.forms.compile import compile_game
from rcfr.solvers.deep.memory import Reservoir, reservoir_slots
from rcfr.solvers.run import make_solver, solve

pytest.importorskip("torch")

SMALL = {"traversals": 40, "train_steps": 20, "batch_size": 32, "memory": 100}


@pytest.mark.parametrize("form", ["history", "public"])
def test_tabular_full_width_deep_cfr_is_linear_cfr(form):
    """With the exact tabular fit, full-width traversals and a uniform fallback, Deep CFR's
    iterates and average are linear CFR's, and SD-CFR's exact average is its linear average."""
    tree = compile_game("kuhn", form=form)
    exact = {"model": "tabular", "scheme": "full", "fallback": "uniform", "memory": 10**5}
    from rcfr.solvers.deep.deep_cfr import DeepCFRSolver
    from rcfr.solvers.deep.sd_cfr import SDCFRSolver

    deep = DeepCFRSolver(tree, seed=0, **exact)
    sd = SDCFRSolver(tree, seed=0, **exact)
    lcfr = make_solver(tree, "lcfr")
    for _ in range(25):
        deep.run(1)
        sd.run(1)
        lcfr.run(1)
        ref = lcfr.current_policy().probs
        assert np.abs(deep.current_policy().probs - ref).max() < 1e-12
        assert np.abs(sd.current_policy().probs - ref).max() < 1e-12
    avg = lcfr.average_policy().probs
    assert np.abs(deep.average_policy().probs - avg).max() < 1e-12
    assert np.abs(sd.average_policy().probs - avg).max() < 1e-12
    assert evaluate(tree, sd.average_policy()).exploitability < 0.01


def test_reservoir_keeps_a_uniform_sample():
    """Chi-square over which of 2,000 offered rows a memory of 100 keeps (400 runs); a sampler
    that favours late rows fails the same test (the test can fail)."""

    class LateBiased(Reservoir):
        def _slots(self, n, rng):
            slots = super()._slots(n, rng)
            seen = self.added + np.arange(n)
            late = (seen >= self.capacity) & (rng.random(n) < 0.1)
            slots[late] = rng.integers(0, self.capacity, int(late.sum()))
            return slots

    def chi_square(cls) -> float:
        counts = np.zeros(20)
        rng = np.random.default_rng(5)
        for _ in range(400):
            mem = cls(100, 1)
            for lo in range(0, 2000, 250):  # offered in batches, as traversals do
                rows = np.arange(lo, lo + 250)
                mem.add(rows, 1, rows[:, None].astype(float), np.ones(250), rng)
            counts += np.bincount(mem.info[:len(mem)] // 100, minlength=20)
        expected = counts.sum() / 20
        return float(((counts - expected) ** 2 / expected).sum())

    # 19 degrees of freedom: the 99.9% point is 43.8
    assert chi_square(Reservoir) < 43.8
    assert chi_square(LateBiased) > 43.8


def test_reservoir_slots_follow_algorithm_r():
    slots = np.empty(4, dtype=np.int64)
    reservoir_slots(2, 3, np.array([0.1, 0.5, 0.99, 0.2]), slots)
    # rows 2 (seen 2 < 3) is stored at 2; row 3: floor(0.5 * 4) = 2; row 4: floor(0.99 * 5) = 4
    # (not kept); row 5: floor(0.2 * 6) = 1
    assert slots.tolist() == [2, 2, -1, 1]


def test_deep_cfr_and_sd_cfr_solve_kuhn_and_repeat_with_a_seed():
    deep = make_solver("kuhn", "deep-cfr", seed=0, traversals=150, train_steps=150,
                       batch_size=128, policy_steps=1000).run(12)
    assert evaluate(deep.tree, deep.average_policy()).exploitability < 0.05
    sd = make_solver("kuhn", "sd-cfr", seed=0, traversals=150, train_steps=150,
                     batch_size=128).run(20)
    assert evaluate(sd.tree, sd.average_policy()).exploitability < 0.05
    assert len(sd.snapshots) == 20 and len(sd.snapshots[0]) == 2


@pytest.mark.parametrize("key", ["deep-cfr", "sd-cfr", "dream"])
def test_two_runs_with_one_seed_are_identical(key):
    runs = [make_solver("kuhn", key, seed=s, policy_steps=20, **SMALL).run(3)
            if key != "sd-cfr" else make_solver("kuhn", key, seed=s, **SMALL).run(3)
            for s in (0, 0, 1)]
    probs = [(r.current_policy().probs, r.average_policy().probs) for r in runs]
    assert all(np.array_equal(a, b) for a, b in zip(probs[0], probs[1], strict=True))
    assert not np.array_equal(probs[0][0], probs[2][0])


@pytest.mark.parametrize("key,options", [
    ("deep-cfr", {"warm_start": True, "policy_steps": 20}),
    ("sd-cfr", {}),
    ("dream", {"policy_steps": 20}),
])
def test_checkpoints_resume_bit_for_bit(tmp_path, key, options):
    """Networks, Adam's moments, memories (full: the reservoir draws) and generators."""
    first = make_solver("kuhn", key, seed=3, **SMALL, **options).run(3)
    first.save_checkpoint(tmp_path / "c.npz")
    first.run(2)
    resumed = make_solver("kuhn", key, seed=3, **SMALL, **options)
    resumed.load_checkpoint(tmp_path / "c.npz").run(2)
    assert resumed.iteration == first.iteration == 5
    assert resumed.nodes_visited == first.nodes_visited
    assert np.array_equal(resumed.current_policy().probs, first.current_policy().probs)
    assert np.array_equal(resumed.average_policy().probs, first.average_policy().probs)
    for p in (0, 1):
        assert np.array_equal(resumed.adv_mem_[p].target, first.adv_mem_[p].target)
        assert resumed.adv_mem_[p].added == first.adv_mem_[p].added > 100


def test_deep_cfr_runs_on_the_public_form_and_dream_solves_kuhn():
    tree = compile_game("kuhn", form="public")
    public = make_solver(tree, "sd-cfr", seed=0, traversals=150, train_steps=150,
                         batch_size=128).run(6)
    assert public.tree is tree
    assert public.nodes_visited > 6 * 2 * 150 * 3  # at least three histories a traversal
    # Kuhn's uniform strategy is 0.458 exploitable
    assert evaluate(tree, public.average_policy()).exploitability < 0.2
    dream = make_solver("kuhn", "dream", seed=0, traversals=375, train_steps=375,
                        policy_steps=1000).run(12)
    assert evaluate(dream.tree, dream.average_policy()).exploitability < 0.06


def test_solve_evaluates_deep_cfr_along_the_way():
    result = solve("kuhn", "sd-cfr", iterations=4, eval_every=2, seed=0, **SMALL)
    assert [it for it, _ in result.curve] == [2, 4]
    assert result.curve[-1][1] == pytest.approx(result.evaluation.exploitability)


def test_cli_solves_and_refuses_bad_input(capsys, tmp_path):
    out = tmp_path / "avg.npz"
    code = main(["solve", "kuhn", "-a", "deep-cfr", "-n", "2", "--traversals", "20",
                 "--train-steps", "10", "--policy-steps", "10", "--out", str(out), "--json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    assert out.exists()
    for args in (["-a", "sd-cfr", "--policy-steps", "5"], ["-a", "cfr", "--traversals", "5"],
                 ["-a", "deep-cfr", "--lr", "0"], ["-a", "deep-cfr", "--hidden", "0"],
                 ["-a", "deep-cfr", "--simultaneous"], ["-a", "dream", "--form", "public"],
                 ["-a", "deep-cfr", "--traversals", "0"]):
        code = main(["solve", "kuhn", *args, "-n", "1", "--out", str(tmp_path / "x.npz")])
        err = capsys.readouterr().err
        assert code == 2, args
        assert "Traceback" not in err
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert not (tmp_path / "x.npz").exists()

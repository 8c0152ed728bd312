"""Monte Carlo CFR on the public tree (rcfr.forms.public.sampled): unbiased sampled regrets, nodes
counted in histories as the history form counts them, convergence."""

import numpy as np
import pytest

import rcfr
from rcfr.forms.convert import sequence_map
from rcfr.forms.public.tree import compile_public
from rcfr.policy import convert_policy
from rcfr.solvers.mccfr import MCCFRSolver, exact_regrets


@pytest.mark.parametrize(("spec", "scheme", "samples"), [
    ("kuhn", "cs", 4000), ("kuhn", "es", 8000), ("kuhn", "os", 8000), ("kuhn", "as", 8000),
    ("leduc(canonical=true)", "es", 6000), ("leduc(canonical=true)", "cs", 3000),
])
def test_sampled_regrets_are_unbiased(spec, scheme, samples):
    """At a fixed fully mixed profile the mean sampled regret of every sequence matches the
    exact counterfactual regret within 5 standard errors (as for the history form)."""
    h = rcfr.compile_game(spec)
    t = compile_public(h.game)
    rng = np.random.default_rng(11)
    policy = rcfr.TabularPolicy.from_weights(h, rng.random(h.num_sequences) + 0.25)
    solver = MCCFRSolver(compile_public(t), scheme, seed=3)
    solver.setup()
    solver.strategy_[:] = convert_policy(policy, t).probs
    solver.avg_weights_[:] = rng.random(t.num_sequences) * 10  # what AS samples from
    back = sequence_map(t, h)  # the public sequence of each history-form sequence
    for player in (0, 1):
        rows = solver.sample_regrets(player, samples)[:, back]
        exact = exact_regrets(h, policy, player)
        se = rows.std(axis=0, ddof=1) / np.sqrt(samples)
        assert np.all(np.abs(rows.mean(axis=0) - exact) <= 5 * se + 1e-9)
        assert np.abs(exact).max() > 0.01


def test_nodes_are_counted_in_histories():
    """Chance sampling walks every public node of its deal: 2 dealing chance nodes and the 9
    betting histories of Kuhn per pass, as the history form counts them."""
    public = MCCFRSolver(compile_public("kuhn"), "cs", seed=1).run(5)
    history = MCCFRSolver("kuhn", "cs", seed=1).run(5)
    assert public.nodes_visited == history.nodes_visited == 5 * 2 * 11
    es = MCCFRSolver(compile_public("leduc(canonical=true)"), "es", seed=2).run(2000)
    ref = MCCFRSolver("leduc(canonical=true)", "es", seed=2).run(2000)
    assert es.nodes_visited == pytest.approx(ref.nodes_visited, rel=0.05)  # same expectation


def test_external_sampling_converges_on_the_public_form():
    """3000 ES iterations on canonical Leduc: the history form reaches about 0.4 (uniform
    play: 2.37)."""
    solver = MCCFRSolver(compile_public("leduc(canonical=true)"), "es", seed=0).run(3000)
    assert rcfr.exploitability(solver.average_policy()) < 0.6
    assert solver.average_policy().metadata["form"] == "public"


def _reference(spec, scheme, seed, rule):
    """A solver whose passes go through the deal's history-form node arrays and the history
    form's sampled pass (the Python step)."""
    solver = MCCFRSolver(compile_public(spec), scheme, seed=seed, rule=rule)
    solver.setup()
    solver.fused_ = False
    ps = solver.pass_
    ps.run = lambda players, *args: ps.reference_run(players[0], *args)
    return solver


@pytest.mark.parametrize(("spec", "scheme", "rule"), [
    ("kuhn", "cs", "cfr"), ("kuhn", "es", "cfr+"), ("kuhn", "os", "cfr"), ("kuhn", "as", "cfr"),
    ("leduc", "es", "dcfr"), ("leduc", "os", "cfr+"), ("leduc", "cs", "cfr"),
    ("liars_dice", "as", "cfr+"),
])
def test_fused_pass_is_the_history_form_pass_on_the_deal(spec, scheme, rule):
    """The fused kernel (deal drawn, information sets, chance probabilities and payoffs read on
    the way) and the Python step over the same kernel both equal, bit for bit, the history
    form's sampled pass over the deal's node arrays: same strategies, average strategies,
    generator state and histories counted (the history form's count on the same
    trajectory)."""
    fused = MCCFRSolver(compile_public(spec), scheme, seed=7, rule=rule).run(40)
    step = MCCFRSolver(compile_public(spec), scheme, seed=7, rule=rule)
    step.setup()
    step.fused_ = False
    step.run(40)
    ref = _reference(spec, scheme, 7, rule).run(40)
    # a discounted rule: the fused kernel discounts lazily, equal to the eager steps up to
    # rounding (as in the history form)
    lazy = rule == "dcfr"
    assert (fused.lazy_ is not None) == lazy
    same = (lambda x, y: np.allclose(x, y, rtol=0, atol=1e-12)) if lazy else np.array_equal
    for other in (step, ref):
        assert same(fused.strategy_, other.strategy_)
        assert same(fused.avg_weights_, other.avg_weights_)
        assert fused.nodes_visited == other.nodes_visited
        assert fused.pass_.rng[0] == other.pass_.rng[0]
    assert fused.nodes_visited > 40 * 2 * 3


def test_lazy_discounting_on_the_public_form_resumes_bit_for_bit(tmp_path):
    """The lazy state of the public pass is checkpointed as the history form's is."""
    straight = MCCFRSolver(compile_public("leduc"), "es", rule="dcfr", seed=5).run(300)
    path = tmp_path / "dcfr.npz"
    MCCFRSolver(compile_public("leduc"), "es", rule="dcfr", seed=5).run(120).save_checkpoint(path)
    resumed = MCCFRSolver(compile_public("leduc"), "es", rule="dcfr", seed=5).load_checkpoint(path)
    resumed.run(180)
    assert np.array_equal(resumed.strategy_, straight.strategy_)
    assert np.array_equal(resumed.avg_weights_, straight.avg_weights_)
    assert np.array_equal(resumed.estimator_.regrets, straight.estimator_.regrets)
    assert not np.array_equal(straight.lazy_.raw, straight.estimator_.regrets)


@pytest.mark.parametrize("scheme", ["es", "as"])
def test_bluff11_converges_on_the_public_form(scheme):
    """8 million histories of ES or AS on Bluff(1,1) (uniform play: 0.78): measured 0.048 to
    0.053 over seeds 0-2 for both schemes."""
    solver = MCCFRSolver(compile_public("liars_dice"), scheme, seed=4).run_nodes(8_000_000)
    assert 8_000_000 <= solver.nodes_visited < 8_001_000  # whole iterations
    assert rcfr.exploitability(solver.average_policy()) < 0.075


def test_checkpoint_resumes_bit_identically(tmp_path):
    """AS on the public form, stopped, saved and resumed by a solver of another seed, ends
    where an uninterrupted run does (the generator's state is in the checkpoint)."""
    whole = MCCFRSolver(compile_public("liars_dice"), "as", seed=9, rule="cfr+").run(600)
    first = MCCFRSolver(compile_public("liars_dice"), "as", seed=9, rule="cfr+").run(250)
    first.save_checkpoint(tmp_path / "as.npz")
    resumed = MCCFRSolver(compile_public("liars_dice"), "as", seed=1, rule="cfr+")
    resumed.load_checkpoint(tmp_path / "as.npz").run(350)
    assert np.array_equal(whole.strategy_, resumed.strategy_)
    assert np.array_equal(whole.avg_weights_, resumed.avg_weights_)
    assert resumed.nodes_visited == whole.nodes_visited and resumed.iteration == 600
    with pytest.raises(rcfr.RcfrError, match="not es"):
        MCCFRSolver(compile_public("liars_dice"), "es").load_checkpoint(tmp_path / "as.npz")


def test_float32_tables_run_resume_and_stay_close_to_float64(tmp_path):
    """Opt-in float32 tables (issue 14): regrets, current and average strategy in single
    precision.  ES on Bluff(1,1), 3000 iterations: the exploitability is float64's to 1e-6
    (measured 2e-9 to 7e-8 over seeds 0-2; the sampled trajectories stay the same there); a
    float32 run stopped, saved and resumed ends bit-identically; the dtype is in the
    checkpoint and a float64 solver refuses it."""
    f64 = MCCFRSolver(compile_public("liars_dice"), "es", seed=0).run(3000)
    f32 = MCCFRSolver(compile_public("liars_dice"), "es", seed=0, dtype="float32").run(3000)
    tables = (f32.strategy_, f32.avg_weights_, f32.estimator_.regrets, f32._inst)
    assert all(a.dtype == np.float32 for a in tables)
    assert f64.avg_weights_.dtype == np.float64
    e64 = rcfr.exploitability(f64.average_policy())
    assert abs(rcfr.exploitability(f32.average_policy()) - e64) < 1e-6
    assert np.abs(f32.average_policy().probs - f64.average_policy().probs).max() < 1e-5
    first = MCCFRSolver(compile_public("liars_dice"), "es", seed=0, dtype="float32").run(1200)
    first.save_checkpoint(tmp_path / "f32.npz")
    resumed = MCCFRSolver(compile_public("liars_dice"), "es", seed=5, dtype="float32")
    resumed.load_checkpoint(tmp_path / "f32.npz").run(1800)
    assert resumed.avg_weights_.dtype == np.float32
    assert np.array_equal(resumed.avg_weights_, f32.avg_weights_)
    assert np.array_equal(resumed.estimator_.regrets, f32.estimator_.regrets)
    with pytest.raises(rcfr.RcfrError, match="dtype 'float32', not 'float64'"):
        MCCFRSolver(compile_public("liars_dice"), "es").load_checkpoint(tmp_path / "f32.npz")
    with pytest.raises(rcfr.RcfrError, match="float64 or float32"):
        MCCFRSolver(compile_public("kuhn"), "es", dtype="float16").run(1)


def test_float32_on_the_command_line(capsys, tmp_path):
    """``rcfr solve --dtype float32`` runs the sampling schemes in single precision and says so
    in the checkpoint; regression CFR refuses it in one line (the tabular full-width solvers
    take it too since issue 23: tests/test_threads.py)."""
    from rcfr.cli import main
    from rcfr.core.fileio import read_npz

    path = tmp_path / "run.npz"
    code = main(["solve", "kuhn", "--form", "public", "-a", "es", "-n", "300", "--dtype",
                 "float32", "--checkpoint", str(path), "--json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    arrays, meta = read_npz(path, "rcfr.checkpoint")
    assert meta["dtype"] == "float32" and arrays["avg_weights"].dtype == np.float32
    for args in (["-a", "rcfr", "--dtype", "float32"], ["-a", "es", "--dtype", "half"]):
        code = main(["solve", "kuhn", "-n", "10", *args])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and err.startswith("error: ")

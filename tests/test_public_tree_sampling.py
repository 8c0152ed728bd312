"""Monte Carlo CFR on the public tree (rcfr.public_sampling): unbiased sampled regrets, nodes
counted in histories as the history form counts them, convergence."""

import numpy as np
import pytest

import rcfr
from rcfr.public_sampling import PublicMCCFRSolver
from rcfr.public_tree import compile_public, convert_policy, sequence_map
from rcfr.solvers.sampling import MCCFRSolver, exact_regrets


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
    solver = PublicMCCFRSolver(t, scheme, seed=3)
    solver._setup()
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
    public = PublicMCCFRSolver("kuhn", "cs", seed=1).run(5)
    history = MCCFRSolver("kuhn", "cs", seed=1).run(5)
    assert public.nodes_visited == history.nodes_visited == 5 * 2 * 11
    es = PublicMCCFRSolver("leduc(canonical=true)", "es", seed=2).run(2000)
    ref = MCCFRSolver("leduc(canonical=true)", "es", seed=2).run(2000)
    assert es.nodes_visited == pytest.approx(ref.nodes_visited, rel=0.05)  # same expectation


def test_external_sampling_converges_on_the_public_form():
    """3000 ES iterations on canonical Leduc: the history form reaches about 0.4 (uniform
    play: 2.37)."""
    solver = PublicMCCFRSolver("leduc(canonical=true)", "es", seed=0).run(3000)
    assert rcfr.exploitability(solver.average_policy()) < 0.6
    assert solver.average_policy().metadata["form"] == "public"

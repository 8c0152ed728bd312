"""Monte Carlo CFR (rcfr.solvers.mccfr): unbiased sampled regrets, AS sampling rates,
convergence, reproducibility, cost accounting and parameter checks."""

import numpy as np
import pytest

import rcfr
from rcfr.forms.sampling import as_sampling_probability
from rcfr.solvers import CFRSolver, MCCFRSolver, TabularRegrets
from rcfr.solvers.mccfr import exact_regrets, nodes_curve, sample_regrets, visit_counts

SCHEMES = ["cs", "es", "os", "as"]


def mixed_policy(tree, seed):
    """A random fully mixed profile, every probability well away from 0 (rarely reached
    information sets would make the sample standard errors unreliable)."""
    rng = np.random.default_rng(seed)
    return rcfr.TabularPolicy.from_weights(tree, rng.random(tree.num_sequences) + 0.25)
# (scheme, options): AS also with beta = 0, tau = 1, where it really samples subsets
VARIANTS = [("cs", {}), ("es", {}), ("os", {}), ("as", {}),
            ("as", {"beta": 0.0, "tau": 1.0, "epsilon": 0.5}),
            ("as", {"beta": 2.0, "tau": 3.0, "epsilon": 0.3})]
SAMPLES = {"kuhn": 20_000, "random_game(seed=3)": 100_000}


@pytest.mark.parametrize("scheme, options", VARIANTS)
@pytest.mark.parametrize("spec", ["kuhn", "random_game(seed=3)"])
def test_sampled_regrets_are_unbiased(spec, scheme, options):
    """At a fixed fully mixed profile, the mean of each sequence's sampled regret matches the
    exact counterfactual regret of the full-width pass within 5 standard errors."""
    tree = rcfr.compile_game(spec)
    policy = mixed_policy(tree, 11)
    avg = np.random.default_rng(5).random(tree.num_sequences) * 10  # what AS samples from
    for player in (0, 1):
        rows = sample_regrets(tree, policy, player, scheme, samples=SAMPLES[spec], seed=7,
                              avg_weights=avg, **options)
        exact = exact_regrets(tree, policy, player)
        mean = rows.mean(axis=0)
        se = rows.std(axis=0, ddof=1) / np.sqrt(rows.shape[0])
        assert np.all(np.abs(mean - exact) <= 5 * se + 1e-9), (player, np.max(
            np.abs(mean - exact) / (se + 1e-12)))
        own = np.zeros(tree.num_sequences, dtype=bool)
        own[tree.player_sequences(player).start:tree.player_sequences(player).stop] = True
        assert not rows[:, ~own].any()  # only the updating player's regrets are sampled
        assert np.abs(exact[own]).max() > 0.01  # the check is not vacuous


def test_as_samples_at_the_average_strategy_rates(kuhn):
    """AS with tau = 1, beta = 0 samples each action at its average-strategy probability
    (Gibson et al. 2012, sec. 4), floored at epsilon."""
    rng = np.random.default_rng(2)
    avg = rng.random(kuhn.num_sequences) + 0.2
    policy = mixed_policy(kuhn, 3)
    samples = 20_000
    visits = visit_counts(kuhn, policy, 0, "as", samples=samples, seed=1, epsilon=0.01,
                          beta=0.0, tau=1.0, avg_weights=avg)
    checked = 0
    for h in np.flatnonzero(kuhn.node_kind == 0):
        if visits[h] < 1000:
            continue
        info = kuhn.node_infoset[h]
        lo = kuhn.infoset_seq_start[info]
        hi = lo + kuhn.infoset_num_actions[info]
        rate = avg[lo:hi] / avg[lo:hi].sum()
        kids = visits[kuhn.node_child_start[h]:kuhn.node_child_start[h + 1]]
        freq = kids / visits[h]
        assert np.all(np.abs(freq - rate) <= 5 * np.sqrt(rate * (1 - rate) / visits[h]))
        checked += 1
    assert checked >= 6
    # eq. 2 directly: the epsilon floor, the tau threshold and the beta bonus
    s = np.array([0.0, 1.0, 999.0])
    assert as_sampling_probability(s, 0, 3, 0, 0.05, 0.0, 1.0) == 0.05
    assert as_sampling_probability(s, 0, 3, 1, 0.0005, 0.0, 1.0) == pytest.approx(1e-3)
    assert as_sampling_probability(s, 0, 3, 1, 0.05, 0.0, 1000.0) == 1.0
    assert as_sampling_probability(s, 0, 3, 0, 0.05, 1e6, 1000.0) == pytest.approx(1e6 / 1001e3)
    assert as_sampling_probability(np.zeros(3), 0, 3, 0, 0.05, 0.0, 1000.0) == 1.0


@pytest.mark.parametrize("scheme", SCHEMES)
def test_each_scheme_converges_on_kuhn(kuhn, scheme):
    uniform = rcfr.exploitability(rcfr.TabularPolicy.uniform(kuhn))
    solver = MCCFRSolver(kuhn, scheme, seed=3).run_nodes(1_000_000)
    assert 1_000_000 <= solver.nodes_visited < 1_000_000 + 200
    assert rcfr.exploitability(solver.average_policy()) < min(0.03, uniform / 10)


def test_external_sampling_solves_leduc(leduc):
    """ES on Leduc: below 0.05 after 2e7 histories (about 0.03; ~1.5 s of sampling)."""
    solver = MCCFRSolver(leduc, "es", seed=0).run_nodes(20_000_000)
    assert rcfr.exploitability(solver.average_policy()) < 0.05


def test_regret_matching_plus_option(kuhn):
    solver = MCCFRSolver(kuhn, "es", seed=1, rule="cfr+").run(2000)
    assert solver.estimator_.regrets.min() >= 0.0
    assert rcfr.exploitability(solver.average_policy()) < 0.05


@pytest.mark.parametrize("scheme", SCHEMES)
def test_same_seed_same_bits_other_seed_differs(leduc, scheme):
    a = MCCFRSolver(leduc, scheme, seed=42).run(300)
    b = MCCFRSolver(leduc, scheme, seed=42).run(120).run(180)
    c = MCCFRSolver(leduc, scheme, seed=43).run(300)
    assert np.array_equal(a.average_policy().probs, b.average_policy().probs)
    assert np.array_equal(a.current_policy().probs, b.current_policy().probs)
    assert a.nodes_visited == b.nodes_visited and a.iteration == b.iteration == 300
    assert not np.array_equal(a.average_policy().probs, c.average_policy().probs)


def test_checkpoint_resumes_the_same_random_stream(kuhn, tmp_path):
    whole = MCCFRSolver(kuhn, "as", seed=9, beta=0.0, tau=1.0).run(500)
    first = MCCFRSolver(kuhn, "as", seed=9, beta=0.0, tau=1.0).run(200)
    first.save_checkpoint(tmp_path / "as.npz")
    resumed = MCCFRSolver(kuhn, "as", seed=123, beta=0.0, tau=1.0)
    resumed.load_checkpoint(tmp_path / "as.npz").run(300)
    assert np.array_equal(whole.average_policy().probs, resumed.average_policy().probs)
    assert resumed.nodes_visited == whole.nodes_visited
    with pytest.raises(rcfr.RcfrError, match="tau"):
        MCCFRSolver(kuhn, "as", beta=0.0, tau=2.0).load_checkpoint(tmp_path / "as.npz")
    with pytest.raises(rcfr.RcfrError, match="not es"):
        MCCFRSolver(kuhn, "es").load_checkpoint(tmp_path / "as.npz")


class TableEstimator:
    """A toy regret estimator in plain Python/numpy: the non-fused loop feeds it the sampled
    regret targets; equivalent to the tabular estimator."""

    rule = None

    def initialize(self, tree):
        self.table = np.zeros(tree.num_sequences)
        self.seqs = [tree.player_sequences(p) for p in (0, 1)]

    def update(self, player, inst, iteration):
        seqs = self.seqs[player]
        self.table[seqs] += inst[seqs]

    def predict(self, player):
        return self.table

    def state(self):
        return {"table": self.table}

    def load_state(self, arrays):
        self.table = np.array(arrays["table"], dtype=np.float64)


class _UnfusedTabular(TabularRegrets):
    fused = False


@pytest.mark.parametrize("scheme", SCHEMES)
def test_python_estimator_path_equals_the_fused_kernel(leduc, scheme):
    fused = MCCFRSolver(leduc, scheme, seed=5).run(150)
    python = MCCFRSolver(leduc, scheme, seed=5, estimator=TableEstimator()).run(150)
    assert np.array_equal(fused.average_policy().probs, python.average_policy().probs)
    assert np.array_equal(fused.current_policy().probs, python.current_policy().probs)
    assert fused.nodes_visited == python.nodes_visited
    budget = MCCFRSolver(leduc, scheme, seed=5, estimator=TableEstimator()).run_nodes(5000)
    assert budget.nodes_visited >= 5000


def test_python_path_with_regret_matching_plus_and_linear_averaging(kuhn):
    kw = {"seed": 2, "averaging": "linear"}
    fused = MCCFRSolver(kuhn, "es", rule="cfr+", **kw).run(400)
    python = MCCFRSolver(kuhn, "es", estimator=_UnfusedTabular("cfr+"), **kw).run(400)
    assert np.array_equal(fused.average_policy().probs, python.average_policy().probs)


def _count_histories(state, first_chance_only=False):
    if state.is_terminal():
        return 1
    if state.is_chance_node() and first_chance_only:
        return 1 + _count_histories(state.child(state.chance_outcomes()[0][0]), True)
    actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
               else state.legal_actions())
    return 1 + sum(_count_histories(state.child(a), first_chance_only) for a in actions)


@pytest.mark.parametrize("alternating", [True, False])
def test_full_width_counts_every_history_per_player_pass(kuhn, alternating):
    histories = _count_histories(kuhn.game.new_initial_state())
    assert histories == kuhn.num_nodes == 58
    fused = CFRSolver(kuhn, "cfr", alternating=alternating).run(1)
    assert fused.nodes_visited == 2 * histories
    steps = rcfr.RegretSolver(kuhn, estimator=_UnfusedTabular(), alternating=alternating).run(3)
    assert steps.nodes_visited == 6 * histories
    assert CFRSolver(kuhn).run_nodes(5 * histories).nodes_visited == 6 * histories


def test_chance_sampling_counts_one_deal_per_pass(kuhn):
    """Every Kuhn deal has the same subtree, so a CS pass visits a fixed number of histories:
    both chance nodes on the way down and the whole betting tree below one deal."""
    per_pass = _count_histories(kuhn.game.new_initial_state(), first_chance_only=True)
    solver = MCCFRSolver(kuhn, "cs", seed=0).run(7)
    assert solver.nodes_visited == 14 * per_pass
    visits = visit_counts(kuhn, rcfr.TabularPolicy.uniform(kuhn), 1, "os", samples=50, seed=0)
    assert visits[0] == 50 and visits[kuhn.node_kind == 2].sum() == 100


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"scheme": "xs"}, "unknown sampling scheme"),
        ({"scheme": "os", "epsilon": 0.0}, r"epsilon must be in \(0, 1\]"),
        ({"scheme": "as", "epsilon": 1.5}, r"epsilon must be in \(0, 1\]"),
        ({"scheme": "as", "epsilon": "big"}, "epsilon must be a finite number"),
        ({"scheme": "as", "tau": 0.5}, "tau must be >= 1"),
        ({"scheme": "as", "beta": -1.0}, "beta must be >= 0"),
        ({"scheme": "as", "beta": float("nan")}, "beta must be a finite number"),
        ({"scheme": "es", "link": "poly:1"}, "p > 1"),
        ({"scheme": "es", "alternating": False}, "alternates"),
        ({"scheme": "es", "averaging": "cubic"}, "unknown averaging"),
    ],
)
def test_bad_parameters(kuhn, kwargs, message):
    solver = MCCFRSolver(kuhn, **kwargs)  # configured, not yet validated
    with pytest.raises(rcfr.RcfrError, match=message):
        solver.run(1)


@pytest.mark.parametrize("budget", [0, -5, 1.5, True])
def test_bad_node_budget(kuhn, budget):
    with pytest.raises(rcfr.RcfrError, match="node budget"):
        MCCFRSolver(kuhn).run_nodes(budget)
    with pytest.raises(rcfr.RcfrError, match="node budget"):
        CFRSolver(kuhn).run_nodes(budget)


@pytest.mark.parametrize("game", ["nl_one_card", "liars_dice"])
def test_average_strategy_sampling_beats_chance_and_outcome_sampling(game):
    """Gibson et al. 2012, sec. 5: in games with many actions, at equal nodes visited, AS is
    less exploitable than CS and OS (mean over 5 seeds; ES is reported beside them)."""
    budget = 2_000_000
    tree = rcfr.compile_game(game)
    means = {}
    for scheme in ("cs", "es", "os", "as"):
        finals = [nodes_curve(tree, scheme, [budget], seed=seed)[-1][1] for seed in range(5)]
        means[scheme] = float(np.mean(finals))
    assert means["as"] < means["cs"], means
    assert means["as"] < means["os"], means


def test_external_sampling_with_a_regression_tree():
    """Sampled targets through a regressor (thesis future work): ES with a best-first tree
    that has a leaf per sequence on one-hot features is ES with a table, and a smaller tree
    still learns."""
    from rcfr.solvers.rcfr import make_estimator

    tree = rcfr.compile_game("kuhn")
    table = MCCFRSolver(tree, "es", seed=5).run(3000)
    full = MCCFRSolver(tree, "es", seed=5, estimator=make_estimator(
        tree, "best-first", leaves=tree.num_sequences, features="onehot")).run(3000)
    np.testing.assert_allclose(full.avg_weights_, table.avg_weights_, rtol=1e-9, atol=1e-12)
    small = MCCFRSolver(tree, "es", seed=5, estimator=make_estimator(
        tree, "best-first", leaves=16, features="onehot")).run(3000)
    assert small.complexity <= 16
    assert rcfr.exploitability(tree, small.average_policy()) < 0.1


@pytest.mark.parametrize("scheme", SCHEMES)
def test_each_scheme_drives_leduc_down(leduc, scheme):
    curve = nodes_curve(leduc, scheme, [200_000, 5_000_000], seed=2)
    assert curve[1][1] < curve[0][1] < 2.3736  # below the uniform policy's 2.3736
    assert curve[1][1] < 0.25

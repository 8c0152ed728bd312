"""Threads in the public form's kernels (issue 23): the full-width pass of every update rule,
alternating and simultaneous, and exact evaluation give the same numbers bit for bit on 1, 2
and 3 threads, and equal the one-thread sweep the public form ran before (terminals in their
own order); ``--threads`` and ``solve(threads=)`` set the count."""

from __future__ import annotations

import json

import numba
import numpy as np
import pytest
from conftest import arrays_on_threads

import rcfr
from rcfr.cli import main
from rcfr.core import kernels as K
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate
from rcfr.forms.public.evaluate import evaluate_public
from rcfr.forms.public.tree import compile_public
from rcfr.forms.threads import kernel_threads
from rcfr.policy import TabularPolicy
from rcfr.solvers.loop import CFRSolver
from rcfr.solvers.run import make_solver

GAMES = ["leduc", "liars_dice", "nl_holdem2(buckets=5,ranks=6,stack=6,suits=3)"]
RULES = ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+"]
ITERATIONS = 8


def _runs(threaded: bool) -> dict[str, np.ndarray]:
    """Every rule on every game, both update orders: the solver's tables after a few
    iterations and the exact evaluation of its average strategy (``threaded``: the terminal
    sweeps split into their groups even where the tree is small)."""
    out = {}
    for game in GAMES:
        tree = compile_public(game)
        if threaded:
            tree = tree.with_thread_groups(0, 0)
        for rule in RULES:
            for alternating in (True, False):
                s = make_solver(tree, rule, alternating=alternating).run(ITERATIONS)
                key = f"{game}|{rule}|{alternating}"
                out[f"{key}|strategy"] = s.strategy_
                out[f"{key}|average"] = s.avg_weights_
                out[f"{key}|regrets"] = s.estimator_.regrets
                out[f"{key}|evaluate"] = np.array(tree.evaluate(s.average_policy().probs))
    return out


def test_thread_count_changes_no_number(tmp_path):
    with kernel_threads(1):
        serial = _runs(False)  # the tree's own one-thread sweep
        one = _runs(True)
    with kernel_threads(2) as n:
        two = _runs(True)
    assert n == min(2, numba.config.NUMBA_NUM_THREADS)
    three = arrays_on_threads("test_threads", "_runs", 3, tmp_path, args="True")
    assert len(serial) == len(GAMES) * len(RULES) * 2 * 4
    for key, ref in serial.items():
        for other in (one, two, three):
            assert np.array_equal(other[key], ref), key


def test_evaluation_on_any_thread_count_gives_the_known_value():
    tree = compile_public("liars_dice").with_thread_groups(0)
    assert tree.arrays.term_groups.min() > 1
    for n in (1, 2):
        with kernel_threads(n):
            assert evaluate(TabularPolicy.uniform(tree)).exploitability == pytest.approx(
                0.78074432, abs=1e-8)


def test_groups_cover_each_terminal_once_in_order():
    tree = compile_public("nl_holdem2(buckets=5,ranks=6,stack=6,suits=3)").with_thread_groups(0)
    T = tree.arrays
    Z = T.term_ctx.shape[0]
    for p in (0, 1):
        g = T.term_groups[p]
        order, start = T.term_order[p], T.term_group[p, :g + 1]
        assert sorted(order) == list(range(Z)) and start[0] == 0 and start[-1] == Z
        keys = T.term_seq_base[p]
        for a, b in zip(start[:-1], start[1:], strict=True):
            members = order[a:b]
            assert (np.diff(members) > 0).all() and len(set(keys[members])) == 1
        assert len(set(keys[order[start[:-1]]])) == g  # one group per sequence vector


def test_exact_evaluation_by_levels_in_the_contracts_order():
    """The evaluator of trees too large for the layout: plans and best responses by levels."""
    tree = compile_public(GAMES[2]).with_thread_groups(0, 0)
    probs = make_solver(tree, "dcfr").run(5).average_policy().probs
    S = tree.num_sequences

    def run(threads, levels):
        return evaluate_public(probs, tree._full_arrays, tree.arrays, False, K.padded(S),
                               np.empty(tree.num_infosets_per_player[0]), threads, levels)

    ref = run(1, None)
    assert ref == pytest.approx(tree.evaluate(probs), rel=1e-12)  # (the layout's evaluator)
    with kernel_threads(2) as n:
        assert run(n, tree._levels) == ref
    assert run(3, tree._levels) == ref  # three chunks a level on numba's pool
    L = tree._levels
    assert L.level_lo[-1] == tree.num_infosets and sorted(L.back_order) == list(
        range(tree.num_infosets))


def test_threads_option(capsys):
    tree = compile_public("liars_dice").with_thread_groups(0)
    result = rcfr.solve(tree, "cfr+", 20, threads=1)
    again = rcfr.solve(tree, "cfr+", 20, threads=2)
    assert result.evaluation.exploitability == again.evaluation.exploitability
    with pytest.raises(RcfrError, match="threads"):
        rcfr.solve("leduc", "cfr+", 5, threads=0)
    assert main(["solve", "kuhn", "--form", "public", "-n", "50", "--threads", "2",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["iterations"] == 50
    assert main(["solve", "kuhn", "-n", "5", "--threads", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "--threads" in err


def test_float32_tables_for_the_full_width_solvers(tmp_path):
    """``dtype="float32"`` for cfr ... pdcfr+: single-precision tables, the exploitability of
    double precision at equal iterations (Leduc CFR+, 200 iterations), recorded in checkpoints
    that resume bit for bit and refuse the other dtype (on one thread: the threaded kernels'
    float32 variants would only add compile time)."""
    with kernel_threads(1):
        _float32_tables(tmp_path)


def _float32_tables(tmp_path):
    tree = compile_public("leduc")
    f64 = CFRSolver(tree, "cfr+").run(200)
    f32 = CFRSolver(tree, "cfr+", dtype="float32").run(200)
    assert f32.strategy_.dtype == f32.avg_weights_.dtype == np.float32
    assert f32.estimator_.regrets.dtype == np.float32
    e64 = evaluate(tree, f64.average_policy()).exploitability
    e32 = evaluate(tree, f32.average_policy()).exploitability
    assert e32 == pytest.approx(e64, rel=0.05)
    first = CFRSolver(tree, "dcfr", dtype="float32").run(20)
    first.save_checkpoint(tmp_path / "c.npz")
    whole = CFRSolver(tree, "dcfr", dtype="float32").run(40)
    second = CFRSolver(tree, "dcfr", dtype="float32").load_checkpoint(tmp_path / "c.npz").run(20)
    assert np.array_equal(second.avg_weights_, whole.avg_weights_)
    with pytest.raises(RcfrError, match="dtype"):
        CFRSolver(tree, "dcfr").load_checkpoint(tmp_path / "c.npz")
    with pytest.raises(RcfrError, match="dtype"):
        make_solver(tree, "rcfr", dtype="float32")


def test_thread_count_is_not_part_of_a_runs_identity():
    """A run on any thread count gives the same numbers, so it is the same run: the hash and
    the stored JSON leave the thread count out, and the worker still receives it."""
    from rcfr.experiments.spec import RunSpec

    plain = RunSpec(game="leduc", algorithm="cfr+", iterations=10)
    threaded = RunSpec(game="leduc", algorithm="cfr+", iterations=10, threads=2)
    assert threaded.hash == plain.hash
    assert threaded.canonical_json() == plain.canonical_json()
    assert '"threads":2' in threaded.to_json()
    assert RunSpec.from_dict(json.loads(threaded.to_json())).threads == 2
    assert RunSpec(game="leduc", algorithm="cfr+", iterations=11).hash != plain.hash


# -- parallel Monte Carlo CFR (the public form's sampled passes) ---------------------------
def _mccfr(scheme, threads, iterations, **options):
    from rcfr.solvers.mccfr import MCCFRSolver

    return MCCFRSolver(compile_public("leduc"), scheme, seed=5, threads=threads,
                       **options).run(iterations)


def test_parallel_mccfr_is_repeatable_and_one_thread_is_the_serial_pass():
    """A seed and a thread count give the same run bit for bit; ``threads=1`` is the serial
    kernel (the nodes of main's runs: Leduc, seed 5, 300 iterations)."""
    from rcfr.solvers.mccfr import MCCFRSolver

    for scheme, options in (("es", {}), ("as", {}), ("os", {}), ("cs", {}),
                            ("es", {"rule": "dcfr"}), ("es", {"rule": "cfr+"})):
        a, b = _mccfr(scheme, 2, 100, batch=3, **options), _mccfr(scheme, 2, 100, batch=3,
                                                                **options)
        for x, y in ((a.avg_weights_, b.avg_weights_), (a.strategy_, b.strategy_),
                     (a.estimator_.regrets, b.estimator_.regrets), (a.pass_.rng, b.pass_.rng)):
            assert np.array_equal(x, y), (scheme, options)
        assert a.nodes_visited == b.nodes_visited and a.iteration == 100
        assert a._info()["threads"] == 2 and a._info()["batch"] == 3
        one = _mccfr(scheme, 1, 100, **options)
        assert not np.array_equal(one.avg_weights_, a.avg_weights_)  # another sample path
    for scheme, nodes in (("es", 13326), ("as", 13183), ("os", 4992), ("cs", 55200)):
        one = _mccfr(scheme, 1, 300)
        plain = MCCFRSolver(compile_public("leduc"), scheme, seed=5).run(300)
        assert one.nodes_visited == plain.nodes_visited == nodes
        assert np.array_equal(one.avg_weights_, plain.avg_weights_)
        assert "threads" not in one._info()


def test_parallel_batch_sums_its_threads_passes_in_order():
    """A batch's regrets and average-strategy increments are the serial passes' from the
    threads' streams: each thread's passes summed in pass order from 0, then the threads'
    sums in thread order (the regrets from 0, the averages onto the table); its nodes are
    theirs."""
    from rcfr.forms.public.sampled import _NO_RULE, sample_batch
    from rcfr.forms.sampling import NO_LAZY, thread_states
    from rcfr.solvers.mccfr import MCCFRSolver

    tree = compile_public("leduc")
    S0 = tree.num_sequences_per_player[0]
    rng = np.random.default_rng(2)
    for scheme in ("es", "as", "cs"):
        s = MCCFRSolver(tree, scheme, seed=9, threads=3, batch=2)
        s.setup()
        p = s.pass_
        strategy = TabularPolicy.from_weights(tree, rng.random(tree.num_sequences) + .1).probs
        avg0 = rng.random(tree.num_sequences) * 10
        start = p.rng.copy()
        inst, avg = np.zeros(tree.num_sequences), avg0.copy()
        with kernel_threads(3):
            nodes = sample_batch(p.scheme, 1, p.epsilon, p.beta, p.tau, p.arrays, p.bounds,
                                 strategy, avg, p.rng, _NO_RULE, NO_LAZY, 2, p.buffers(), inst)
        states = np.zeros((3, 1), dtype=np.uint64)
        thread_states(start, states)
        assert np.array_equal(start, p.rng)
        # the passes add to player 0's average (ES, AS) or player 1's (CS), which no pass of
        # player 1 reads: each thread's increments start from 0 there
        part = slice(S0, None) if scheme == "cs" else slice(0, S0)
        want, want_avg, want_nodes = np.zeros_like(inst), avg0.copy(), 0
        serial = MCCFRSolver(tree, scheme, seed=9)
        serial.setup()
        for j in range(3):
            serial.pass_.rng = states[j].copy()
            acc, davg = np.zeros_like(inst), avg0.copy()
            davg[part] = 0.0
            for _ in range(2):
                row = np.zeros_like(inst)
                want_nodes += serial.pass_.run((1,), strategy, 1.0, davg, row) - p.deal_depth
                acc += row
            want += acc
            want_avg[part] += davg[part]
        assert np.array_equal(inst, want) and np.abs(want).max() > 0
        assert np.array_equal(avg, want_avg) and nodes == want_nodes
        assert not p.buffers().slot.any() and not p.buffers().mark.any()  # all freed


def _merge_ranges(ranges: int) -> dict[str, np.ndarray]:
    """A 3-thread run's tables with ``ranges`` merge ranges per thread (every rule's path)."""
    from rcfr.forms.public import sampled
    from rcfr.solvers.mccfr import MCCFRSolver

    before, sampled.RANGES = sampled.RANGES, ranges
    out = {}
    try:
        tree = compile_public("nl_holdem2(buckets=5,ranks=6,stack=6,suits=3)")
        for scheme, rule in (("es", "cfr+"), ("es", "dcfr"), ("cs", "cfr"), ("as", "cfr")):
            s = MCCFRSolver(tree, scheme, seed=2, threads=3, batch=4, rule=rule).run(6)
            for name, x in (("avg", s.avg_weights_), ("regrets", s.estimator_.regrets),
                            ("strategy", s.strategy_)):
                out[f"{scheme}|{rule}|{name}"] = x
    finally:
        sampled.RANGES = before
    return out


def test_parallel_merge_is_the_same_on_any_ranges_and_cores(tmp_path):
    """The merge's ranges and the cores that run them change no number: 1, 2 or 5 ranges a
    thread, and one core against this machine's."""
    one = _merge_ranges(1)
    assert len(one) == 12
    for other in (_merge_ranges(2), _merge_ranges(5),
                  arrays_on_threads("test_threads", "_merge_ranges", 1, tmp_path, args="4")):
        for key, ref in one.items():
            assert np.array_equal(other[key], ref), key


@pytest.mark.parametrize(("scheme", "samples"), [("es", 3000), ("as", 3000)])
def test_parallel_sampled_regrets_are_unbiased(scheme, samples):
    """With 2 threads of 2 passes each row is a batch's mean regret; at a fixed mixed profile
    their mean matches the exact counterfactual regret within 5 standard errors (Kuhn)."""
    from rcfr.forms.convert import sequence_map
    from rcfr.policy import convert_policy
    from rcfr.solvers.mccfr import MCCFRSolver, exact_regrets

    h = rcfr.compile_game("kuhn")
    t = compile_public("kuhn")
    rng = np.random.default_rng(11)
    policy = TabularPolicy.from_weights(h, rng.random(h.num_sequences) + 0.25)
    solver = MCCFRSolver(t, scheme, seed=3, threads=2, batch=2)
    solver.setup()
    solver.strategy_[:] = convert_policy(policy, t).probs
    solver.avg_weights_[:] = rng.random(t.num_sequences) * 10
    back = sequence_map(t, h)
    for player in (0, 1):
        rows = solver.sample_regrets(player, samples)[:, back]
        exact = exact_regrets(h, policy, player)
        se = rows.std(axis=0, ddof=1) / np.sqrt(samples)
        assert np.all(np.abs(rows.mean(axis=0) - exact) <= 5 * se + 1e-9)
        assert np.abs(exact).max() > 0.01


def test_parallel_mccfr_counts_every_pass_and_converges():
    """Chance sampling visits 2 dealing nodes and 9 betting histories of Kuhn per pass: 5
    iterations of 2 players times 3 threads' 4 passes are 1320 histories.  ES on 2 threads goes
    on converging (Leduc, 2000 iterations)."""
    from rcfr.solvers.mccfr import MCCFRSolver

    assert MCCFRSolver(compile_public("kuhn"), "cs", seed=1, threads=3, batch=4).run(
        5).nodes_visited == 5 * 2 * 3 * 4 * 11
    es = _mccfr("es", 2, 100)  # (the default batch: 64 passes per thread)
    assert es._info()["batch"] == 64
    assert evaluate(compile_public("leduc"), es.average_policy()).exploitability < 0.8
    with pytest.raises(RcfrError, match="public form"):
        MCCFRSolver("kuhn", "es", threads=2).run(1)
    with pytest.raises(RcfrError, match="threads"):
        MCCFRSolver(compile_public("kuhn"), "es", threads=0).run(1)


def test_parallel_mccfr_resumes_bit_for_bit(tmp_path):
    """A checkpoint of a 2-thread run (its random state; DCFR's lazy discounts) resumes into
    the uninterrupted run, bit for bit, with the same threads and batch."""
    from rcfr.solvers.mccfr import MCCFRSolver

    tree = compile_public("leduc")
    for rule in ("cfr+", "dcfr"):
        whole = MCCFRSolver(tree, "es", seed=4, threads=2, batch=3, rule=rule).run(20)
        whole.save_checkpoint(tmp_path / "c.npz")
        whole.run(20)
        again = MCCFRSolver(tree, "es", seed=4, threads=2, batch=3, rule=rule)
        again.load_checkpoint(tmp_path / "c.npz").run(20)
        assert np.array_equal(again.avg_weights_, whole.avg_weights_)
        assert np.array_equal(again.estimator_.regrets, whole.estimator_.regrets)
        assert again.nodes_visited == whole.nodes_visited

"""Pruning in the full-width passes.  Partial pruning (``prune="partial"``, the public form's
default): the terminal sweeps skip the terminals where the opponent's reach is exactly zero.
A skipped term is an exact zero, so the pruned run is the unpruned one bit for bit (regrets,
predictions, current and average strategies, counters) on every form, rule, update order,
table storage and thread count; the counters say how much was skipped; checkpoints resume bit
for bit; bad input is one line.  Regret-based pruning (Brown & Sandholm 2015; CFR on the
history form): it skips what its bound allows, converges as CFR does, catches up the skipped
iterations and resumes bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import one_line_error, run_cli
from test_random_games import SPECS

from rcfr.core.errors import RcfrError
from rcfr.forms.compile import compile_game
from rcfr.solvers.loop import CFRSolver


def _tables(s: CFRSolver) -> dict[str, np.ndarray]:
    est = s.estimator_
    compact = getattr(est, "compact", None)
    out = {"strategy": s.strategy_, "avg": s.avg_weights_}
    if compact is not None:
        out.update({f"compact{i}": a for i, a in enumerate(compact)})
    else:
        out.update({"regrets": est.regrets, "prediction": est.prediction})
    return out


def _same(a: CFRSolver, b: CFRSolver) -> None:
    assert (a.iteration, a.nodes_visited) == (b.iteration, b.nodes_visited)
    ta, tb = _tables(a), _tables(b)
    for k in ta:  # bit for bit: equal bytes, not only equal values (+0 against -0)
        assert ta[k].tobytes() == tb[k].tobytes(), k


def _pair(tree, rule, n, **kw) -> tuple[CFRSolver, CFRSolver]:
    none = CFRSolver(tree, rule, prune="none", **kw).run(n)
    partial = CFRSolver(tree, rule, prune="partial", **kw).run(n)
    return none, partial


CASES = [("kuhn", "history"), ("kuhn", "public"), ("leduc", "history"), ("leduc", "public"),
         ("liars_dice(faces=3)", "history"), ("liars_dice(faces=3)", "public")]


@pytest.mark.parametrize(("game", "form"), CASES)
@pytest.mark.parametrize("rule", ["cfr", "cfr+", "dcfr", "pcfr+", "dcfr+"])
def test_partial_pruning_is_the_unpruned_run_bit_for_bit(game, form, rule):
    """Both forms' fused passes (the public form's actions-major layout for cfr and cfr+, its
    general loop for dcfr and pcfr+), 25 iterations; pruning skipped something."""
    tree = compile_game(game, form=form)
    none, partial = _pair(tree, rule, 25)
    _same(none, partial)
    assert none.pruned_fraction() == 0.0
    assert 0.0 < partial.pruned_fraction() < 1.0


@pytest.mark.parametrize("form", ["history", "public"])
def test_simultaneous_updates_and_int16_tables_prune_exactly(form):
    tree = compile_game("leduc", form=form)
    _same(*_pair(tree, "dcfr", 20, alternating=False))
    _same(*_pair(tree, "cfr+", 20, alternating=False))
    _same(*_pair(tree, "cfr+", 20, storage="int16", seed=2))
    _same(*_pair(tree, "dcfr", 20, storage="int16", seed=2, alternating=False))


@pytest.mark.parametrize("spec", SPECS[:3])
def test_random_games_prune_exactly(spec):
    tree = compile_game(spec)
    for rule in ("cfr", "pdcfr+"):
        _same(*_pair(tree, rule, 15))


def test_counters_count_every_terminal_of_every_sweep():
    """The history form sweeps each of Kuhn's 30 terminals once per player and iteration, the
    public form each public terminal.  Player 0's first sweep meets player 1's uniform
    strategy: nothing skipped; player 1's meets player 0's first regret-matching+ strategy,
    which bets first with every card (against a uniform opponent betting is better), so the
    18 terminals after a first pass (pass-pass, pass-bet-pass, pass-bet-bet; 6 deals each)
    are unreachable."""
    tree = compile_game("kuhn", form="history")
    s = CFRSolver(tree, "cfr+", prune="partial").run(1)
    assert s.pass_.stats.tolist() == [[0, 0, 30], [18, 0, 30]]
    s.run(9)
    assert s.pass_.stats[:, 2].tolist() == [300, 300]
    assert s.pass_.stats[:, 0].min() > 0
    # the history form's default: no pruning (skipping costs there what it saves)
    assert CFRSolver(tree, "cfr+").run(3).pass_.stats.tolist() == [[0, 0, 0], [0, 0, 0]]
    pub = compile_game("kuhn", form="public")
    s = CFRSolver(pub, "cfr+").run(10)  # (the public form's default: partial pruning)
    z = pub.arrays.term_ctx.shape[0]
    assert s.pass_.stats[:, 2].tolist() == [10 * z, 10 * z]
    assert s.pass_.stats[:, 0].sum() > 0
    assert CFRSolver(pub, "cfr+", prune="none").run(10).pass_.stats.sum() == 0


@pytest.mark.parametrize("form", ["history", "public"])
def test_checkpoints_resume_bit_for_bit_with_pruning(tmp_path, form):
    tree = compile_game("leduc", form=form)
    straight = CFRSolver(tree, "dcfr", prune="partial").run(16)
    half = CFRSolver(tree, "dcfr", prune="partial").run(8)
    path = tmp_path / "half.npz"
    half.save_checkpoint(path)
    resumed = CFRSolver(tree, "dcfr", prune="partial").load_checkpoint(path).run(8)
    _same(straight, resumed)
    # pruning is no part of a run's identity: an unpruned run resumes it, to the same bits
    _same(straight, CFRSolver(tree, "dcfr", prune="none").load_checkpoint(path).run(8))


def test_command_line(capsys, tmp_path):
    for prune in ("none", "partial"):
        code, out, err = run_cli(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "20", "--form",
                                 "public", "--prune", prune, "-o", tmp_path / f"{prune}.npz")
        assert code == 0, err
    none, partial = (np.load(tmp_path / f"{p}.npz") for p in ("none", "partial"))
    assert none["probs"].tobytes() == partial["probs"].tobytes()
    assert '"prune": "partial"' in str(partial["meta"])  # (the file says how it was run)
    line = one_line_error(*run_cli(capsys, "solve", "kuhn", "--prune", "sideways")[::2])
    assert "partial" in line
    line = one_line_error(*run_cli(capsys, "solve", "kuhn", "-a", "os", "--prune",
                                   "partial")[::2])
    assert "--prune" in line


# -- regret-based pruning (Brown & Sandholm 2015): CFR on the history form ----------------------
def _inside_windows(tree, solver) -> np.ndarray:
    """Which sequences lie in an open window (its action or below it)."""
    from rcfr.forms.history.full_width import full_tree
    from rcfr.forms.history.regret_pruning import window_marks

    arrays = full_tree(tree)
    mark = np.zeros(tree.num_sequences + 2, dtype=np.int8)
    inside = np.zeros(tree.num_sequences, dtype=bool)
    for p in range(2):
        window_marks(p, arrays, solver.regret_pruning_.until, mark)
        lo, hi = arrays.seq_bounds[p], arrays.seq_bounds[p + 1]
        inside[lo:hi] = mark[lo:hi] == 1
    return inside


def test_regret_pruning_converges_as_cfr_on_leduc():
    """800 iterations of CFR on Leduc: regret-based pruning skips a fifth of the terminals
    (measured 20.3%; partial pruning skips more of the rest), its exploitability is the
    unpruned run's within 1% (measured: equal to 10 digits), the regrets outside the open
    windows are the unpruned run's within 1e-6 (measured 1.5e-9: the catch-up adds what the
    skipped iterations would have), and where a window is open the unpruned run's regret of
    its action is negative, as the window's bound says it must be."""
    from rcfr.evaluate import exploitability

    tree = compile_game("leduc", form="history")
    ref = CFRSolver(tree, "cfr", prune="partial").run(800)
    rbp = CFRSolver(tree, "cfr", prune="regret").run(800)
    assert rbp.pruned_fraction("regret") > 0.15
    assert ref.pruned_fraction("regret") == 0.0
    e_ref, e_rbp = exploitability(ref.average_policy()), exploitability(rbp.average_policy())
    assert e_ref == pytest.approx(0.014361406, rel=1e-6)
    assert e_rbp <= 1.01 * e_ref
    inside = _inside_windows(tree, rbp)
    assert 0 < inside.sum() < tree.num_sequences
    gap = np.abs(ref.estimator_.regrets - rbp.estimator_.regrets)
    assert gap[~inside].max() < 1e-6
    roots = rbp.regret_pruning_.until > 0
    assert roots.any() and (ref.estimator_.regrets[roots] < 0).all()
    assert (ref.strategy_[roots] == 0).all()


def test_regret_pruning_resumes_bit_for_bit_with_windows_open(tmp_path):
    tree = compile_game("leduc", form="history")
    straight = CFRSolver(tree, "cfr", prune="regret").run(203)
    half = CFRSolver(tree, "cfr", prune="regret").run(101)
    assert (half.regret_pruning_.until > 0).any()  # (101 is off the grid: windows open)
    path = tmp_path / "half.npz"
    half.save_checkpoint(path)
    resumed = CFRSolver(tree, "cfr", prune="regret").load_checkpoint(path).run(102)
    _same(straight, resumed)
    for k in ("until", "pend", "cum", "snap"):
        assert np.array_equal(getattr(straight.regret_pruning_, k),
                              getattr(resumed.regret_pruning_, k)), k
    # its open windows would lose their catch-up in a run without regret-based pruning
    with pytest.raises(RcfrError, match="resume it with prune regret"):
        CFRSolver(tree, "cfr", prune="partial").load_checkpoint(path)
    # a run without it resumes with regret-based pruning, no window open
    CFRSolver(tree, "cfr").run(10).save_checkpoint(tmp_path / "plain.npz")
    s = CFRSolver(tree, "cfr", prune="regret").load_checkpoint(tmp_path / "plain.npz")
    assert s.iteration == 10 and not (s.regret_pruning_.until > 0).any()


def test_regret_pruning_refuses_what_it_cannot_run(capsys):
    line = one_line_error(*run_cli(capsys, "solve", "kuhn", "-a", "cfr+", "--prune",
                                   "regret")[::2])
    assert "cfr" in line and "cfr+" in line
    line = one_line_error(*run_cli(capsys, "solve", "kuhn", "-a", "cfr", "--form", "public",
                                   "--prune", "regret", "-n", "2")[::2])
    assert "history form" in line
    line = one_line_error(*run_cli(capsys, "solve", "kuhn", "-a", "cfr", "--storage", "int16",
                                   "--prune", "regret")[::2])
    assert "int16" in line


def test_threaded_sweeps_prune_exactly():
    """The public form's terminal sweeps on two threads (every sweep split into its groups,
    the card-removal sweeps of a small hold'em and liar's dice's count sweeps) prune to the
    one-thread unpruned numbers, and count the same terminals as one thread."""
    from rcfr.forms.public.tree import compile_public
    from rcfr.forms.threads import kernel_threads

    for game in ("liars_dice", "nl_holdem2(buckets=5,ranks=6,stack=6,suits=3)"):
        tree = compile_public(game)
        with kernel_threads(1):
            ref = {r: CFRSolver(tree, r, prune="none").run(6) for r in ("cfr+", "dcfr")}
            one = {r: CFRSolver(tree, r).run(6) for r in ("cfr+", "dcfr")}
        split = tree.with_thread_groups(0, 0)
        with kernel_threads(2):
            for rule in ("cfr+", "dcfr"):
                two = CFRSolver(split, rule).run(6)
                _same(ref[rule], two)
                assert two.pass_.stats.tolist() == one[rule].pass_.stats.tolist()
                assert two.pruned_fraction() > 0

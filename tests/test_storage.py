"""Compressed tables (issue 23, ``storage="int16"``): int16 regrets and uint16 average sums with
a scale per information set and unbiased stochastic rounding (rcfr.core.compact).  They stay
close to float64 on Leduc and random games, round without bias (round-to-nearest fails the same
test), give the same numbers on 1, 2 and 3 threads, resume bit for bit, and bad input is one
line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import arrays_on_threads, one_line_error, run_cli
from test_random_games import SPECS

import rcfr
from rcfr.core.compact import AVERAGE_TOP, REGRET_TOP, round_set, stream_word
from rcfr.core.errors import RcfrError
from rcfr.evaluate import exploitability
from rcfr.forms.compile import compile_game
from rcfr.forms.public.tree import compile_public
from rcfr.forms.threads import kernel_threads
from rcfr.solvers.loop import CFRSolver


def _pair(tree, rule, n, **kw):
    """Exploitability of float64 and int16 tables after ``n`` iterations of ``rule``."""
    ref = CFRSolver(tree, rule, **kw).run(n)
    small = CFRSolver(tree, rule, storage="int16", seed=3, **kw).run(n)
    return exploitability(ref.average_policy()), exploitability(small.average_policy()), small


# Leduc (public form) after 400 iterations: float64's exploitability and how much worse int16
# may be (int16 with seeds 3, 4, 5 gave 1.18e-3 to 1.25e-3 for CFR+, 5.9e-4 to 6.9e-4 for DCFR
# and 2.50e-2 to 2.74e-2 for CFR)
LEDUC = {"cfr+": (0.0012718322295102447, 3e-4), "dcfr": (0.0008936100213527559, 3e-4),
         "cfr": (0.026435794779875926, 3e-3)}


@pytest.mark.parametrize("rule", list(LEDUC))
def test_leduc_stays_close_to_float64(rule):
    tree = compile_public("leduc")
    ref, small, solver = _pair(tree, rule, 400)
    known, slack = LEDUC[rule]
    assert ref == pytest.approx(known, rel=1e-9)
    assert small <= ref + slack, (ref, small)
    assert solver.estimator_.compact.regrets.dtype == np.int16
    assert solver.estimator_.compact.average.dtype == np.uint16
    S, info = tree.num_sequences, tree.num_infosets
    assert solver.estimator_.table_bytes == 4 * S + 8 * info  # 2 + 2 bytes a sequence


def test_history_form_and_random_games_stay_close_to_float64():
    """The history form's compact pass on Leduc, and 8 random games (test_random_games) in
    both update orders, stay within 1e-3 of float64 after 300-400 iterations (the largest
    gap measured: 2.4e-4)."""
    ref, small, _ = _pair(compile_game("leduc", form="history"), "cfr+", 400)
    assert ref == pytest.approx(0.0012426767121676563, rel=1e-9)
    assert small <= ref + 3e-4, (ref, small)
    for spec in SPECS[:8]:
        tree = compile_game(rcfr.load_game(spec), form="history")
        for alternating in (True, False):
            ref, small, _ = _pair(tree, "cfr+", 300, alternating=alternating)
            assert small <= ref + 1e-3, (spec, ref, small)


def _rounded_means(values, top, bottom, draws, nearest):
    """The mean over ``draws`` rounding streams of ``values`` stored by :func:`round_set`, and
    its standard error (``nearest``: rounded to the nearest integer instead, the biased
    rule)."""
    n = values.shape[0]
    q = np.zeros(n, np.int64)
    scales = np.zeros(1, np.float32)
    out = np.empty((draws, n))
    for d in range(draws):
        buf = values.copy()
        if nearest:
            c = float(np.float32(np.abs(values).max() / top))
            buf = np.round(values / c) * c
        else:
            word = np.uint64(stream_word(np.uint64(7), d, 0))
            round_set(buf, 0, n, q, scales, 0, top, bottom, word)
        out[d] = buf
    return out.mean(axis=0), out.std(axis=0) / np.sqrt(draws)


def _unbiased(values, top, bottom, nearest):
    """Whether every rounded value's mean is within 5 standard errors (plus float rounding)
    of the true value."""
    mean, se = _rounded_means(values, top, bottom, 20000, nearest)
    return bool(np.all(np.abs(mean - values) <= 5 * se + 1e-12 * np.abs(values).max()))


def test_stochastic_rounding_is_unbiased_and_nearest_is_not():
    rng = np.random.default_rng(1)
    # one large value sets the scale; the others sit between integer steps
    values = np.concatenate([[1000.0], rng.uniform(-0.4, 0.4, 12) / REGRET_TOP * 1000.0])
    assert _unbiased(values, REGRET_TOP, -REGRET_TOP, False)
    assert not _unbiased(values, REGRET_TOP, -REGRET_TOP, True)  # non-vacuous
    sums = np.concatenate([[5.0], rng.uniform(0.0, 3.0, 12) / AVERAGE_TOP * 5.0])
    assert _unbiased(sums, AVERAGE_TOP, 0, False)
    assert not _unbiased(sums, AVERAGE_TOP, 0, True)


def _thread_runs() -> dict[str, np.ndarray]:
    out = {}
    for game in ("leduc", "liars_dice"):
        tree = compile_public(game).with_thread_groups(0, 0)
        for rule in ("cfr+", "dcfr"):
            for alternating in (True, False):
                s = CFRSolver(tree, rule, storage="int16", seed=11,
                              alternating=alternating).run(6)
                key = f"{game}|{rule}|{alternating}"
                out[f"{key}|strategy"] = s.strategy_
                for k, v in s.estimator_.compact._asdict().items():
                    out[f"{key}|{k}"] = v
    return out


def test_thread_count_changes_no_number(tmp_path):
    with kernel_threads(1):
        one = _thread_runs()
    with kernel_threads(2):
        two = _thread_runs()
    three = arrays_on_threads("test_storage", "_thread_runs", 3, tmp_path)
    assert len(one) == 2 * 2 * 2 * 5
    for key, ref in one.items():
        assert np.array_equal(two[key], ref), key
        assert np.array_equal(three[key], ref), key


@pytest.mark.parametrize("form", ["public", "history"])
def test_checkpoint_round_trip_and_bit_identical_resume(tmp_path, form):
    tree = compile_game("leduc", form=form)
    straight = CFRSolver(tree, "dcfr", storage="int16", seed=5).run(30)
    chunked = CFRSolver(tree, "dcfr", storage="int16", seed=5).run(7).run(23)
    half = CFRSolver(tree, "dcfr", storage="int16", seed=5).run(12)
    path = tmp_path / "c.npz"
    half.save_checkpoint(path)
    resumed = CFRSolver(tree, "dcfr", storage="int16", seed=5).load_checkpoint(path).run(18)
    for other in (chunked, resumed):
        assert np.array_equal(other.strategy_, straight.strategy_)
        for a, b in zip(other.estimator_.compact, straight.estimator_.compact, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)
    assert np.array_equal(resumed.average_weights(), straight.average_weights())
    other_seed = CFRSolver(tree, "dcfr", storage="int16", seed=6).run(30)
    assert not np.array_equal(other_seed.strategy_, straight.strategy_)
    # the storage type is part of the checkpoint: a float run refuses it, and vice versa
    with pytest.raises(RcfrError, match="storage 'int16', not 'float'"):
        CFRSolver(tree, "dcfr").load_checkpoint(path)
    CFRSolver(tree, "dcfr").run(3).save_checkpoint(tmp_path / "f.npz")
    with pytest.raises(RcfrError, match="storage 'float', not 'int16'"):
        CFRSolver(tree, "dcfr", storage="int16").load_checkpoint(tmp_path / "f.npz")
    # a corrupted table (a float array in place of the int16 regrets) is refused
    with np.load(path, allow_pickle=False) as data:
        arrays = dict(data)
    arrays["estimator_c_regrets"] = arrays["estimator_c_regrets"].astype(np.float64)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(RcfrError, match="corrupted"):
        CFRSolver(tree, "dcfr", storage="int16").load_checkpoint(bad)


def test_predictive_rules_are_refused():
    with pytest.raises(RcfrError, match="prediction"):
        CFRSolver("kuhn", "pcfr+", storage="int16")
    with pytest.raises(RcfrError, match="storage"):
        CFRSolver("kuhn", "cfr+", storage="int8")


def test_cli(capsys, tmp_path):
    code, out, err = run_cli(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "200",
                             "--storage", "int16", "--form", "public", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["exploitability"] < 5e-3
    assert "must be one of" in one_line_error(*run_cli(capsys, "solve", "kuhn", "--storage",
                                                       "int8")[::2])
    assert "pcfr+" in one_line_error(*run_cli(capsys, "solve", "kuhn", "-a", "pcfr+",
                                              "--storage", "int16")[::2])
    assert "--storage" in one_line_error(*run_cli(capsys, "solve", "kuhn", "-a", "es",
                                                  "--storage", "int16")[::2])
    ck = tmp_path / "k.npz"
    code, _, err = run_cli(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "20", "--storage",
                           "int16", "--checkpoint", ck)
    assert code == 0, err
    line = one_line_error(*run_cli(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "40",
                                   "--resume", ck)[::2])
    assert "storage 'int16', not 'float'" in line

"""Warm starts (Brown & Sandholm 2016): the substitute regrets and average, the substitute
iteration count, the mapping from another game, checkpoints, and what a warm start saves."""

import math

import numpy as np
import pytest
from conftest import one_line_error, run_cli

import rcfr
from rcfr.core.rules import parse_rule, rule_update
from rcfr.evaluate import exploitability
from rcfr.policy import TabularPolicy
from rcfr.solvers.loop import CFRSolver
from rcfr.solvers.warm import (
    MAX_SUBSTITUTE,
    _substitute_factors,
    map_strategy,
    substitute_iterations,
    warm_start,
)


@pytest.fixture(scope="module")
def leduc_dcfr(leduc):
    """Leduc's DCFR average after 500 iterations (exploitability 5.19e-4)."""
    return CFRSolver(leduc, "dcfr").run(500).average_policy()


@pytest.mark.parametrize("rule", ["cfr", "cfr+", "dcfr", "lcfr", "pcfr+", "pdcfr+", "dcfr+",
                                  "dcfr:2,-1,3"])
def test_the_substitute_regrets_are_the_rules_own_recursion(rule):
    """T' iterations that each bring the same regrets r, absorbed one by one by the rule,
    leave r times the factor of its sign: what the warm start writes."""
    params = parse_rule(rule).params
    r = np.array([0.7, -0.3, 0.0, 2.5, -1e-3])
    regrets, pred = np.zeros(5), np.zeros(5)
    for t in range(1, 51):
        rule_update(params, t, r, 0, 5, regrets, pred)
    up, down, weight = _substitute_factors(params, 50, 2.0)
    np.testing.assert_allclose(np.where(r >= 0, r * up, r * down), regrets, rtol=1e-13,
                               atol=1e-300)
    assert weight == sum(t * t for t in range(1, 51))


def test_a_warm_start_from_a_converged_strategy_starts_there(leduc, leduc_dcfr):
    """Leduc warm-started from its own DCFR average: the average is that strategy (same
    exploitability), T' is (uniform's / its exploitability)^2, the regrets are the rule's
    substitute regrets of its counterfactual regrets; the run goes on from there (measured:
    CFR stays within 2.1% of it for 1,000 iterations, CFR+ and DCFR end 6% and 9% below)."""
    mine = exploitability(leduc, leduc_dcfr)
    uniform = exploitability(leduc, TabularPolicy.uniform(leduc))
    solver = CFRSolver(leduc, "cfr")
    info = warm_start(solver, leduc_dcfr)
    assert info.iterations == min(MAX_SUBSTITUTE, math.ceil((uniform / mine) ** 2))
    assert info.matched == 1.0 and info.exploitability == pytest.approx(mine, rel=1e-12)
    assert solver.iteration == info.iterations
    assert exploitability(leduc, solver.average_policy()) == pytest.approx(mine, rel=1e-12)
    # CFR's substitute regrets: T' times the counterfactual regrets of the strategy
    inst, avg = np.zeros(leduc.num_sequences), np.zeros(leduc.num_sequences)
    leduc.full_width_pass().run((0, 1), leduc_dcfr.probs, 1.0, avg, inst)
    np.testing.assert_array_equal(solver.estimator_.regrets, inst * float(info.iterations))
    np.testing.assert_array_equal(solver.avg_weights_, avg * float(info.iterations))
    assert info.iterations == 20_876_696
    solver.run(1000)
    assert exploitability(leduc, solver.average_policy()) == pytest.approx(mine * 1.0206,
                                                                          rel=1e-3)
    for rule, ratio in (("cfr+", 0.9392), ("dcfr", 0.9145)):
        solver = CFRSolver(leduc, rule)
        warm_start(solver, leduc_dcfr)
        solver.run(1000)
        assert exploitability(leduc, solver.average_policy()) == pytest.approx(mine * ratio,
                                                                              rel=1e-3)


def test_the_substitute_count_follows_the_bound():
    assert substitute_iterations(2.0, 0.5) == 16
    assert substitute_iterations(2.0, 3.0) == 1  # worse than uniform: one iteration's worth
    assert substitute_iterations(2.0, 0.0) == MAX_SUBSTITUTE
    assert substitute_iterations(2.0, 1e-9) == MAX_SUBSTITUTE


def test_a_smaller_stack_is_read_with_its_raises_scaled():
    """2-NL Hold'em(12) read in 2-NL Hold'em(8): raises scaled by 8/12 to the nearest legal
    raise (an all-in to the all-in), each action read the same way."""
    big, small = rcfr.load_game("nl_holdem2(stack=12,buckets=3)"), rcfr.load_game(
        "nl_holdem2(stack=8,buckets=3)")
    key, actions = big.translate_infoset("1:2|r12", [0, 1], small)
    assert (key, actions) == ("1:2|r8", [0, 1])
    key, actions = big.translate_infoset("0:1|r6c/", [1, 4, 8, 10, 12], small)
    assert key == "0:1|r4c/" and actions == [1, 6, 6, 7, 8]
    assert big.translate_infoset("0:1|", [1], rcfr.load_game("leduc")) is None
    assert big.translate_infoset("0:1|", [1], rcfr.load_game("nl_holdem2(stack=8)")) is None


def test_a_smaller_stacks_strategy_maps_onto_the_larger_game():
    """Every information set of 2-NL Hold'em(12) with 3 buckets is read in the stack-8 game's
    DCFR strategy, whose mapped exploitability is pinned (measured: 0.329, against the
    uniform strategy's 3.73)."""
    src = rcfr.compile_game("nl_holdem2(stack=8,buckets=3)")
    dst = rcfr.compile_game("nl_holdem2(stack=12,buckets=3)")
    policy = CFRSolver(src, "dcfr").run(1000).average_policy()
    probs, same, other = map_strategy(policy, dst)
    assert same == 0.0 and 0.5 < other <= 1.0
    assert exploitability(dst, probs) == pytest.approx(0.3290, abs=5e-4)


def test_a_coarse_abstraction_saves_cfr_iterations_at_first(leduc):
    """CFR on Leduc warm-started from the JQ.K card abstraction's lifted strategy (1,000
    iterations there) reaches exploitability 0.3 in 12 iterations, where a cold start takes
    31; further down the cold run catches up (0.1: 129 against 95; measured)."""
    lifted = rcfr.solve("leduc", "cfr", 1000, abstraction="JQ.K").policy

    def first_below(solver, target, offset):
        while exploitability(leduc, solver.average_policy()) > target:
            solver.run(1)
        return solver.iteration - offset

    warm = CFRSolver(leduc, "cfr")
    info = warm_start(warm, lifted)
    assert info.iterations == 26
    assert first_below(warm, 0.3, info.iterations) == 12
    assert first_below(CFRSolver(leduc, "cfr"), 0.3, 0) == 31


@pytest.mark.parametrize("form,rule", [("history", "dcfr"), ("public", "pdcfr+"),
                                       ("public", "cfr+")])
def test_a_warm_started_run_resumes_bit_for_bit(tmp_path, capsys, leduc_dcfr, form, rule):
    source = tmp_path / "source.npz"
    leduc_dcfr.save(source)
    whole, half, ck = tmp_path / "whole.npz", tmp_path / "half.npz", tmp_path / "ck.npz"
    base = ["solve", "leduc", "-a", rule, "--form", form, "--warm-from", source]
    assert run_cli(capsys, *base, "-n", 20, "-o", whole)[0] == 0
    assert run_cli(capsys, *base, "-n", 12, "--checkpoint", ck)[0] == 0
    assert run_cli(capsys, "solve", "leduc", "-a", rule, "--form", form, "--resume", ck,
                   "-n", 8, "-o", half)[0] == 0
    a, b = TabularPolicy.load(whole), TabularPolicy.load(half)
    np.testing.assert_array_equal(a.probs, b.probs)


def test_the_command_line_and_the_api_report_the_warm_start(tmp_path, capsys, leduc_dcfr):
    source = tmp_path / "source.npz"
    leduc_dcfr.save(source)
    code, out, _ = run_cli(capsys, "solve", "leduc", "-a", "cfr+", "-n", 5, "--warm-from",
                           source, "--warm-iterations", 40)
    assert code == 0 and "45 iterations" in out and "40 iterations' worth" in out
    result = rcfr.solve("leduc", "cfr+", 5, warm_from=leduc_dcfr, warm_iterations=40)
    assert result.iterations == 45 and result.to_dict()["warm_start"]["iterations"] == 40


@pytest.mark.parametrize("args,words", [
    (["-a", "es"], "not es"),
    (["-a", "hs-dcfr"], "not hs-dcfr"),
    (["-a", "cfr", "--storage", "int16"], "not int16"),
    (["-a", "cfr", "--abstraction", "JQ.K"], "--abstraction"),
    (["-a", "cfr", "--lock", "SOURCE:0"], "--lock"),
])
def test_a_warm_start_it_cannot_do_is_one_error_line(tmp_path, capsys, leduc_dcfr, args,
                                                     words):
    source = tmp_path / "source.npz"
    leduc_dcfr.save(source)
    args = [a.replace("SOURCE", str(source)) for a in args]  # (a lock from the same file)
    line = one_line_error(*run_cli(capsys, "solve", "leduc", "-n", 2, "--warm-from", source,
                                   *args)[::2])
    assert words in line


def test_warm_start_errors_name_the_problem(tmp_path, capsys, leduc_dcfr):
    source = tmp_path / "source.npz"
    leduc_dcfr.save(source)
    line = one_line_error(*run_cli(capsys, "solve", "kuhn", "-a", "cfr", "--warm-from",
                                   source)[::2])
    assert "none of kuhn's information sets" in line
    line = one_line_error(*run_cli(capsys, "solve", "kuhn", "--warm-iterations", 3)[::2])
    assert "needs --warm-from" in line
    line = one_line_error(*run_cli(capsys, "solve", "kuhn", "--warm-from",
                                   tmp_path / "missing.npz")[::2])
    assert "missing.npz" in line

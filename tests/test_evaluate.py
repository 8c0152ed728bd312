import itertools
import math

import numpy as np
import pytest
from conftest import random_policy

import rcfr


@pytest.mark.parametrize(
    "spec, expected",
    [("kuhn", 0.458333), ("leduc", 2.373611), ("leduc(canonical=true)", 2.373611), ("rps", 0.0)],
)
def test_uniform_exploitability(spec, expected):
    ev = rcfr.evaluate(rcfr.TabularPolicy.uniform(spec))
    assert ev.exploitability == pytest.approx(expected, abs=1e-6)
    assert ev.nash_conv == pytest.approx(2 * ev.exploitability, abs=1e-15)


def test_mbb(leduc):
    ev = rcfr.evaluate(leduc, rcfr.TabularPolicy.uniform(leduc))
    assert ev.exploitability_mbb == pytest.approx(2373.611, abs=1e-3)
    assert rcfr.evaluate(rcfr.TabularPolicy.uniform("rps")).exploitability_mbb is None


def _pure_strategies(tree, player):
    infos = list(tree.player_infosets(player))
    choices = [range(tree.infoset_num_actions[i]) for i in infos]
    for pick in itertools.product(*choices):
        probs = np.zeros(tree.num_sequences)
        for i, a in zip(infos, pick, strict=True):
            probs[tree.infoset_seq_start[i] + a] = 1.0
        yield probs


@pytest.mark.parametrize("seed", range(4))
def test_best_response_is_brute_force_max(kuhn, seed):
    """The best-response value equals the maximum over all 64 pure strategies (Kuhn)."""
    policy = random_policy(kuhn, seed)
    for player in (0, 1):
        sign = 1.0 if player == 0 else -1.0
        own = kuhn.player_sequences(player)
        best = -np.inf
        for pure in _pure_strategies(kuhn, player):
            probs = policy.probs.copy()
            probs[own.start : own.stop] = pure[own.start : own.stop]
            best = max(best, sign * rcfr.expected_value(kuhn, probs))
        value, br_policy = rcfr.best_response(kuhn, policy, player)
        assert value == pytest.approx(best, abs=1e-12)
        assert sign * rcfr.expected_value(br_policy) == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("spec", ["kuhn", "leduc(canonical=true)", "leduc"])
def test_best_responses_bound_the_value(spec):
    tree = rcfr.compile_game(spec)
    value = rcfr.solve_lp(tree).value
    for seed in range(3):
        ev = rcfr.evaluate(tree, random_policy(tree, seed))
        br0, br1 = ev.best_response_values
        assert br0 >= ev.value - 1e-12 and -br1 <= ev.value + 1e-12
        assert br0 >= value - 1e-9 and -br1 <= value + 1e-9
        assert ev.exploitability > 0


@pytest.mark.parametrize("spec", ["kuhn", "leduc(canonical=true)", "leduc"])
def test_lp_equilibrium_is_unexploitable(spec):
    tree = rcfr.compile_game(spec)
    sol = rcfr.solve_lp(tree)
    ev = rcfr.evaluate(tree, rcfr.TabularPolicy(tree, sol.strategy))
    assert ev.exploitability == pytest.approx(0.0, abs=1e-8)
    assert ev.value == pytest.approx(sol.value, abs=1e-8)


def test_matrix_game_best_response():
    payoffs = [[3, -1, 0], [-2, 4, 1]]
    tree = rcfr.compile_game(f"matrix(payoffs={payoffs})".replace(" ", ""))
    probs = np.array([0.25, 0.75, 0.2, 0.3, 0.5])
    row = np.array([0.25, 0.75]) @ np.array(payoffs, dtype=float)
    col = np.array(payoffs, dtype=float) @ np.array([0.2, 0.3, 0.5])
    ev = rcfr.evaluate(tree, probs)
    assert ev.best_response_values[0] == pytest.approx(col.max(), abs=1e-12)
    assert ev.best_response_values[1] == pytest.approx(-row.min(), abs=1e-12)
    assert math.isclose(ev.value, 0.25 * col[0] + 0.75 * col[1])


def test_policy_of_another_game_is_refused(kuhn, leduc):
    with pytest.raises(rcfr.RcfrError, match="not for leduc"):
        rcfr.evaluate(leduc, rcfr.TabularPolicy.uniform(kuhn))

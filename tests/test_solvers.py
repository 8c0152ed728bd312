from collections import defaultdict

import numpy as np
import pytest

import rcfr
from rcfr.solvers import RegretSolver, TabularRegrets

KUHN_VALUE = -1.0 / 18.0


def _run(spec, algorithm, iterations, **kw):
    return rcfr.CFRSolver(spec, algorithm, **kw).run(iterations)


def test_kuhn_cfr_plus_reaches_the_lp_value():
    assert rcfr.solve_lp("kuhn").value == pytest.approx(KUHN_VALUE, abs=1e-9)
    solver = _run("kuhn", "cfr+", 10_000)
    ev = rcfr.evaluate(solver.average_policy())
    assert abs(ev.value - KUHN_VALUE) < 1e-4
    assert ev.exploitability < 1e-4


def test_leduc_cfr_plus_1000(leduc):
    solver = _run(leduc, "cfr+", 1000)
    assert rcfr.exploitability(solver.average_policy()) < 0.0005


def test_leduc_cfr_falls_steadily(leduc):
    result = rcfr.solve(leduc, "cfr", iterations=1000, eval_every=100)
    curve = [e for _, e in result.curve]
    assert len(curve) == 10
    assert all(b < a for a, b in zip(curve, curve[1:], strict=False))
    assert curve[-1] < 0.015
    assert result.evaluation.exploitability == curve[-1]


def test_canonical_and_suited_leduc_agree(leduc, leduc_canonical):
    """Suits are strategically irrelevant: CFR+ reaches the same value in both forms."""
    a = rcfr.evaluate(_run(leduc, "cfr+", 50).average_policy())
    b = rcfr.evaluate(_run(leduc_canonical, "cfr+", 50).average_policy())
    assert a.value == pytest.approx(b.value, abs=1e-9)
    assert a.exploitability == pytest.approx(b.exploitability, abs=1e-9)


@pytest.mark.parametrize("alternating", [True, False])
def test_rps_average_converges_to_uniform(alternating):
    solver = rcfr.CFRSolver("rps", "cfr", alternating=alternating)
    solver.run(1)
    solver.estimator_.regrets[:] = [3.0, 1.0, 0.0, 0.0, 0.0, 2.0]  # start far from uniform
    solver.run(20_000)
    probs = solver.average_policy().probs
    assert np.abs(probs - 1.0 / 3.0).max() < 0.01
    assert rcfr.exploitability(solver.average_policy()) < 0.01


def test_biased_rps_converges_to_the_lp_equilibrium():
    game = "matrix(payoffs=[[0,-1,2],[1,0,-1],[-2,1,0]])"
    lp = rcfr.solve_lp(game)
    for algorithm in ("cfr", "cfr+"):
        avg = _run(game, algorithm, 20_000).average_policy()
        assert np.abs(avg.probs - lp.strategy).max() < 0.01
        assert rcfr.exploitability(avg) < 1e-3


def textbook_walk(state, p, own, opp, weight, delta, avg, sigma):
    """One textbook pass for player ``p`` by recursion over the game's states: returns ``p``'s
    value; adds ``p``'s counterfactual regrets to ``delta`` and ``weight`` times its reach times
    ``sigma(key, actions)`` to ``avg``."""
    if state.is_terminal():
        return state.returns()[p]
    if state.is_chance_node():
        return sum(pr * textbook_walk(state.child(a), p, own, opp * pr, weight, delta, avg, sigma)
                   for a, pr in state.chance_outcomes())
    player, actions = state.current_player(), state.legal_actions()
    key = (player, state.information_state_string(player))
    probs = sigma(key, actions)
    if player != p:
        return sum(pr * textbook_walk(state.child(a), p, own, opp * pr, weight, delta, avg, sigma)
                   for a, pr in zip(actions, probs, strict=True))
    vals = [textbook_walk(state.child(a), p, own * pr, opp, weight, delta, avg, sigma)
            for a, pr in zip(actions, probs, strict=True)]
    v = sum(pr * x for pr, x in zip(probs, vals, strict=True))
    for a, pr, x in zip(actions, probs, vals, strict=True):
        delta[key, a] += opp * (x - v)
        avg[key, a] += weight * own * pr
    return v


def _reference_cfr(game, iterations, plus):
    """Textbook alternating CFR / CFR+ by recursion over the game's states (Zinkevich et al.
    2007; Tammelin 2014), independent of the compiled tree."""
    regrets = defaultdict(float)
    avg = defaultdict(float)

    def sigma(key, actions):
        pos = [max(regrets[key, a], 0.0) for a in actions]
        total = sum(pos)
        return [p / total if total > 0 else 1.0 / len(actions) for p in pos]

    for t in range(1, iterations + 1):
        for p in (0, 1):
            delta = defaultdict(float)
            textbook_walk(game.new_initial_state(), p, 1.0, 1.0, float(t) if plus else 1.0, delta,
                          avg, sigma)
            for k, d in delta.items():
                regrets[k] = max(regrets[k] + d, 0.0) if plus else regrets[k] + d
    return avg


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
@pytest.mark.parametrize("spec", ["kuhn", "leduc(canonical=true)"])
def test_matches_textbook_cfr(spec, algorithm):
    tree = rcfr.compile_game(spec)
    iterations = 30 if spec == "kuhn" else 4
    avg = _reference_cfr(tree.game, iterations, plus=algorithm == "cfr+")
    weights = np.zeros(tree.num_sequences)
    for s in range(tree.num_sequences):
        i = tree.seq_infoset[s]
        key = (int(tree.infoset_player[i]), tree.infoset_keys[i])
        weights[s] = avg[key, int(tree.seq_action[s])]
    expected = rcfr.TabularPolicy.from_weights(tree, weights).probs
    ours = _run(tree, algorithm, iterations).average_policy().probs
    assert np.abs(ours - expected).max() < 1e-12


class _UnfusedTabular(TabularRegrets):
    fused = False


@pytest.mark.parametrize("plus", [False, True])
@pytest.mark.parametrize("alternating", [True, False])
def test_fused_kernel_equals_the_step_by_step_loop(leduc_canonical, plus, alternating):
    averaging = "linear" if plus else "uniform"
    rule = "cfr+" if plus else "cfr"
    fused = RegretSolver(leduc_canonical, estimator=TabularRegrets(rule), averaging=averaging,
                         alternating=alternating).run(25)
    steps = RegretSolver(leduc_canonical, estimator=_UnfusedTabular(rule), averaging=averaging,
                         alternating=alternating).run(25)
    assert np.array_equal(fused.average_policy().probs, steps.average_policy().probs)
    assert np.array_equal(fused.current_policy().probs, steps.current_policy().probs)


def test_runs_continue_exactly(kuhn):
    one = _run(kuhn, "cfr+", 200)
    two = _run(kuhn, "cfr+", 120).run(80)
    assert np.array_equal(one.average_policy().probs, two.average_policy().probs)
    assert one.iteration == two.iteration == 200


def test_exponential_link_converges(kuhn):
    solver = rcfr.CFRSolver(kuhn, "cfr", link="exp:0.05").run(5000)
    assert rcfr.exploitability(solver.average_policy()) < 0.01


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"algorithm": "cfr++"}, "unknown algorithm"),
        ({"averaging": "cubic"}, "unknown averaging"),
        ({"link": "poly:1"}, "p > 1"),
        ({"link": "exp:0"}, "temperature > 0"),
        ({"link": "relu"}, "unknown link"),
    ],
)
def test_bad_parameters(kuhn, kwargs, message):
    with pytest.raises(rcfr.RcfrError, match=message.replace("+", r"\+")):
        rcfr.CFRSolver(kuhn, **{"algorithm": "cfr", **kwargs}).run(1)


@pytest.mark.parametrize("iterations", [0, -3, 2.5, True])
def test_bad_iterations(kuhn, iterations):
    with pytest.raises(rcfr.RcfrError, match="iterations"):
        rcfr.CFRSolver(kuhn).run(iterations)

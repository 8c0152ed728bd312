"""Action abstractions of real-card spots (holdem_spot(...,bets=...), --abstraction
actions:...): the abstract spot's tree, the lift with pseudo-harmonic translation, exact
evaluation in the real spot, bad input."""

import numpy as np
import pytest

import rcfr
from rcfr import compile_game, load_game
from rcfr.abstraction.actions import lift_actions, pseudo_harmonic
from rcfr.cli import main
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate
from rcfr.solvers.run import make_solver

SPOT = "holdem_spot(spot=river_small)"  # bets 50%, a; raises 3x; pot 200, 400 behind


def _at(tree, probs, key, player):
    """The strategy at the information set ``key``."""
    i = tree.infoset_index(key, player)
    start = int(tree.infoset_seq_start[i])
    return probs[start:start + int(tree.infoset_num_actions[i])]


def _solve(tree, n=20):
    solver = make_solver(tree, "cfr+")
    solver.setup()
    solver.run(n)
    return solver.average_policy()


@pytest.fixture(scope="module")
def real():
    return compile_game(SPOT, form="public")


@pytest.fixture(scope="module")
def quarter():
    """The spot with one 25% bet and all-in (raises 3x, as the spot's), solved a little."""
    tree = compile_game("holdem_spot(spot=river_small,bets=25% a)", form="public")
    return tree, _solve(tree)


def test_abstract_tree_keeps_the_sizes_given():
    g = load_game("holdem_spot(spot=river_small,bets=25% a,raises=a)")
    assert [str(a) for a in g.root.actions] == ["check", "bet 50", "allin 400"]
    facing = g.root.children[1]
    assert [str(a) for a in facing.actions] == ["fold", "call", "allin 400"]
    # the game string reads back, and names the real spot it abstracts
    assert str(load_game(str(g))) == str(g)


def test_pseudo_harmonic_mapping():
    # Ganzfried & Sandholm 2013, eq. 2: f(x) = (B - x)(1 + A) / ((B - A)(1 + x))
    (i, p), (j, q) = pseudo_harmonic(0.5, [0.25, 2.0])
    assert (i, j) == (0, 1)
    assert p == pytest.approx(1.5 * 1.25 / (1.75 * 1.5))
    assert q == pytest.approx(1 - p)
    assert pseudo_harmonic(0.25, [0.25, 2.0]) == [(0, 1.0)]
    assert pseudo_harmonic(3.0, [0.25, 2.0]) == [(1, 1.0)]
    assert pseudo_harmonic(0.1, [0.25, 2.0]) == [(0, 1.0)]


def test_the_real_sizes_lift_to_the_same_strategy(real):
    """An abstraction that keeps every size of the spot is the spot: the lift changes
    nothing (to rounding)."""
    same = compile_game("holdem_spot(spot=river_small,bets=50% a)", form="public")
    policy = _solve(same, 5)
    lifted = lift_actions(real, same, policy)
    np.testing.assert_allclose(lifted.probs, _solve(real, 5).probs, rtol=0, atol=1e-15)


def test_a_real_bet_off_the_tree_is_translated(real, quarter):
    """The opponent's real 50% bet (100 chips) is read as the abstract 25% bet with the
    pseudo-harmonic probability and as all-in with the rest; the responder's raise after the
    25% bet is played as the real raise nearest in pot fraction."""
    abstract, policy = quarter
    lifted = lift_actions(real, abstract, policy)
    p_small = pseudo_harmonic(0.5, [0.25, 2.0])[0][1]
    for hand in ("AhQh", "KhJh", "3d3c", "AsKc"):  # in IP's range
        got = _at(real, lifted.probs, f"{hand}|Td9d6hQc2s|bet 100", 1)
        small = _at(abstract, policy.probs, f"{hand}|Td9d6hQc2s|bet 50", 1)  # fold, call, 150
        allin = _at(abstract, policy.probs, f"{hand}|Td9d6hQc2s|allin 400", 1)  # fold, call
        # real actions: fold, call, raise 300 (the 3x raise)
        want = p_small * small + (1 - p_small) * np.append(allin, 0.0)
        np.testing.assert_allclose(got, want, atol=1e-12)
        assert 0 < got[2] < 1 or got[2] == want[2]


@pytest.mark.parametrize("buckets", ["", ",buckets=3"])
def test_in_tree_play_has_the_abstract_value(real, buckets):
    """Both translated agents play only sizes the real spot has (all-in), so the real spot's
    value of the lifted pair is the abstract game's value of the abstract strategy, and the
    lifted strategy is exactly evaluated in the real spot (a best response there uses the
    50% bet the abstraction lacks, so it exploits more); with buckets too."""
    allin = compile_game(f"holdem_spot(spot=river_small,bets=a,raises=a{buckets})",
                         form="public")
    policy = _solve(allin, 30)
    lifted = lift_actions(real, allin, policy)
    ev_real, ev_abs = evaluate(real, lifted), evaluate(allin, policy)
    assert ev_real.value == pytest.approx(ev_abs.value, abs=1e-9)
    assert ev_real.exploitability > ev_abs.exploitability + 1.0


def test_solve_through_an_action_abstraction(real):
    """`--abstraction actions:...` runs the abstract spot through the run engine and reports
    the lifted strategy's exact exploitability in the real spot; it composes with buckets."""
    res = rcfr.solve(SPOT, "cfr+", 20, abstraction="actions:25%,a", form="public")
    abstract = res.abstraction.abstract_policy.tree
    assert str(abstract.game) == "holdem_spot(bets=25% a,spot=river_small)"
    lifted = lift_actions(real, abstract, res.abstraction.abstract_policy)
    assert res.evaluation.exploitability == pytest.approx(
        evaluate(real, lifted).exploitability, abs=1e-12)
    assert res.abstraction.name == "actions:25%,a"
    assert res.abstraction.complexity == abstract.num_sequences
    both = rcfr.solve(SPOT, "cfr+", 10, abstraction="buckets:3+actions:a", form="public")
    assert both.abstraction.name == "buckets:3+actions:a"
    assert both.abstraction.complexity < 100
    assert np.isfinite(both.evaluation.exploitability)


@pytest.mark.parametrize("spec, message", [
    ("actions:", "needs bet sizes"),
    ("actions:60%/2.5y", "bad bet size"),
    ("actions:2x", "only for raises"),
    ("buckets:2+chips:3", "joins buckets:K and actions"),
    ("actions:a+actions:50%", "twice"),
])
def test_bad_action_abstractions(spec, message, capsys):
    assert main(["solve", SPOT, "--abstraction", spec, "-n", "1", "--form", "public"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err


def test_an_action_abstraction_of_another_game_is_refused():
    with pytest.raises(RcfrError, match="abstracts a real-card spot"):
        rcfr.solve("kuhn", "cfr", 1, abstraction="actions:a")


def test_emd_buckets_compose_with_actions():
    """turn_small bets only all-in, so `actions:a` keeps its tree: with EMD buckets the
    composed abstraction is the EMD abstraction, to the bit."""
    both = rcfr.solve("holdem_spot(spot=turn_small)", "cfr+", 30,
                      abstraction="buckets:2,kind=emd+actions:a", form="public")
    cards = rcfr.solve("holdem_spot(spot=turn_small)", "cfr+", 30,
                       abstraction="buckets:2,kind=emd", form="public")
    assert both.abstraction.name == "buckets:2,kind=emd+actions:a"
    assert both.evaluation.exploitability == pytest.approx(cards.evaluation.exploitability,
                                                           rel=1e-12)
    np.testing.assert_allclose(both.policy.probs, cards.policy.probs, atol=1e-15)

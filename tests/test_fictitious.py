"""Fictitious play (issue 24): XFP equals OpenSpiel's XFPSolver step for step (average policy
and exploitability), normal-form fictitious play converges to the LP value, sampled FSP with
tabular learners follows XFP's trajectory in expectation, and the family runs through the one
run path (make_solver, rcfr solve, checkpoints)."""

from __future__ import annotations

import numpy as np
import pytest

from rcfr import solve_lp
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate
from rcfr.games.matrix import MatrixGame
from rcfr.run.engine import solve
from rcfr.solvers.fp.fictitious import FictitiousPlay
from rcfr.solvers.fp.fsp import FSPSolver
from rcfr.solvers.fp.xfp import XFPSolver
from rcfr.solvers.run import make_solver


# Leduc to 12 iterations (1.03 from 2.60 at the first; OpenSpiel's Python best responses make
# each of its iterations cost seconds)
@pytest.mark.parametrize(("game", "os_game", "checkpoints", "bound"),
                         [("kuhn", "kuhn_poker", (1, 10, 100), 0.6),
                          ("leduc", "leduc_poker", (1, 4, 12), 1.1)])
def test_xfp_equals_openspiels_xfp_solver(game, os_game, checkpoints, bound):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability, fictitious_play

    from rcfr.interop.openspiel import from_openspiel_policy

    os_game = pyspiel.load_game(os_game)
    theirs = fictitious_play.XFPSolver(os_game)
    ours = XFPSolver(game, alternating=False)  # Heinrich et al.'s Algorithm 1
    done = 0
    for n in checkpoints:
        for _ in range(n - done):
            theirs.iteration()
        ours.run(n - done)
        done = n
        policy = theirs.average_policy()
        their_probs = from_openspiel_policy(policy.to_tabular(), ours.tree).probs
        np.testing.assert_allclose(ours.average_policy().probs, their_probs, rtol=0,
                                   atol=1e-10)
        expl = evaluate(ours.tree, ours.average_policy()).exploitability
        assert expl == pytest.approx(exploitability.exploitability(os_game, policy), abs=1e-10)
    assert expl < bound  # non-vacuous: far from the first iteration's


def test_xfp_runs_on_both_forms_alike():
    hist = XFPSolver("leduc", alternating=False).run(5)
    pub = XFPSolver(__import__("rcfr").compile_game("leduc", form="public"),
                    alternating=False).run(5)
    a = evaluate(hist.tree, hist.average_policy()).exploitability
    b = evaluate(pub.tree, pub.average_policy()).exploitability
    assert a == pytest.approx(b, abs=1e-9) and a < 2.0


@pytest.mark.parametrize("payoffs", ["rps", 0, 1, 2])
def test_fictitious_play_converges_to_the_lp_value(payoffs):
    if payoffs == "rps":
        game = "rps"
    else:
        rng = np.random.default_rng(payoffs)
        game = MatrixGame(rng.normal(size=(4 + payoffs, 3 + payoffs)).round(3).tolist())
    value = solve_lp(game).value
    solver = FictitiousPlay(game).run(20000)
    result = evaluate(solver.tree, solver.average_policy())
    assert result.exploitability < 0.01
    br0, br1 = result.best_response_values  # the value lies between what each guarantees
    assert -br1 <= value + 1e-12 and value <= br0 + 1e-12
    assert abs(result.value - value) < 0.02


def test_fictitious_play_is_xfp_on_a_matrix_game_and_refuses_other_games():
    fp = FictitiousPlay("rps", alternating=False).run(50)
    xfp = XFPSolver("rps", alternating=False).run(50)
    np.testing.assert_allclose(fp.average_policy().probs, xfp.average_policy().probs,
                               atol=1e-12)
    with pytest.raises(RcfrError, match="needs a matrix game"):
        FictitiousPlay("kuhn").run(1)


def test_fsp_with_tabular_learners_follows_xfps_trajectory_in_expectation():
    """Seeded statistical test: over independent seeds the mean exploitability of FSP's
    average after each iteration is XFP's within five standard errors plus the ratio
    estimator's O(1/n) bias; non-vacuous: the trajectory falls by far more than that."""
    iterations, seeds, episodes = 6, 6, 8000
    xfp = XFPSolver("kuhn", alternating=False)
    runs = [FSPSolver("kuhn", fsp_episodes=episodes, seed=s) for s in range(seeds)]
    expected, got = [], []
    for _ in range(iterations):
        xfp.run(1)
        expected.append(evaluate(xfp.tree, xfp.average_policy()).exploitability)
        got.append([evaluate(r.run(1).tree, r.average_policy()).exploitability for r in runs])
    got = np.array(got)
    mean, se = got.mean(axis=1), got.std(axis=1, ddof=1) / np.sqrt(seeds)
    tolerance = 5 * se + 0.01
    assert np.all(np.abs(mean - np.array(expected)) < tolerance), (mean, expected, se)
    assert expected[0] - expected[-1] > 5 * tolerance.max()  # non-vacuous
    # the seeds differ (sampling is real) and a seed repeats exactly
    assert np.ptp(got[-1]) > 0
    again = FSPSolver("kuhn", fsp_episodes=episodes, seed=0).run(iterations)
    np.testing.assert_array_equal(again.average_policy().probs, runs[0].average_policy().probs)


@pytest.mark.parametrize("algorithm", ["xfp", "fsp", "fp"])
def test_checkpoints_resume_bit_identically(tmp_path, algorithm):
    game = "rps" if algorithm == "fp" else "kuhn"
    opts = {"fsp_episodes": 500} if algorithm == "fsp" else {}
    whole = make_solver(game, algorithm, seed=3, **opts).run(8)
    half = make_solver(game, algorithm, seed=3, **opts).run(4)
    half.save_checkpoint(tmp_path / "c.npz")
    resumed = make_solver(game, algorithm, seed=3, **opts)
    resumed.load_checkpoint(tmp_path / "c.npz").run(4)
    np.testing.assert_array_equal(resumed.average_policy().probs, whole.average_policy().probs)
    assert resumed.iteration == 8
    other = make_solver(game, algorithm, seed=3, step="const:0.5", **opts)
    with pytest.raises(RcfrError, match="was run with step"):
        other.load_checkpoint(tmp_path / "c.npz")


def test_the_run_path_and_the_refusals():
    result = solve("kuhn", "xfp", 40, eval_every=10, alternating=False)
    assert [it for it, _ in result.curve] == [10, 20, 30, 40]
    assert result.curve[-1][1] == pytest.approx(result.evaluation.exploitability)
    for options, message in [({"step": "fast"}, "--step must be"),
                             ({"link": "rm"}, "--link applies to"),
                             ({"eta": 0.2}, "--eta applies to nfsp, not xfp")]:
        with pytest.raises(RcfrError, match=message):
            make_solver("kuhn", "xfp", **options).run(1)
    with pytest.raises(RcfrError, match="--step applies to fp/xfp/fsp, not cfr"):
        make_solver("kuhn", "cfr", step="harmonic")


def test_rcfr_solve_runs_xfp_and_fp(capsys):
    import json

    from rcfr.cli import main

    assert main(["solve", "kuhn", "-a", "xfp", "-n", "50", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["algorithm"] == "xfp" and info["iterations"] == 50
    assert info["exploitability"] < 0.05 and len(info["curve"]) == 10
    assert main(["solve", "rps", "-a", "fp", "-n", "2000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exploitability"] < 0.01
    assert main(["solve", "kuhn", "-a", "cfr", "--episodes", "5"]) == 2
    assert "episodes: the budget of nfsp" in capsys.readouterr().err


@pytest.mark.parametrize("episodes", [0, -1, 2.5, True])
def test_fsp_refuses_episode_counts_the_command_line_refuses(episodes):
    # 0 was read as "not given" and became the default 1,000 in the API
    with pytest.raises(RcfrError, match="fsp_episodes must be a whole number"):
        FSPSolver("kuhn", fsp_episodes=episodes).run(1)

"""The newest update rules: DCFR+ (Xu et al., IJCAI 2024), SAPCFR+ (Meng et al., AAAI 2026),
the hyperparameter schedules HS-DCFR
and HS-PCFR+ (Zhang, McAleer & Sandholm 2024) and the learned DDCFR policy (Xu et al., ICLR
2024), each against a plain-Python reference written from its paper's equations on both
compiled forms; the DDCFR network against the authors' PyTorch outputs and DDCFR against the
authors' published curve; checkpoints, options and refusals."""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from functools import cache

import numpy as np
import pytest
from conftest import one_line_error, run_cli

import rcfr
from rcfr.core.rules import parse_rule
from rcfr.experiments.published import published_curve, published_value
from rcfr.solvers.ddcfr import policy_outputs
from rcfr.solvers.run import make_solver

ITERATIONS = 50
CHECKS = (20, ITERATIONS)
HORIZON = 40  # short, so that 50 iterations pass it (the parameters then stay)
RULES = ("dcfr+", "sapcfr+", "hs-dcfr", "hs-pcfr+", "ddcfr")
SPECS = {"dcfr+": "dcfr+", "sapcfr+": "sapcfr+:2", "hs-dcfr": f"hs-dcfr:30,{HORIZON}",
         "hs-pcfr+": f"hs-pcfr+:15,{HORIZON}", "ddcfr": f"ddcfr:{HORIZON}"}


# -- the plain-Python reference ----------------------------------------------------------------
@cache
def game_tree(spec: str):
    """The game's states once, as nested tuples (the reference walks them every iteration):
    ``("T", returns)``, ``("C", [(p, child)])`` or ``("D", player, key, [(a, child)])``."""
    game = rcfr.compile_game(spec, form="history").game

    def build(state):
        if state.is_terminal():
            return ("T", tuple(state.returns()))
        if state.is_chance_node():
            return ("C", [(p, build(state.child(a))) for a, p in state.chance_outcomes()])
        player = state.current_player()
        key = (player, state.information_state_string(player))
        return ("D", player, key, [(a, build(state.child(a))) for a in state.legal_actions()])

    return build(game.new_initial_state())


def walk(node, p, own, opp, delta, avg, sigma):
    """Player ``p``'s counterfactual regrets into ``delta`` (Zinkevich et al. 2007, eq. 7) and
    its reach times the strategy into ``avg``; returns ``p``'s value."""
    if node[0] == "T":
        return node[1][p]
    if node[0] == "C":
        return sum(pr * walk(child, p, own, opp * pr, delta, avg, sigma) for pr, child in node[1])
    _, player, key, children = node
    probs = sigma(key, len(children))
    if player != p:
        return sum(pr * walk(child, p, own, opp * pr, delta, avg, sigma)
                   for pr, (_, child) in zip(probs, children, strict=True))
    vals = [walk(child, p, own * pr, opp, delta, avg, sigma)
            for pr, (_, child) in zip(probs, children, strict=True)]
    v = sum(pr * x for pr, x in zip(probs, vals, strict=True))
    for (a, _), pr, x in zip(children, probs, vals, strict=True):
        delta[key, a] += opp * (x - v)
        avg[key, a] += own * pr
    sigma.actions.setdefault(key, [a for a, _ in children])
    return v


def matching(values):
    """Regret matching: the positive parts normalised, uniform where none is positive."""
    pos = [max(x, 0.0) for x in values]
    total = sum(pos)
    return [x / total if total > 0 else 1.0 / len(pos) for x in pos]


def weight(t, power):
    """``t^power / (t^power + 1)`` (Brown & Sandholm 2019)."""
    w = float(t) ** power
    return 1.0 if w == math.inf else w / (w + 1.0)


class Strategy(dict):
    """The current strategy by information set (uniform until a player's first update)."""

    def __init__(self):
        super().__init__()
        self.actions = {}

    def __call__(self, key, n):
        return self.get(key, [1.0 / n] * n)


def tree_policy(tree, avg):
    """A reference's average-strategy sums as a policy on ``tree`` (either form)."""
    weights = np.zeros(tree.num_sequences)
    for s in range(tree.num_sequences):
        i = tree.seq_infoset[s]
        weights[s] = avg[(int(tree.infoset_player[i]), tree.infoset_keys[i]),
                         int(tree.seq_action[s])]
    return rcfr.TabularPolicy.from_weights(tree, weights)


@cache
def reference(spec: str, rule: str) -> dict[int, dict]:
    """``ITERATIONS`` alternating iterations of ``rule`` written from its paper's equations
    (the average-strategy sums after each number of iterations in ``CHECKS``):

    * DCFR+ (Xu et al. 2024, sec. 4): ``Q^t = [Q^{t-1} (t-1)^a / ((t-1)^a + 1) + r^t]^+``,
      alpha 1.5, the average ``C^t = C^{t-1} ((t-1)/t)^gamma + x^t`` with gamma 4;
    * HS-DCFR (Zhang et al. 2024, eq. 4): DCFR with ``alpha_t = 1 + 3 t/T``,
      ``beta_t = -1 - 2 t/T``, ``gamma_t = 30 - 5 t/T`` (``t/T`` at most 1), the regrets
      ``R^t = R^{t-1} (t-1)^a / ((t-1)^a + 1) + r^t`` (``a = alpha_t`` where ``R^{t-1} > 0``,
      ``beta_t`` elsewhere);
    * SAPCFR+ (Meng et al. 2026): PCFR+ whose explicit step is ``1 / (1 + alpha)`` of the
      implicit one: ``Q^t = [Q^{t-1} + r^t]^+``, the next strategy regret matching on
      ``Q^t + r^t / (1 + alpha)``, alpha 2, quadratic averaging;
    * HS-PCFR+: PCFR+ (Farina et al. 2021: ``Q^t = [Q^{t-1} + r^t]^+``, the next strategy
      regret matching on ``Q^t + r^t``) with ``gamma_t = 15 - 5 t/T``;
    * DDCFR (Xu et al. 2024, Algorithm 1): every ``tau`` iterations the policy reads
      ``(t/T, (log10 e_t + 12) / (log10 e_0 + 12))`` and answers DCFR's parameters and ``tau``.
    """
    root, tree = game_tree(spec), rcfr.compile_game(spec, form="history")
    regrets, avg, sigma, out = defaultdict(float), defaultdict(float), Strategy(), {}
    params, next_query, start = (0.0, 0.0, 0.0), 0, None
    for t in range(1, ITERATIONS + 1):
        x = min(t, HORIZON) / HORIZON
        if rule == "dcfr+":
            alpha, beta, gamma = 1.5, 0.0, 4.0
        elif rule == "sapcfr+":
            alpha, beta, gamma = 2.0, 0.0, 2.0
        elif rule in ("hs-dcfr", "hs-pcfr+"):
            alpha, beta = 1 + 3 * x, -1 - 2 * x
            gamma = (30 if rule == "hs-dcfr" else 15) - 5 * x
        else:  # ddcfr: the policy, queried at its own intervals until the horizon
            if t - 1 == next_query and t - 1 < HORIZON:
                e = max(rcfr.exploitability(tree, tree_policy(tree, avg)), 1e-12)
                start = math.log10(e) if start is None else start
                obs = ((t - 1) / HORIZON, (math.log10(e) + 12) / (start + 12))
                abg, k = policy_outputs(obs)
                params = (2.5 * abg[0] + 2.5, 2.5 * abg[1] - 2.5, 2.5 * abg[2] + 2.5)
                next_query = t - 1 + (1, 2, 5, 10, 20)[k]
            alpha, beta, gamma = params
        factor = ((t - 1) / t) ** gamma if t > 1 else 0.0
        for k in avg:
            avg[k] *= factor
        for p in (0, 1):
            delta = defaultdict(float)
            walk(root, p, 1.0, 1.0, delta, avg, sigma)
            for key, actions in sigma.actions.items():
                if key[0] != p:
                    continue
                for a in actions:
                    old, r = regrets[key, a], delta[key, a]
                    if rule == "dcfr+":
                        new = max(old * (weight(t - 1, alpha) if t > 1 else 0.0) + r, 0.0)
                    elif rule in ("hs-pcfr+", "sapcfr+"):
                        new = max(old + r, 0.0)
                    else:
                        d = weight(t - 1, alpha if old > 0 else beta) if t > 1 else 0.0
                        new = old * d + r
                    regrets[key, a] = new
                if rule == "hs-pcfr+":
                    sigma[key] = matching([regrets[key, a] + delta[key, a] for a in actions])
                elif rule == "sapcfr+":
                    sigma[key] = matching([regrets[key, a] + delta[key, a] / (1 + alpha)
                                           for a in actions])
                else:
                    sigma[key] = matching([regrets[key, a] for a in actions])
        if t in CHECKS:
            out[t] = defaultdict(float, avg)
    return out


@pytest.mark.parametrize("spec", ["kuhn", "leduc"])
@pytest.mark.parametrize("rule", RULES)
def test_each_rule_equals_its_papers_equations_on_both_forms(spec, rule):
    """The average strategies after 20 and 50 iterations (HS and DDCFR with a horizon of 40,
    so the schedule also runs past it) equal the reference's on the history and the public
    form: to 1e-12 on Kuhn, and on Leduc to 1e-12 after 20 iterations and 1e-8 after 50.  On
    Leduc the two computations' rounding of the counterfactual regrets (by recursion over the
    histories there, by sequence-form sweeps here; 1e-16 apart) is amplified about tenfold
    every ten iterations, as between rcfr and OpenSpiel (docs/algorithms.md): measured on
    the history form, 3e-15 to 7e-15 apart after 5 iterations, below 1e-12 after 20, and
    6e-12 (ddcfr), 4e-11 (hs-dcfr), 1.9e-9 (dcfr+) and 2.4e-9 (hs-pcfr+) after 50."""
    snapshots = reference(spec, rule)
    name = SPECS[rule].partition(":")[0]
    for form in ("history", "public"):
        tree = rcfr.compile_game(spec, form=form)
        solver = make_solver(tree, name, **options_of(SPECS[rule]))
        for n in CHECKS:
            solver.run(n - solver.iteration)
            expected = tree_policy(tree, snapshots[n]).probs
            tol = 1e-12 if spec == "kuhn" or n <= 20 else 1e-8
            assert np.abs(solver.average_policy().probs - expected).max() < tol, (form, n)


def options_of(spec: str) -> dict:
    """A rule spec's parameters as ``make_solver`` options."""
    name, _, args = spec.partition(":")
    values = [float(v) for v in args.split(",")] if args else []
    names = {"hs-dcfr": ("gamma0", "horizon"), "hs-pcfr+": ("gamma0", "horizon"),
             "ddcfr": ("horizon",), "dcfr+": ("alpha", "gamma"), "sapcfr+": ("alpha",)}[name]
    return dict(zip(names, values, strict=False))


# -- DDCFR: the network and the published curve ------------------------------------------------
# The authors' network (github.com/rpSebastian/DDCFR at 0e4de9b, models/model.pkl) evaluated by
# PyTorch 2.13 in float64 on these observations (benchmarks/convert_ddcfr_policy.py prints them):
# the three tanh outputs (alpha, beta, gamma in [-1, 1]) and the index of tau.
TORCH_OUTPUTS = [
    ((0.0, 1.0), (-0.5910048323424211, 0.646989857149875, 0.9989022520296802), 0),
    ((0.001, 0.9), (-0.635237830370467, 0.6371875016444366, 0.999194526144341), 0),
    ((0.1, 0.6), (-0.6588960246127203, 0.48376387402790105, 0.9988336058882955), 0),
    ((0.5, 0.35), (-0.22298711973724342, -0.014675122680835572, 0.7014640075900797), 2),
    ((0.9, 0.2), (0.4145422687454608, -0.02329392673298386, -0.9754035443052632), 2),
    ((1.0, 0.05), (0.5172151991920034, -0.05443479607789502, -0.9913093155061298), 2),
]


@pytest.mark.parametrize("obs, abg, tau", TORCH_OUTPUTS)
def test_ddcfr_network_equals_the_authors_pytorch_network(obs, abg, tau):
    ours, k = policy_outputs(obs)
    np.testing.assert_allclose(ours, abg, rtol=0, atol=1e-14)
    assert k == tau


@pytest.mark.parametrize("game, rel", [("kuhn", 1e-8), ("small_matrix", 1e-9),
                                       ("goofspiel3", 1e-12)])
def test_ddcfr_equals_the_authors_published_curve(game, rel):
    """The authors' OpenSpiel runs of their policy (horizon 1,000, alternating updates, the
    exploitability floored at 1e-12): rcfr's run equals their curve at every published point to
    1000 iterations, to rounding (measured: 6e-9 relative on Kuhn, 1.3e-10 on the matrix game,
    5e-16 on Goofspiel 3; the intervals and so the parameters are the same all along; on
    Goofspiel 4 and Liar's Dice the rounding grows to 2e-6 to 1e-4 by 1,000 iterations)."""
    tree = rcfr.compile_game(game)
    solver = make_solver(tree, "ddcfr")
    for n, theirs in published_curve(game, "ddcfr"):
        if n > solver.iteration:  # (0: the uniform strategy)
            solver.run(n - solver.iteration)
        ours = max(rcfr.exploitability(tree, solver.average_policy()), 1e-12)
        assert ours == pytest.approx(theirs, rel=rel), n
    first = solver.history_[0]  # e_0: the uniform strategy's
    assert first[0] == 0 and first[1] == pytest.approx(published_value(game, "ddcfr", 0))


# -- checkpoints ----------------------------------------------------------------------------
@pytest.mark.parametrize("rule", RULES)
def test_checkpoints_resume_bit_for_bit(tmp_path, leduc, rule):
    path = tmp_path / "state.npz"
    options = options_of(SPECS[rule])
    straight = make_solver(leduc, rule, **options).run(37)
    make_solver(leduc, rule, **options).run(23).save_checkpoint(path)
    resumed = make_solver(leduc, rule, **options).load_checkpoint(path).run(14)
    assert resumed.iteration == 37
    assert np.array_equal(resumed.average_weights(), straight.average_weights())
    assert np.array_equal(resumed.current_policy().probs, straight.current_policy().probs)
    assert np.array_equal(resumed.estimator_.regrets, straight.estimator_.regrets)
    if rule == "ddcfr":
        assert resumed.history_ == straight.history_ and resumed.params_ == straight.params_
    other = "hs-pcfr+" if rule != "hs-pcfr+" else "hs-dcfr"
    with pytest.raises(rcfr.RcfrError, match=re.escape(f"is a {rule} checkpoint, not {other}")):
        make_solver(leduc, other).load_checkpoint(path)


def test_the_command_line_resumes_ddcfr(capsys, tmp_path):
    ckpt = tmp_path / "c.npz"
    code, out, err = run_cli(capsys, "solve", "kuhn", "-a", "ddcfr", "-n", "120",
                             "--checkpoint", ckpt, "--json")
    assert code == 0, err
    code, out, err = run_cli(capsys, "solve", "kuhn", "-a", "ddcfr", "-n", "80", "--resume",
                             ckpt, "--json")
    assert code == 0, err
    resumed = json.loads(out)
    code, out, err = run_cli(capsys, "solve", "kuhn", "-a", "ddcfr", "-n", "200", "--json")
    straight = json.loads(out)
    assert resumed["iterations"] == 200
    assert resumed["exploitability"] == straight["exploitability"]


# -- specs, options and refusals -------------------------------------------------------------
def test_rule_specs_and_options(kuhn):
    assert str(parse_rule("dcfr+")) == "dcfr+:1.5,4"
    assert str(parse_rule("hs-dcfr")) == "hs-dcfr:30,1000"
    assert str(parse_rule("HS-PCFR+:15,500")) == "hs-pcfr+:15,500"
    assert str(parse_rule("ddcfr")) == "ddcfr:1000"
    assert str(make_solver(kuhn, "hs-dcfr", gamma0=15, horizon=200).estimator.rule) == \
        "hs-dcfr:15,200"
    assert str(make_solver(kuhn, "dcfr+", gamma=3).estimator.rule) == "dcfr+:1.5,3"
    for bad, message in [("hs-dcfr:30", "gamma0,horizon"), ("hs-dcfr:4,100", "gamma0"),
                         ("ddcfr:0", "horizon"), ("ddcfr:2.5", "horizon"),
                         ("dcfr+:1", "alpha,gamma")]:
        with pytest.raises(rcfr.RcfrError, match=message):
            parse_rule(bad)


@pytest.mark.parametrize("call, message", [
    (lambda g: make_solver(g, "hs-dcfr", averaging="linear"), "averaging"),
    (lambda g: make_solver(g, "es", rule="hs-dcfr").run(1), "full-width"),
    (lambda g: make_solver(g, "es", rule="dcfr+").run(1), "full-width"),
    (lambda g: make_solver(g, "rcfr", rule="ddcfr", regressor="tabular").run(1), "-a ddcfr"),
    (lambda g: rcfr.CFRSolver(g, "dcfr+", storage="int16").run(1), "int16"),
    (lambda g: make_solver(g, "ddcfr", alpha=2.0), "--alpha applies to"),
])
def test_refusals(kuhn, call, message):
    with pytest.raises(rcfr.RcfrError, match=message):
        call(kuhn)


def test_the_command_line_refuses_in_one_line(capsys):
    code, _, err = run_cli(capsys, "solve", "kuhn", "-a", "hs-pcfr+", "--gamma0", "2")
    assert "gamma0" in one_line_error(code, err)


def test_the_convergence_suite_runs_the_new_rules(tmp_path, capsys):
    """A sweep runs them (the packaged suite spec lists them): on Kuhn rcfr's ddcfr curve is the
    authors' published one."""
    spec = tmp_path / "suite.toml"
    spec.write_text('name = "suite_rules"\nfigure = "convergence_suite"\n[base]\n'
                    'iterations = 100\neval_every = 50\n[[part]]\n'
                    'grid = { game = ["kuhn"], algorithm = ["dcfr+", "hs-pcfr+", "ddcfr"] }\n')
    data_file = tmp_path / "suite.json"
    code, _, err = run_cli(capsys, "figure", "convergence_suite", "--spec", spec, "--db",
                           tmp_path / "results.db", "-o", tmp_path / "suite.png", "--data",
                           data_file)
    assert code == 0, err
    rules = json.loads(data_file.read_text())["games"]["kuhn"]["rules"]
    assert sorted(rules) == ["dcfr+", "ddcfr", "hs-pcfr+"]
    assert rules["ddcfr"]["x"] == [50, 100]
    assert rules["ddcfr"]["exploitability"][-1] == pytest.approx(
        published_value("kuhn", "ddcfr", 100), rel=1e-10)

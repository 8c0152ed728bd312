"""Re-solving on the public form (rcfr.subgame.public_resolving, rcfr.forms.public.subtree; issue
26): the public subtree's gadgets give the history form's gadget strategies, weights,
alternative values and Reach-Maxmargin gifts (same CFR+ iterations: equal up to rounding),
re-solving every subgame gives the same full-game exploitability, and a subtree compiled alone
from the game equals the one cut from the compiled tree."""

from __future__ import annotations

import numpy as np
import pytest

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate
from rcfr.forms.compile import compile_game
from rcfr.forms.public.subtree import (
    chance_cut,
    compile_subtree,
    extract_subtree,
    root_values,
)
from rcfr.lp import solve_lp
from rcfr.policy import TabularPolicy, convert_policy
from rcfr.subgame import Blueprint, find_subgames, resolve_everywhere
from rcfr.subgame.methods import METHOD_FUNCTIONS
from rcfr.subgame.public_resolving import (
    blueprint_plan,
    public_gifts,
    resolve_everywhere_public,
    resolve_public,
    solve_gadget,
)

LEDUC = "leduc(canonical=true)"
ITERS = 40
TOL = 1e-9


@pytest.fixture(scope="module")
def leduc():
    """A J.QK-abstracted CFR+ blueprint on both forms, Leduc's 15 flop subgames on both."""
    policy = rcfr.solve(LEDUC, "cfr+", 200, abstraction="J.QK").policy
    pub = compile_game(LEDUC, form="public")
    probs = convert_policy(policy, pub).probs
    bp = Blueprint(policy)
    hist = find_subgames(LEDUC, "chance:3")
    subs = [extract_subtree(pub, int(u)) for u in chance_cut(pub, 1)]
    # the public subtree of each history subgame: the one holding its information sets
    keys = [set(s.infoset_keys(0)) | set(s.infoset_keys(1)) for s in subs]
    match = []
    for sg in hist:
        own = {bp.tree.infoset_keys[int(i)] for p in (0, 1) for i in sg.infosets(bp.tree, p)}
        match.append(next(k for k, ks in enumerate(keys) if own <= ks))
    return policy, pub, probs, bp, hist, subs, match


def _by_key(tree, seqs, probs) -> dict:
    return {(tree.infoset_keys[int(tree.seq_infoset[s])], int(tree.seq_action[s])): float(p)
            for s, p in zip(seqs, probs, strict=True)}


def test_cut_and_sizes(leduc):
    """Leduc's second round on the public form: 5 lines x 3 board ranks; each subtree has
    Leduc's second-round betting (9 public terminals) and 3 root rows per player."""
    _, pub, _, _, hist, subs, match = leduc
    assert len(subs) == 15 and sorted(set(match)) == list(range(15))
    for s in subs:
        assert s.sizes()["public_terminals"] == 9
        assert list(s.num_rows) == [3, 3]
        assert s.num_infosets == 18  # 3 rows x (1 + 2) decision nodes per player


@pytest.mark.parametrize("method", ["unsafe", "resolve", "maxmargin", "reach-maxmargin"])
def test_public_gadgets_equal_history_gadgets(leduc, method):
    """Every flop subgame, both re-solvers: the same CFR+ iterations on the history form's
    gadget game and on the public subtree give the same strategy (to 1e-9), and the same
    root weights, alternative values and margins per opponent root set."""
    _, pub, probs, bp, hist, subs, match = leduc
    plan = blueprint_plan(pub, probs)
    for player in (0, 1):
        gifts = (public_gifts(pub, probs, subs, player, plan) if method == "reach-maxmargin"
                 else [None] * len(subs))
        for sg, k in zip(hist, match, strict=True):
            extra = {"subgames": hist} if method == "reach-maxmargin" else {}
            h = METHOD_FUNCTIONS[method](bp, sg, player, algorithm="cfr+", iterations=ITERS,
                                         **extra)
            p = resolve_public(pub, probs, subs[k], player, method, iterations=ITERS,
                               plan=plan, gifts=gifts[k])
            hk, pk = _by_key(bp.tree, h.sequences, h.probs), _by_key(pub, p.sequences, p.probs)
            assert hk and set(hk) <= set(pk)
            assert max(abs(hk[x] - pk[x]) for x in hk) < TOL
            # the opponent's root sets by string: the history set J is the public row r
            opp = 1 - player
            key_rows = _root_row_keys(pub, subs[k], opp)
            for j, key in enumerate(h.set_keys):
                r = key_rows[key]
                assert abs(h.set_weight[j] - p.set_weight[r]) < TOL
                if h.set_weight[j] > 0:
                    assert abs(h.alternative[j] - p.alternative[r]) < 1e-8
                    assert abs(h.gifts[j] - p.gifts[r]) < 1e-8
                    assert abs(h.margins[j] - p.margins[r]) < 1e-7


def _root_row_keys(pub, sub, player) -> dict:
    """The opponent's root information-state strings at the subtree's root, by root row."""
    state = pub._states[sub.node]
    return {state.information_state_string(player, int(x)): r
            for r, x in enumerate(sub.row_rep[player])}


@pytest.mark.parametrize("method", ["resolve", "maxmargin"])
def test_everywhere_equals_history_form(leduc, method):
    """Re-solving every flop subgame for both players: the full-game exploitability of the
    spliced strategy is the history form's (same iterations) and, with the safe methods, not
    above the blueprint's."""
    policy, pub, probs, *_ = leduc
    hist = resolve_everywhere(policy, "chance:3", method, algorithm="cfr+", iterations=ITERS)
    new, results = resolve_everywhere_public(pub, probs, method, iterations=ITERS)
    assert len(results) == 30
    e = evaluate(pub, TabularPolicy(pub, new)).exploitability
    base = evaluate(pub, TabularPolicy(pub, probs)).exploitability
    assert abs(e - hist.evaluation.exploitability) < 1e-9
    assert abs(base - hist.blueprint_evaluation.exploitability) < 1e-9
    assert e < base


# Full-game exploitability after re-solving every flop subgame of the J.QK blueprint (200
# CFR+ iterations) for both players, 40 CFR+ iterations per gadget, before the terminal arrays
# were made C-ordered (the same strategies bit for bit, sha256-checked, on the development
# machine; 1e-12 leaves room for another CPU's rounding).
BEFORE_SPEEDUP = {"unsafe": 0.5954412717052967, "resolve": 0.47571346217458116,
                  "maxmargin": 0.42475716368291005, "reach-maxmargin": 0.34841124652483674}


def test_public_resolve_shares_the_trees_compiled_kernels(leduc):
    """The gadgets and the root values call the terminal sweep with the full tree's argument
    types (C-ordered arrays, the same thread argument), so a cold first re-solve compiles it
    once, not twice (it was 129 CPU seconds for ``rcfr resolve leduc --form public``, most of it
    compiling); the re-solved strategies are those of before the change."""
    from rcfr.forms.public import terminals

    _, pub, probs, *_ = leduc
    A = pub.arrays
    assert all(a.flags.c_contiguous for a in (A.term_seq_base, A.term_stride, A.term_row_ctx))
    plan = blueprint_plan(pub, probs)
    pub.terminal_values(0, plan, np.zeros(pub.num_sequences + 2))  # the full tree's sweep
    before = set(terminals.terminal_values.signatures)
    for method, value in BEFORE_SPEEDUP.items():
        new, _ = resolve_everywhere_public(pub, probs, method, iterations=ITERS)
        e = evaluate(pub, TabularPolicy(pub, new)).exploitability
        assert e == pytest.approx(value, rel=1e-12, abs=0)
    assert set(terminals.terminal_values.signatures) == before


@pytest.mark.parametrize("method", ["resolve", "maxmargin", "reach-maxmargin"])
def test_exact_blueprint_stays_exact(method):
    """With an exact equilibrium blueprint (the LP's) every safe method's re-solve of every
    flop subgame stays an equilibrium to CFR+'s precision: the full-game exploitability after
    4,000 gadget iterations is below 2e-4 chips and below that after 1,000 (unsafe
    re-solving, on the same blueprint, is 0.058 chips exploitable)."""
    pub = compile_game(LEDUC, form="public")
    probs = convert_policy(TabularPolicy(compile_game(LEDUC), solve_lp(LEDUC).strategy),
                           pub).probs
    assert evaluate(pub, TabularPolicy(pub, probs)).exploitability < 1e-9
    gaps = []
    for iterations in (1000, 4000):
        new, results = resolve_everywhere_public(pub, probs, method, iterations=iterations)
        gaps.append(evaluate(pub, TabularPolicy(pub, new)).exploitability)
    assert gaps[1] < 2e-4 and gaps[1] < gaps[0]
    assert min(r.min_margin for r in results) > -2e-3


def test_compiled_alone_equals_cut_out():
    """2-NL Hold'em(8)'s largest flop subgame (after a limp and a check): compiled alone from
    the game it has the subtree's sizes, and its gadget gives the same strategy."""
    game = "nl_holdem2(stack=8)"
    pub = compile_game(game, form="public")
    line = [1, 1, 0, 0]  # call, check, both flop buckets (one public outcome each)
    u = 0
    for a in line:
        lo, hi = pub.node_child_start[u], pub.node_child_start[u + 1]
        u = int(lo + list(pub.node_action[lo:hi]).index(a))
    assert u in set(chance_cut(pub, 1).tolist())
    cut = extract_subtree(pub, u)
    alone = compile_subtree(game, line)
    assert cut.sizes() == alone.sizes()
    assert alone.mass == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    reach = [rng.random(25), rng.random(25)]
    probs = rcfr.solve(pub, "cfr+", 20).policy.probs
    cbv, w = root_values(cut, 1, reach[1], probs)
    for tree, sub in ((pub, cut), (alone.tree, alone)):
        s = solve_gadget(sub, "resolve", 1, reach, 30, cbv, w)
        got = _by_key(tree, s.sequences, s.probs)
        if sub is cut:
            ref = got
    assert set(ref) == set(got)
    assert max(abs(ref[k] - got[k]) for k in ref) < 1e-12


def test_refusals():
    pub = compile_game(LEDUC, form="public")
    with pytest.raises(RcfrError, match="not in the tree"):
        extract_subtree(pub, pub.num_public_nodes)
    sub = extract_subtree(pub, int(chance_cut(pub, 1)[0]))
    with pytest.raises(RcfrError, match="unknown gadget"):
        solve_gadget(sub, "nope", 0, [np.ones(3), np.ones(3)], 1)
    with pytest.raises(RcfrError, match="unknown re-solving method"):
        resolve_public(pub, np.full(pub.num_sequences, 0.5), sub, 0, "nope")
    with pytest.raises(RcfrError, match="chance level"):
        chance_cut(pub, 0)


@pytest.fixture(scope="module")
def exact():
    """Leduc's public tree, the LP equilibrium as blueprint, and its flop subgames."""
    pub = compile_game(LEDUC, form="public")
    probs = convert_policy(TabularPolicy(compile_game(LEDUC), solve_lp(LEDUC).strategy),
                           pub).probs
    subs = [extract_subtree(pub, int(u)) for u in chance_cut(pub, 1)]
    return pub, probs, blueprint_plan(pub, probs), subs


def _gadget_inputs(sub, plan, probs, player, kind):
    reach = [sub.root_reach(plan, 0), sub.root_reach(plan, 1)]
    cbv, w = root_values(sub, player, reach[player], probs)
    alt = {"unsafe": None, "resolve": cbv, "maxmargin": cbv / np.where(w > 0, w, 1.0)}[kind]
    return reach, alt, w, cbv


@pytest.mark.parametrize("algorithm", ["dcfr", "pcfr+"])
@pytest.mark.parametrize("kind", ["unsafe", "resolve", "maxmargin"])
def test_gadgets_run_any_full_width_solver(exact, algorithm, kind):
    """The gadget is a compiled game of the solver loop: DCFR and PCFR+ (2,000 iterations) on
    the first flop subgame with the exact (LP) blueprint reach gadget exploitability below
    1e-6 for both re-solvers; the gadget is zero-sum, and with the Resolve gadget the
    opponent's value is its alternatives' sum, sum_r T(r) = sum_r CBV(r) (an exact blueprint
    holds every root row to its value).  (Other flop subgames converge more slowly: up to
    7e-4 for Maxmargin after 2,000 DCFR iterations.)"""
    pub, probs, plan, subs = exact
    for player in (0, 1):
        reach, alt, w, cbv = _gadget_inputs(subs[0], plan, probs, player, kind)
        s = solve_gadget(subs[0], kind, player, reach, 2000, alt, w, algorithm=algorithm)
        assert s.iterations == 2000 and s.algorithm == algorithm
        e = evaluate(s.gadget, s.strategy)
        assert 0 <= e.exploitability < 1e-6
        values = s.gadget.values(s.strategy)
        assert abs(values[0, 0] + values[1, 0]) < 1e-12
        assert values[0, 1] >= values[0, 0] - 1e-12 and values[1, 1] >= values[1, 0] - 1e-12
        if kind == "resolve":
            assert abs(values[1 - player, 0] - cbv[w > 0].sum()) < 1e-6


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+"])
def test_gadget_fused_loop_equals_python_loop(exact, algorithm):
    """Every rule's fused gadget kernel gives the Python loop's average strategy (the
    :class:`TreePass` step and the estimator's update) bit for bit, alternating and
    simultaneous; its exploitability shrinks with iterations.  A gadget offers no capability
    beyond the contract (no sampled pass, no history nodes, no re-solving of its own)."""
    from rcfr.forms import Capability
    from rcfr.forms.public.gadget import gadget_form
    from rcfr.solvers.run import make_solver

    pub, probs, plan, subs = exact
    sub = subs[3]
    for kind in ("unsafe", "resolve", "maxmargin"):
        reach, alt, w, _ = _gadget_inputs(sub, plan, probs, 1, kind)
        form = gadget_form(sub, kind, 1, reach, alt, w)
        assert not any(form.supports(c) for c in Capability)
        for alternating in (True, False):
            fused = make_solver(form, algorithm, alternating=alternating).run(30)
            slow = make_solver(form, algorithm, alternating=alternating)
            slow.setup()
            slow.fused_ = False
            slow.run(30)
            assert fused.fused_
            assert np.array_equal(fused.average_weights(), slow.average_weights())
            assert np.array_equal(fused.strategy_, slow.strategy_)
        few = evaluate(form, make_solver(form, algorithm).run(20).average_policy())
        many = evaluate(form, make_solver(form, algorithm).run(400).average_policy())
        assert many.exploitability < few.exploitability


def test_resolve_public_takes_a_solver_and_a_time_budget(exact):
    """``resolve_public(..., algorithm=, seconds=)``: DCFR's options pass through, a time
    budget runs whole chunks, and solvers that are not full width are refused."""
    pub, probs, plan, subs = exact
    r = resolve_public(pub, probs, subs[0], 0, "maxmargin", algorithm="dcfr", iterations=50,
                       alpha=1.0, beta=1.0, gamma=1.0)
    lcfr = resolve_public(pub, probs, subs[0], 0, "maxmargin", algorithm="lcfr", iterations=50)
    assert r.algorithm == "dcfr" and r.iterations == 50
    assert np.allclose(r.probs, lcfr.probs, atol=1e-12)  # dcfr:1,1,1 is LCFR
    t = resolve_public(pub, probs, subs[0], 1, "resolve", algorithm="cfr+", seconds=0.05)
    assert t.iterations >= 8
    for bad in ("es", "lp", "rcfr"):
        with pytest.raises(RcfrError, match="full-width solver"):
            resolve_public(pub, probs, subs[0], 0, "resolve", algorithm=bad, iterations=5)


def test_cli_resolve_on_the_public_form(tmp_path, capsys):
    """``rcfr resolve --form public`` re-solves Leduc's 15 flop subgames as public subtrees:
    the same full-game exploitability as the history form after the same CFR+ iterations,
    any full-width solver (DCFR here), its file readable on either form; refusals are one
    ``error:`` line with exit 2."""
    import json

    from rcfr.cli import main

    bp, out = tmp_path / "bp.npz", tmp_path / "re.npz"
    assert main(["solve", LEDUC, "--abstraction", "J.QK", "-n", "100", "-o", str(bp)]) == 0
    capsys.readouterr()
    infos = {}
    for form in ("history", "public"):
        assert main(["resolve", LEDUC, str(bp), "--method", "resolve", "-n", "40",
                     "--form", form, "--json"]) == 0
        infos[form] = json.loads(capsys.readouterr().out)
    assert infos["public"]["subgames"] == infos["history"]["subgames"] == 15
    assert abs(infos["public"]["exploitability"] - infos["history"]["exploitability"]) < 1e-9
    assert infos["public"]["exploitability"] < infos["public"]["blueprint_exploitability"]
    assert main(["resolve", LEDUC, str(bp), "--form", "public", "-a", "dcfr", "-n", "100",
                 "--out", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["method"] == "reach-maxmargin"
    saved = TabularPolicy.load(out, LEDUC)  # written on the public form, read on the history
    assert evaluate(saved).exploitability == pytest.approx(info["exploitability"], abs=1e-12)
    for args, message in ((["-a", "lp"], "full-width solver"),
                          (["--at", "actions:2"], "chance node"),
                          (["--at", "chance:9"], "no public node")):
        assert main(["resolve", LEDUC, str(bp), "--form", "public", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error:") and message in err and len(err.splitlines()) == 1


def _gadget_runs() -> dict[str, np.ndarray]:
    """CFR+ and DCFR on each gadget of Leduc's first flop subgame, and its evaluation (run in
    a fresh interpreter by :func:`test_gadgets_in_fresh_interpreters`)."""
    pub = compile_game(LEDUC, form="public")
    sub = extract_subtree(pub, int(chance_cut(pub, 1)[0]))
    rng = np.random.default_rng(1)
    reach = [rng.random(3), rng.random(3)]
    # (made up, not from root_values: the gadget's kernels must be the first to run)
    w, cbv = 0.1 + rng.random(3), 0.1 * rng.standard_normal(3)
    out = {}
    for kind, alt in (("unsafe", None), ("resolve", cbv), ("maxmargin", cbv / w)):
        for algorithm in ("cfr+", "dcfr"):
            s = solve_gadget(sub, kind, 1, reach, 25, alt, w, algorithm=algorithm)
            out[f"{kind}-{algorithm}"] = s.strategy
            out[f"{kind}-{algorithm}-values"] = s.gadget.values(s.strategy)
    return out


def test_gadgets_in_fresh_interpreters(tmp_path):
    """The gadget kernels load from numba's cache in a fresh interpreter that has run no other
    kernel (they once crashed there: the terminal sweep's parallel kernels need the threading
    layer launched first), and give the same numbers bit for bit on 1 and 2 threads."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    runs = []
    for threads in (1, 1, 2):
        path = tmp_path / f"runs-{len(runs)}.npz"
        code = (f"import sys, numpy as np\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
                "from test_subgame_public import _gadget_runs\n"
                f"np.savez({str(path)!r}, **_gadget_runs())\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=dict(os.environ, NUMBA_NUM_THREADS=str(threads)),
                              timeout=600)
        assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
        runs.append(dict(np.load(path)))
    assert len(runs[0]) == 12
    for other in runs[1:]:
        assert set(other) == set(runs[0])
        for k in runs[0]:
            assert np.array_equal(runs[0][k], other[k]), k


def test_gadget_in_the_run_loop_with_curve_and_checkpoint(exact, tmp_path):
    """The gadget goes through ``rcfr.run.engine.solve`` like any compiled game: an
    exploitability curve that ends where the average strategy's evaluation does, a target
    that stops the run, and a checkpoint that resumes bit for bit."""
    from rcfr.forms.public.gadget import gadget_form
    from rcfr.run.engine import solve
    from rcfr.solvers.run import make_solver

    pub, probs, plan, subs = exact
    reach, alt, w, _ = _gadget_inputs(subs[0], plan, probs, 1, "maxmargin")
    form = gadget_form(subs[0], "maxmargin", 1, reach, alt, w)
    r = solve(form, "pcfr+", 200, eval_every=50)
    assert [i for i, _ in r.curve] == [50, 100, 150, 200]
    assert r.curve[-1][1] == pytest.approx(r.evaluation.exploitability, rel=1e-12)
    assert r.curve[-1][1] < r.curve[0][1]
    stop = solve(form, "pcfr+", 10_000, eval_every=50, target_exploitability=r.curve[1][1])
    assert stop.target_reached and stop.iterations == 100
    whole = make_solver(form, "dcfr").run(60)
    half = make_solver(form, "dcfr").run(30)
    half.save_checkpoint(tmp_path / "c.npz")
    resumed = make_solver(form, "dcfr").load_checkpoint(tmp_path / "c.npz").run(30)
    assert np.array_equal(whole.average_weights(), resumed.average_weights())
    assert np.array_equal(whole.strategy_, resumed.strategy_)

"""Libratus on a real-card spot, measured exactly: EMD buckets (their sizes, perfect recall,
determinism and the lifted blueprint's exploitability beside E[HS²]'s), re-solving with real
hands from an abstract blueprint (no abstraction: the blueprint's values; the safety theorem
on random abstractions), and head-to-head play valued per deal exactly."""

import json
import re

import numpy as np
import pytest

from rcfr import compile_game, load_game
from rcfr.abstraction.spot import lift_classes
from rcfr.cli import main
from rcfr.evaluate import evaluate
from rcfr.games.holdem.combos import COMBO_CARDS, NUM_COMBOS, live_combos
from rcfr.games.holdem.emd_buckets import emd_kmedians, equity_cdfs
from rcfr.games.holdem.spot_game import SpotGame, holdem_spot
from rcfr.lp import solve_lp
from rcfr.match import _mixed, match
from rcfr.policy import TabularPolicy
from rcfr.solvers.run import make_solver
from rcfr.subgame import resolve_everywhere

SPOT = "holdem_spot(spot=turn_small)"
SAFE = ("resolve", "maxmargin", "reach-maxmargin")


def _average(tree, n, algorithm="cfr+"):
    solver = make_solver(tree, algorithm)
    solver.setup()
    solver.run(n)
    return solver.average_policy()


@pytest.fixture(scope="module")
def history():
    return compile_game(SPOT, form="history")


# -- EMD buckets ---------------------------------------------------------------------------

def test_emd_buckets_sizes_recall_and_determinism():
    k = 3
    game = load_game(f"holdem_spot(spot=turn_small,buckets={k},kind=emd)")
    assert str(game) == f"holdem_spot(buckets={k},kind=emd,spot=turn_small)"
    among = (game.ranges[0] > 0) | (game.ranges[1] > 0)
    turn = game.observe(game.board)
    assert np.array_equal(turn, game.observe(game.board))  # cached or not: the same
    assert set(np.unique(turn[among]).tolist()) == set(range(k))  # 14 combos in 3 buckets
    for river in range(52):
        if river in game.board:
            continue
        board = (*game.board, river)
        cls = game.observe(board)
        ok = live_combos(board) & among
        assert np.array_equal(cls[ok] // k, turn[ok])  # perfect recall
        assert cls[ok].max() < k * k
    # the abstract spot compiles on both forms to the same information sets
    pub = compile_game(str(game), form="public")
    assert compile_game(str(game), form="history").num_infosets == pub.num_infosets
    assert pub.num_infosets < compile_game(SPOT, form="public").num_infosets


def test_emd_kmedians_is_a_fixed_point_of_the_emd_objective():
    board = tuple(load_game(SPOT).board)
    live = np.flatnonzero(live_combos(board))
    cdfs = equity_cdfs(board)[live]
    assert cdfs.shape == (1128, 50) and np.allclose(cdfs[:, -1], 1.0)
    assert np.all(np.diff(cdfs, axis=1) >= -1e-15)  # CDFs
    b = emd_kmedians(cdfs, 8)
    assert np.array_equal(b, emd_kmedians(cdfs, 8))  # seeded: the same twice
    assert b.min() == 0 and b.max() == 7
    centres = np.array([np.median(cdfs[b == j], axis=0) for j in range(8)])
    dist = np.abs(cdfs[:, None, :] - centres[None]).sum(axis=2)
    assert np.array_equal(np.argmin(dist, axis=1), b)  # every combo at its nearest centre
    mean_equity = (1.0 - centres).sum(axis=1)
    assert np.all(np.diff(mean_equity) > 0)  # numbered weakest first
    # equal histograms share a bucket (suit isomorphs: 2c2d and 2h2s on Td9d6hQc)
    _, first = np.unique(cdfs, axis=0, return_inverse=True)
    assert all(np.unique(b[first.ravel() == g]).size == 1 for g in range(first.max() + 1))


def test_emd_blueprint_beats_ehs2_at_two_buckets():
    """The lifted blueprints' exact exploitability (chips) in the real spot, CFR+ 100
    iterations on each abstraction with 2 buckets: EMD 0.199, E[HS²] 1.849."""
    real = compile_game(SPOT, form="public")
    got = {}
    for kind in ("ehs2", "emd"):
        abstract = compile_game(f"holdem_spot(spot=turn_small,buckets=2,kind={kind})",
                                form="public")
        lifted = lift_classes(real, abstract, _average(abstract, 100))
        got[kind] = evaluate(real, lifted).exploitability
    assert got["ehs2"] == pytest.approx(1.84912, abs=1e-5)
    assert got["emd"] == pytest.approx(0.199142, abs=1e-6)


def test_bad_kind_is_one_error_line(capsys):
    assert main(["games", "holdem_spot(spot=turn_small,kind=emd)"]) == 2
    assert main(["games", "holdem_spot(spot=turn_small,buckets=2,kind=ochs)"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(e.startswith("error: kind goes with buckets=K") for e in err)


# -- re-solving with real hands --------------------------------------------------------------

def test_no_abstraction_resolving_keeps_the_blueprint_values(history):
    """The blueprint solved in the real spot (the sequence-form LP), every river subgame
    re-solved with exact (LP) gadgets: Maxmargin's gadget value, the smallest margin, is the
    blueprint's own (0 to 1e-9), Resolve and Reach-Maxmargin give no root set more than its
    blueprint value, and the assembled strategy is as unexploitable as the blueprint."""
    blueprint = TabularPolicy(history, solve_lp(history).strategy)
    for method in SAFE:
        out = resolve_everywhere(blueprint, "chance:3", method, algorithm="lp")
        assert len(out.results) == 2 * 48
        assert out.blueprint_evaluation.exploitability < 1e-9
        assert out.evaluation.exploitability < 1e-9
        for r in out.results:
            assert r.min_margin >= -1e-9
            if method == "maxmargin" and r.reached.any():
                assert abs(r.min_margin) < 1e-9


class _RandomClasses(SpotGame):
    """The spot in which each combo observes a random bucket per street (seeded by the board),
    remembering its earlier ones: a random perfect-recall card abstraction."""

    seed = 0

    def observe(self, board):
        out = np.zeros(NUM_COMBOS, dtype=np.int64)
        for n in range(len(self.board), len(board) + 1):
            rng = np.random.default_rng([self.seed, *sorted(board[:n])])
            out = out * self.buckets + rng.integers(self.buckets, size=NUM_COMBOS)
        return out


@pytest.mark.parametrize("seed, k", [(1, 2), (2, 2), (3, 3)])
def test_safe_resolving_never_raises_exploitability(history, seed, k):
    """The safety theorem (Burch et al. 2014; Brown & Sandholm 2017): every river subgame
    re-solved with exact gadgets by a safe method, the assembled strategy is no more
    exploitable in the real spot than the lifted blueprint, here for random abstractions."""
    g = holdem_spot(spot="turn_small")
    game = _RandomClasses(g.board, g.ranges, g.pot, g.stack, g.root, spot="turn_small",
                          buckets=k)
    game.seed = seed
    abstract = compile_game(game, form="public")
    lifted = lift_classes(history, abstract, _average(abstract, 30)).convert(history)
    before = evaluate(history, lifted).exploitability
    assert before > 0.05  # a coarse blueprint
    for method in SAFE:
        out = resolve_everywhere(lifted, "chance:3", method, algorithm="lp")
        assert out.evaluation.exploitability <= before + 1e-9, method


def test_resolve_takes_the_abstract_blueprint(tmp_path, capsys):
    """resolve --abstraction lifts the abstract strategy itself: the same numbers as
    re-solving the lifted one that solve -o writes."""
    lifted, abstract = tmp_path / "lifted.npz", tmp_path / "abstract.npz"
    assert main(["solve", SPOT, "--abstraction", "buckets:2", "-a", "cfr+", "-n", "100",
                 "-o", str(lifted), "--out-abstract", str(abstract)]) == 0
    capsys.readouterr()
    runs = []
    for argv in ([str(lifted)], [str(abstract), "--abstraction", "buckets:2"]):
        assert main(["resolve", SPOT, *argv, "--method", "resolve", "-n", "200", "--json"]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    for key in ("blueprint_exploitability", "exploitability", "min_margin", "value"):
        assert runs[0][key] == runs[1][key], key
    assert runs[1]["blueprint_exploitability"] == pytest.approx(1.84912, abs=1e-5)
    assert main(["resolve", SPOT, str(abstract), "--abstraction", "buckets:2", "--method",
                 "resolve", "-n", "200"]) == 0
    text = capsys.readouterr().out
    assert "1.84912  (1.85% of the pot)" in text
    assert re.search(r"re-solved exploitability\s+\S+\s+\(\S+% of the pot\)", text)
    # the abstract file read as the real game's is refused, on one line
    assert main(["resolve", SPOT, str(abstract), "-n", "1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# -- head-to-head play ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def public_profiles():
    tree = compile_game(SPOT, form="public")
    return tree, _average(tree, 20), TabularPolicy.uniform(tree)


def test_deal_values_sum_to_the_profile_value(public_profiles):
    tree, a, b = public_profiles
    w0, w1 = tree.game.deal_weights
    deals = np.array([(x, y) for x in np.flatnonzero(w0) for y in np.flatnonzero(w1)
                      if not set(COMBO_CARDS[x]) & set(COMBO_CARDS[y])])
    p = w0[deals[:, 0]] * w1[deals[:, 1]]
    assert p.sum() == pytest.approx(1.0)
    pa, pb = tree.realization_plans(a.probs), tree.realization_plans(b.probs)
    v = tree.deal_values(pa, pb, deals)
    mixed = np.concatenate([a.probs[:tree.num_sequences_per_player[0]],
                            b.probs[tree.num_sequences_per_player[0]:]])
    value = evaluate(tree, TabularPolicy(tree, mixed)).value
    assert float(p @ v) == pytest.approx(value, abs=1e-9)
    assert tree.expected_value(_mixed(tree, pa, pb)) == pytest.approx(value, abs=1e-9)


def test_match_interval_holds_the_exact_value(public_profiles):
    tree, a, b = public_profiles
    r = match(a, b, 4000, seed=3)
    n0 = tree.num_sequences_per_player[0]
    value = [evaluate(tree, TabularPolicy(tree, np.concatenate([x.probs[:n0], y.probs[n0:]])))
             .value for x, y in ((a, b), (b, a))]
    assert r.exact == pytest.approx((value[0] - value[1]) / 2, abs=1e-9)
    lo, hi = r.interval
    assert lo <= r.exact <= hi and r.exact > 5.0  # CFR+ beats the uniform strategy
    assert match(a, a, 50).estimate == 0.0


def test_match_command(tmp_path, capsys):
    path = tmp_path / "a.npz"
    assert main(["solve", SPOT, "-a", "cfr+", "-n", "20", "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["match", SPOT, str(path), str(path), "--hands", "10", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["estimate"] == 0.0 and got["exact"] == 0.0 and got["hands"] == 10
    assert main(["match", "kuhn", str(path), str(path)]) == 2
    assert main(["match", SPOT, str(path), str(path), "--hands", "1"]) == 2


def test_the_docs_block_runs_as_printed(tmp_path, capsys, monkeypatch):
    """docs/real_cards.md's block on EMD buckets, the abstract blueprint and head-to-head
    play, run as printed, with its table's numbers."""
    import shlex
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "real_cards.md").read_text()
    section = doc[doc.index("\n### Distribution-aware buckets"):doc.index("\n## Building")]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    lines = [shlex.split(line) for line in block.splitlines() if line.strip()]
    assert [w[1] for w in lines] == ["solve", "resolve", "match"]
    monkeypatch.chdir(tmp_path)
    outs = []
    for words in lines:
        assert main(words[1:]) == 0
        outs.append(capsys.readouterr().out)
    table = [float(v) for v in re.findall(r"^\|[^|]+\| ([\d.]+) \|", section, re.M)]
    assert f"{table[1]:g}" in outs[0] and f"{table[1]:g}" in outs[1]
    assert re.search(rf"re-solved exploitability\s+{table[2]:g}\b", outs[1])
    est, lo, hi = (float(x) for x in re.search(
        r"per hand\s+(\S+), 95% interval \[(\S+), (\S+)\]", outs[2]).groups())
    exact = float(re.search(r"exact expectation (\S+)", outs[2]).group(1))
    assert lo <= exact <= hi
    text = " ".join(section.split())
    assert f"wins {est:.4f} chips a hand" in text and f"{lo:+.4f}"[1:] in text
    assert f"exact expectation is {exact:+.4f}" in text


def test_the_cli_docs_match_example_runs_as_printed(tmp_path, capsys, monkeypatch):
    import shlex
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    section = doc[doc.index("\n## rcfr match\n"):doc.index("\n## rcfr view\n")]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    for line in block.splitlines():
        assert main(shlex.split(line)[1:]) == 0
    out = capsys.readouterr().out
    lo, hi = (float(x) for x in re.search(r"interval \[(\S+), (\S+)\]", out).groups())
    exact = float(re.search(r"exact expectation (\S+)", out).group(1))
    assert lo <= exact <= hi and exact > 0  # the real-spot solve beats the 2-bucket one


def test_play_takes_the_abstract_blueprint(tmp_path, capsys, monkeypatch):
    """play --abstraction plays the lifted strategy: the same hands, seed for seed, as the
    lifted file solve -o writes."""
    import io
    import sys

    lifted, abstract = tmp_path / "lifted.npz", tmp_path / "abstract.npz"
    assert main(["solve", SPOT, "--abstraction", "buckets:2,kind=emd", "-a", "cfr+", "-n", "30",
                 "-o", str(lifted), "--out-abstract", str(abstract)]) == 0
    capsys.readouterr()
    got = []
    for argv in ([str(lifted)], [str(abstract), "--abstraction", "buckets:2,kind=emd"]):
        monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 40))
        assert main(["play", SPOT, *argv, "--hands", "6", "--seed", "4", "--json"]) == 0
        got.append(json.loads(capsys.readouterr().out)["payoffs"])
    assert got[0] == got[1] and len(got[0]) == 6

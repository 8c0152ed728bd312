"""Reading a solved spot (rcfr.spot_report, rcfr inspect): hand classes and categories, the
node values' identities against the exact evaluation, equity against brute force with explicit
card removal, and the docs' commands as printed."""

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from conftest import one_line_error, run_cli
from phevaluator import evaluate_cards

from rcfr import solve
from rcfr.evaluate import evaluate
from rcfr.forms.compile import compile_game
from rcfr.forms.node_values import node_values
from rcfr.games.holdem.combos import COMBO_CARDS, NUM_COMBOS, combo_from_str, live_combos
from rcfr.games.holdem.hand_classes import (
    CLASS_NAMES,
    COMBO_CLASS,
    HAND_CATEGORIES,
    combo_categories,
)
from rcfr.games.holdem.ranges import parse_range
from rcfr.policy import TabularPolicy
from rcfr.spot_report import find_node, spot_report
from rcfr.view.data import profile

RIVER = "holdem_spot(spot=river_small)"
TURN = "holdem_spot(spot=turn_small)"
DOC = (Path(__file__).resolve().parents[1] / "docs" / "real_cards.md").read_text()


@pytest.fixture(scope="session")
def river():
    """river_small after 300 DCFR iterations: (tree, probabilities)."""
    result = solve(compile_game(RIVER, "public"), "dcfr", 300)
    return result.tree, result.policy.probs


def test_the_169_classes_cover_every_combo_once():
    assert CLASS_NAMES[:2] == ("AA", "AKs") and CLASS_NAMES[13] == "AKo"
    assert CLASS_NAMES[14] == "KK" and CLASS_NAMES[168] == "22" and len(set(CLASS_NAMES)) == 169
    covered = np.zeros(NUM_COMBOS, dtype=np.int64)
    for j, name in enumerate(CLASS_NAMES):  # each class's combos as the range parser reads it
        members = parse_range(name) > 0
        assert np.array_equal(members, COMBO_CLASS == j), name
        assert members.sum() == (6 if len(name) == 2 else 4 if name[2] == "s" else 12)
        covered += members
    assert np.all(covered == 1)


@pytest.mark.parametrize("board, hands", [
    ("Td9d6h", {"TsTc": "set", "6s6c": "set", "Ts9s": "two pair", "Tc5c": "pair",
                "AdKd": "flush draw", "Jc8c": "open-ended straight draw", "KcQs": "gutshot",
                "AsKh": "overcards", "3c2c": "air", "8c7c": "straight"}),
    ("Td9d6hQc", {"Th6s": "two pair", "Kd5d": "flush draw", "AhKc": "gutshot",
                  "AhJc": "open-ended straight draw", "AsAh": "pair", "4s3s": "air"}),
    ("TdTs6hQc2s", {"Tc6c": "full house", "Th4h": "trips", "AhKh": "air", "KsJs": "air",
                    "6c6s": "full house", "3h3c": "two pair", "AdQd": "two pair"}),
])
def test_categories_of_hand_written_combos(board, hands):
    cat = combo_categories(board)
    assert {h: HAND_CATEGORIES[cat[combo_from_str(h)]] for h in hands} == hands


def test_ev_times_mass_sums_to_the_exact_value(river):
    tree, probs = river
    value = evaluate(tree, probs).value
    root = node_values(tree, probs, 0)
    assert root.cfv[0].sum() == pytest.approx(value, abs=1e-9)
    assert root.cfv[1].sum() == pytest.approx(-value, abs=1e-9)
    rep = spot_report(tree, probs, "")
    ev = np.nan_to_num(rep.ranges[0].ev)
    assert float(ev @ root.opp_mass[0]) == pytest.approx(value, abs=1e-9)
    # deeper: the node's share of each player's value (own reach times counterfactual
    # value, summed) cancel (zero-sum), and the acting player's
    # values are the full tree's counterfactual values of its information sets there
    u = find_node(tree, "check,bet 100")
    nv = node_values(tree, probs, u)
    assert nv.player == 0 and nv.reach[0].max() > 0
    share = [float(nv.reach[q] @ nv.cfv[q]) for q in (0, 1)]
    assert share[0] != 0 and share[0] == pytest.approx(-share[1], abs=1e-9)
    full = profile(tree, TabularPolicy(tree, probs), values=True)
    infos = np.flatnonzero(tree.infoset_public_node == u)
    mine = nv.cfv[0][tree.infoset_private[infos]]
    np.testing.assert_allclose(mine, full.value[infos], rtol=0, atol=1e-9)
    rep = spot_report(tree, probs, u)
    for q in (0, 1):  # EV is the value over the opponent mass met
        ok = ~np.isnan(rep.ranges[q].ev)
        np.testing.assert_allclose(rep.ranges[q].ev[ok] * nv.opp_mass[q][ok], nv.cfv[q][ok],
                                   atol=1e-9)


def _brute_equity(board, x, opp):
    """Equity of combo ``x`` against the weights ``opp``, every runout and pair of hands
    enumerated, hands ranked by phevaluator."""
    used = set(board) | set(COMBO_CARDS[x].tolist())
    left = [c for c in range(52) if c not in used]
    runouts = [()] if len(board) == 5 else [(c,) for c in left]
    won = total = 0.0
    for y in np.flatnonzero(opp).tolist():
        ys = set(COMBO_CARDS[y].tolist())
        if ys & used:
            continue
        for extra in runouts:
            if set(extra) & ys:
                continue
            full = list(board) + list(extra)
            mine = evaluate_cards(*full, *COMBO_CARDS[x].tolist())
            theirs = evaluate_cards(*full, *COMBO_CARDS[y].tolist())  # (lower is better)
            won += opp[y] * (1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
            total += opp[y]
    return won / total


def test_river_equity_equals_brute_force(river):
    tree, probs = river
    u = find_node(tree, "check,bet 100")
    rep = spot_report(tree, probs, u)
    nv = node_values(tree, probs, u)
    board = rep.board
    rng = np.random.default_rng(5)
    for q in (0, 1):
        opp = tree.game.ranges[1 - q] * nv.reach[1 - q] * (nv.weight[1 - q] > 0)
        reaching = np.flatnonzero(rep.ranges[q].reach > 0)
        for x in rng.choice(reaching, 12, replace=False).tolist():
            assert rep.ranges[q].equity[x] == pytest.approx(_brute_equity(board, x, opp),
                                                            abs=1e-12)


def test_turn_equity_averages_the_rivers():
    tree = compile_game(TURN, "public")
    probs = np.full(tree.num_sequences, 0.5)  # (every turn_small decision has two actions)
    assert np.all(tree.infoset_num_actions == 2)
    rep = spot_report(tree, probs, "check")
    opp = tree.game.ranges[0] * live_combos(rep.board)  # player 0 checked with half of each
    for x in np.flatnonzero(rep.ranges[1].reach).tolist():
        assert rep.ranges[1].equity[x] == pytest.approx(_brute_equity(rep.board, x, opp),
                                                        abs=1e-12)


def test_aggregates_are_reach_weighted(river):
    tree, probs = river
    rep = spot_report(tree, probs, "check,bet 100")
    r = rep.ranges[0]
    rows = {row["hand"]: row for row in rep.rows(0, "class")}
    assert sum(row["share"] for row in rows.values()) == pytest.approx(1.0)
    aa = (COMBO_CLASS == 0) & (r.reach > 0)
    assert rows["AA"]["combos"] == pytest.approx(r.reach[aa].sum())
    assert rows["AA"]["equity"] == pytest.approx(np.average(r.equity[aa], weights=r.reach[aa]))
    assert rows["AA"]["strategy"] == pytest.approx(
        list(np.average(r.strategy[:, aa], weights=r.reach[aa], axis=1)))
    cats = rep.rows(0, "category")
    assert sum(row["combos"] for row in cats) == pytest.approx(r.reach.sum())


def test_reading_a_solution_runs_as_printed(tmp_path, capsys, monkeypatch):
    section = DOC[DOC.index("\n## Reading a solution\n"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    lines = [shlex.split(line, comments=True) for line in block.splitlines()]
    lines = [w for w in lines if w]
    assert any(w[1] == "inspect" for w in lines)
    monkeypatch.chdir(tmp_path)
    outs = []
    for words in lines:
        code, out, err = run_cli(capsys, *words[1:])
        assert code == 0 and not err, f"{shlex.join(words)}: exit {code}\n{err}"
        outs.append(out)
    # the root's composition and OOP's equity there depend on the ranges alone
    by_category = next(o for w, o in zip(lines, outs, strict=True) if "category" in w)
    assert re.search(r"straight\t16\t8\.2%\t\S+\t97\.9%", by_category)
    assert re.search(r"air\t52\t26\.5%", by_category)
    data = json.loads(next(o for w, o in zip(lines, outs, strict=True) if "--json" in w))
    assert data["path"] == "check,bet 100" and data["pot"] == 300
    assert data["actions"] == ["fold", "call", "raise 300"]


def test_bad_input_is_one_error_line(river, tmp_path, capsys):
    tree, probs = river
    path = tmp_path / "river.npz"
    TabularPolicy(tree, probs).save(path)
    for args, says in [
        (["--node", "check,bet 99"], "no 'bet 99' at check"),
        (["--node", "check,check"], "not a decision node"),
        (["--node", "999"], "27 public nodes"),
        (["--by", "suit"], "--by is class, category, combo"),
    ]:
        line = one_line_error(*run_cli(capsys, "inspect", RIVER, path, *args)[::2])
        assert says in line, line
    line = one_line_error(*run_cli(capsys, "inspect", "holdem_spot(spot=basic_river)",
                                   path)[::2])
    assert "holds a strategy for" in line


def test_the_viewer_shows_the_classes_numbers(river):
    from rcfr.view import data as D

    tree, probs = river
    view = D.public_nodes(tree)
    extra = D.spot_classes(tree, probs)
    records = {}
    for _, text in D.public_chunks(tree, view, [D.profile(tree, TabularPolicy(tree, probs),
                                                          False)], extra):
        records.update(json.loads(text))
    u = find_node(tree, "check,bet 100")
    hc = records[str(u)]["hc"]
    rows = {row["hand"]: row for row in spot_report(tree, probs, u).rows(0, "class")}
    assert len(hc["ev"]) == 169 and sum(x is not None for x in hc["ev"]) == len(rows)
    for name, row in rows.items():
        j = CLASS_NAMES.index(name)
        assert hc["ev"][j] == pytest.approx(row["ev"], rel=1e-5)
        assert hc["eq"][j] == pytest.approx(row["equity"], rel=1e-5)
    assert D.spot_classes(compile_game("kuhn", "public"), None) is None

"""The papers' figures (rcfr.figures): data on tiny settings, PNG output, bad parameters."""

import importlib.util
import json
import math

import pytest

import rcfr
from rcfr.errors import RcfrError
from rcfr.figures import (
    FIGURES,
    convergence,
    frcfr_links,
    mccfr_nodes,
    plot,
    rcfr_complexity,
)

needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="matplotlib is not installed")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _finite_numbers(values):
    return all(isinstance(v, (int, float)) and math.isfinite(v) for v in values)


@pytest.fixture(scope="module")
def complexity_data():
    calls = []
    data = rcfr_complexity(iterations=100, shares=(0.1, 0.8),
                           progress=lambda done, total, label: calls.append((done, total)))
    return data, calls


@pytest.fixture(scope="module")
def nodes_data():
    return mccfr_nodes(budget=100_000, points=3, seeds=2)


@pytest.fixture(scope="module")
def links_data():
    return frcfr_links(iterations=100, partitions=(2, 16), links=("poly:2", "exp:1"))


@pytest.fixture(scope="module")
def convergence_data():
    return convergence(game="kuhn", iterations=300, points=6,
                       algorithms=("cfr", "cfr+", "rcfr+"), share=0.5)


def test_registry():
    assert set(FIGURES) == {"rcfr_complexity", "mccfr_nodes", "frcfr_links", "convergence"}
    for description, function in FIGURES.values():
        assert isinstance(description, str) and description and "\n" not in description
        assert callable(function)


def test_rcfr_complexity(complexity_data):
    data, calls = complexity_data
    assert data["figure"] == "rcfr_complexity"
    assert data["game"] == "leduc(canonical=true)"
    assert data["shares"] == [0.1, 0.8] and data["iterations"] == 100
    assert set(data["series"]) == {"RCFR", "RCFR (bootstrap)", "RCFR+", "RCFR+ (bootstrap)"}
    for row in data["series"].values():
        for key in ("leaves", "complexity", "complexity_share", "exploitability"):
            assert len(row[key]) == 2 and _finite_numbers(row[key])
        assert row["leaves"] == [67, 538]  # 10% and 80% of the 672 sequences
        assert all(0 < s <= 1 for s in row["complexity_share"])
        assert all(c <= leaves for c, leaves in zip(row["complexity"], row["leaves"], strict=True))
        assert all(e >= 0 for e in row["exploitability"])
    plus = data["series"]["RCFR+"]["exploitability"]
    assert plus[1] < plus[0]  # a larger tree estimates the Q-regrets better
    plain = data["series"]["RCFR"]["exploitability"]
    assert plus[0] < plain[0]  # RCFR+ beats RCFR at a moderate complexity (thesis, sec. 4)
    reference = data["reference"]["exploitability"]
    assert 0 < reference <= min(plus) * (1 + 1e-9)
    # at 80% the tree fits the Q-regrets exactly (with fewer leaves than allowed), so RCFR+
    # is CFR+ with uniform averaging (thesis, sec. 4: "less than 80% ... was all that was
    # required to perfectly estimate the Q-regrets")
    assert data["series"]["RCFR+"]["complexity"][1] < 538
    assert plus[1] == pytest.approx(reference, rel=1e-6)
    assert data["uniform_exploitability"] == pytest.approx(2.373611111111111)
    # one progress call per run (4 variants x 2 shares + the CFR+ reference)
    assert calls == [(k, 9) for k in range(1, 10)]


def test_mccfr_nodes(nodes_data):
    data = nodes_data
    assert data["figure"] == "mccfr_nodes" and data["game"] == "nl_one_card"
    assert data["budgets"] == [100, 3162, 100_000] and data["seeds"] == 2
    assert list(data["series"]) == ["cs", "es", "os", "as"]
    uniform = data["uniform_exploitability"]
    for scheme, row in data["series"].items():
        assert len(row["nodes"]) == len(row["exploitability"]) == len(row["ci95"]) == 3
        assert all(len(runs) == 2 for runs in row["runs"])
        assert all(b > a for a, b in zip(row["nodes"], row["nodes"][1:], strict=False)), scheme
        assert row["nodes"][-1] >= 100_000
        assert all(h >= 0 for h in row["ci95"])
        assert row["exploitability"][-1] < uniform, scheme
        assert max(row["runs"][-1]) < uniform, scheme


def test_mccfr_nodes_reuses_nodes_curve(nodes_data):
    from rcfr.solvers.sampling import nodes_curve

    curve = nodes_curve("nl_one_card", "as", nodes_data["budgets"], seed=1)
    assert [e for _, e in curve] == [runs[1] for runs in nodes_data["series"]["as"]["runs"]]


def test_frcfr_links(links_data):
    data = links_data
    assert data["figure"] == "frcfr_links" and data["partitions"] == [2, 16]
    assert list(data["series"]) == ["poly:2", "exp:1"]
    for row in data["series"].values():
        assert len(row["exploitability"]) == len(row["runs"]) == len(row["complexity"]) == 2
        assert row["complexity"][1] > row["complexity"][0]
        # more partitions, less approximation error
        assert row["exploitability"][1] < row["exploitability"][0]
    assert data["reference"]["label"] == "CFR (tabular)"


@pytest.mark.parametrize("game, partitions", [
    ("leduc(canonical=true)", [4, 6, 8, 10, 12, 16]),  # 144 information sets a player
    ("leduc", [10, 20, 30, 40, 50]),  # D'Orazio et al.'s range (468 a player)
])
def test_frcfr_default_partitions(game, partitions):
    data = frcfr_links(game=game, iterations=1, links=("poly:2",))
    assert data["partitions"] == partitions
    # 10 buckets a partition, one ridge model per player and action (3 actions in Leduc)
    assert data["series"]["poly:2"]["complexity"] == [2 * 3 * 10 * k for k in partitions]


def test_convergence(convergence_data):
    data = convergence_data
    assert data["figure"] == "convergence" and data["game"] == "kuhn"
    assert list(data["series"]) == ["cfr", "cfr+", "rcfr+"]
    for name, row in data["series"].items():
        its = row["iterations"]
        assert its[0] == 1 and its[-1] == 300 and its == sorted(set(its))
        assert len(row["exploitability"]) == len(its)
        curve = row["exploitability"]
        assert curve[-1] < curve[0] / 10, name  # decreases overall
        assert curve[0] == pytest.approx(data["uniform_exploitability"])
    assert data["series"]["rcfr+"]["complexity_share"] <= 0.5
    assert data["series"]["cfr+"]["exploitability"][-1] < data["series"]["cfr"][
        "exploitability"][-1]


@pytest.mark.parametrize("which", ["complexity", "nodes", "links", "convergence"])
def test_data_is_plain_json(which, complexity_data, nodes_data, links_data, convergence_data):
    data = {"complexity": complexity_data[0], "nodes": nodes_data, "links": links_data,
            "convergence": convergence_data}[which]
    assert json.loads(json.dumps(data, allow_nan=False)) == data


@needs_matplotlib
@pytest.mark.parametrize("which", ["complexity", "nodes", "links", "convergence"])
def test_plot_writes_png(which, tmp_path, complexity_data, nodes_data, links_data,
                         convergence_data):
    data = {"complexity": complexity_data[0], "nodes": nodes_data, "links": links_data,
            "convergence": convergence_data}[which]
    out = tmp_path / f"{which}.png"
    plot(json.loads(json.dumps(data)), out)  # also from data read back from JSON
    assert out.read_bytes()[:8] == PNG_SIGNATURE
    assert out.stat().st_size > 10_000
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left
    plot(data, str(out))  # overwrite in place
    assert out.read_bytes()[:8] == PNG_SIGNATURE
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


@needs_matplotlib
def test_plot_errors(tmp_path, convergence_data):
    with pytest.raises(RcfrError, match="not figure data"):
        plot({"figure": "nope"}, tmp_path / "x.png")
    with pytest.raises(RcfrError, match="does not exist"):
        plot(convergence_data, tmp_path / "missing" / "x.png")
    with pytest.raises(RcfrError, match="directory"):
        plot(convergence_data, tmp_path)
    broken = dict(convergence_data, series={"cfr": {"iterations": [1, 2]}})
    with pytest.raises(RcfrError, match="malformed convergence data"):
        plot(broken, tmp_path / "x.png")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("call, message", [
    (lambda: rcfr_complexity(game="kuhn"), "rcfr_complexity runs on"),
    (lambda: rcfr_complexity(game="no_such_game"), "unknown game"),
    (lambda: rcfr_complexity(shares=(0.0, 0.5)), r"share must be in \(0, 1\]"),
    (lambda: rcfr_complexity(shares=(0.5, 1.5)), r"share must be in \(0, 1\]"),
    (lambda: rcfr_complexity(shares=()), "non-empty"),
    (lambda: rcfr_complexity(iterations=0), "iterations"),
    (lambda: rcfr_complexity(iterations=2.5), "iterations"),
    (lambda: rcfr_complexity(variants=("BF",)), "unknown RCFR variant"),
    (lambda: mccfr_nodes(game="leduc"), "mccfr_nodes runs on"),
    (lambda: mccfr_nodes(schemes=("cs", "xs")), "unknown sampling scheme"),
    (lambda: mccfr_nodes(budget=-5), "node budget"),
    (lambda: mccfr_nodes(budget=1.5e4 + 0.5), "node budget"),
    (lambda: mccfr_nodes(seeds=0), "seeds"),
    (lambda: mccfr_nodes(points=True), "points"),
    (lambda: frcfr_links(game="nl_one_card"), "frcfr_links runs on"),
    (lambda: frcfr_links(links=("poly:1",)), "p > 1"),
    (lambda: frcfr_links(links=("exp:0",)), "temperature"),
    (lambda: frcfr_links(partitions=(0, 4)), "partitions"),
    (lambda: convergence(game="no_such_game"), "unknown game"),
    (lambda: convergence(algorithms=("cfr", "dcfr")), "unknown algorithm"),
    (lambda: convergence(share=0), r"share must be in \(0, 1\]"),
    (lambda: convergence(points=0), "points"),
])
def test_bad_parameters(call, message):
    with pytest.raises(RcfrError, match=message) as info:
        call()
    assert "\n" not in str(info.value)


def test_budget_as_float_and_game_variants():
    data = mccfr_nodes(game="liars_dice", schemes=("es",), budget=3e3, points=2, seeds=1)
    assert data["budgets"] == [3, 3000] and data["game"] == "liars_dice"
    assert data["big_blind"] is None
    tree = rcfr.compile_game("nl_one_card")
    assert mccfr_nodes(game=tree, schemes=("as",), budget=1000, points=1, seeds=1)[
        "budgets"] == [1000]

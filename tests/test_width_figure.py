"""The full-width-against-sampling figure (issue 23): a full-width iteration counts every
history it walks, once per player updated, so its curve sits on the same node axis as the
sampling schemes' (Gibson et al. 2012 count a sampled pass's histories the same way)."""
import json

import pytest
from conftest import run_cli

import rcfr
from rcfr.experiments.figures import collect, figure_spec, load_spec, plot
from rcfr.experiments.report import thin
from rcfr.experiments.store import Store

SPEC = """
name = "width_leduc_test"
figure = "width_vs_sampling"

[base]
game = "leduc"
nodes = 400000
eval_log = 2

[[part]]
grid = { algorithm = ["dcfr", "cfr+"] }

[[part]]
seeds = 2
grid = { algorithm = ["es"] }
"""


@pytest.fixture(scope="module")
def width_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("width")
    spec = folder / "width.toml"
    spec.write_text(SPEC)
    return folder, spec


def test_full_width_and_sampled_curves_share_the_node_axis(width_store, capsys):
    folder, spec = width_store
    db = folder / "r.db"
    code, out, err = run_cli(capsys, "sweep", spec, "--db", db)
    assert code == 0, err
    sweep = load_spec(spec)
    with Store(db) as store:
        data = collect(sweep, store)
    assert data["done"] == 4 and set(data["panels"]) == {"nodes", "seconds"}
    histories = rcfr.compile_game("leduc").sizes()["histories"]
    assert histories == 9457
    with Store(db) as store:
        for run in store.runs(hashes=sweep.hashes()):
            points = store.points(run["hash"])
            assert points, run["spec"]
            for p in points:
                if run["spec"]["algorithm"] in ("dcfr", "cfr+"):
                    # alternating updates: one full walk per player and iteration
                    assert p["nodes"] == 2 * histories * p["iterations"]
                else:
                    assert p["nodes"] < 2 * histories * p["iterations"]
            assert run["nodes"] >= 400000
    nodes, seconds = data["panels"]["nodes"]["series"], data["panels"]["seconds"]["series"]
    assert set(nodes) == set(seconds) and len(nodes) == 3  # DCFR, CFR+, ES (2 seeds)
    for label, row in nodes.items():
        assert row["x"] == sorted(row["x"]) and seconds[label]["x"] == sorted(seconds[label]["x"])
        # the same runs: the same exploitabilities on both axes
        assert row["exploitability"] == seconds[label]["exploitability"]
    assert [row["seeds"] for row in nodes.values()].count(2) == 1
    # thinned for the committed report data, and plotted with two panels
    thinned = thin(data, keep=2)
    assert all(len(r["x"]) <= 2 for p in thinned["panels"].values() for r in p["series"].values())
    json.dumps(thinned)
    plot(data, folder / "width.png")
    assert (folder / "width.png").read_bytes()[:4] == b"\x89PNG"


def test_the_packaged_width_specs_expand():
    for name, game, runs in (("width_holdem20", "nl_holdem2(stack=20)", 9),
                             ("width_holdem36", "nl_holdem2(stack=36)", 8)):
        for quick in (False, True):
            sweep = figure_spec(name, quick=quick)
            assert sweep.figure == "width_vs_sampling"
            assert len(sweep.runs) == runs and {r.game for r in sweep.runs} == {game}
            algorithms = sorted(r.algorithm for r in sweep.runs)
            predictive = ["pcfr+"] if name == "width_holdem20" else []  # (k = 36: > 24 GB)
            assert algorithms == ["as"] * 3 + ["cfr+", "dcfr"] + ["es"] * 3 + predictive
            if name == "width_holdem36" and quick:  # the full width further than sampling
                budgets = {r.algorithm: r.nodes for r in sweep.runs}
                assert budgets == {"dcfr": 1e11, "cfr+": 1e11, "es": 1e9, "as": 1e9}
                assert {r.dtype for r in sweep.runs} == {"float32"}

"""D'Orazio et al.'s figures from a sweep store: final exploitability by partitions per link
(Fig. 2 right) beside the cumulative regression error that each run records (Fig. 1)."""
from conftest import run_cli

import rcfr
from rcfr.experiments.figures import collect, load_spec, plot
from rcfr.experiments.store import Store

SPEC = """
name = "frcfr_kuhn_test"
figure = "frcfr_links"
seeds = 2

[base]
game = "kuhn"
iterations = 200

[[part]]
base = { algorithm = "rcfr", regressor = "ridge" }
grid.features = ["hashing:1", "hashing:3"]
grid.link = ["poly:2", "exp:1"]

[[part]]
base = { algorithm = "cfr", averaging = "uniform" }
seeds = [0]
"""


def test_the_links_figure_shows_each_runs_regression_error(tmp_path, capsys):
    spec = tmp_path / "frcfr.toml"
    spec.write_text(SPEC)
    db = tmp_path / "r.db"
    code, _, err = run_cli(capsys, "sweep", spec, "--db", db)
    assert code == 0, err
    sweep = load_spec(spec)
    with Store(db) as store:
        data = collect(sweep, store)
        rows = store.runs(hashes=sweep.hashes())
    assert data["done"] == 9
    # the stored error is the solver's own: rerun one cell directly
    cell = next(r for r in rows if r["spec"].get("features") == "hashing:1"
                and r["spec"].get("link") == "exp:1" and r["spec"]["seed"] == 1)
    direct = rcfr.solve("kuhn", "rcfr", 200, regressor="ridge", features="hashing:1",
                        link="exp:1", seed=1)
    assert cell["regression_error"] == direct.solver.estimator_.error_ > 0
    assert next(r for r in rows if r["spec"]["algorithm"] == "cfr")["regression_error"] is None
    errors = data["errors"]
    assert set(errors) == {"poly:2", "exp:1"} and all(
        row["partitions"] == [1, 3] and [len(v) for v in row["runs"]] == [2, 2]
        for row in errors.values())
    assert sorted(errors["exp:1"]["runs"][0]) == sorted(
        r["regression_error"] for r in rows if r["spec"].get("features") == "hashing:1"
        and r["spec"].get("link") == "exp:1")
    code, out, _ = run_cli(capsys, "results", "--db", db)  # the column, where stored
    header, *lines = out.splitlines()
    assert code == 0 and header.endswith("complexity\tregression error")
    assert f"\t{cell['regression_error']:.4g}" in next(
        line for line in lines if line.startswith(cell["hash"][:12]))
    plot(data, tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"

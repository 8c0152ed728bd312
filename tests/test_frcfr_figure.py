"""D'Orazio et al.'s figures from a sweep store: the best link's curve per number of partitions
(Fig. 2 left), final exploitability by partitions per link (Fig. 2 right) and the cumulative
regression error that each run records (Fig. 1)."""
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
eval_log = 4

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
    # Fig. 2 (left): per partitions the link of lowest mean final exploitability, its curve
    best = data["best"]
    for k in (1, 3):
        finals = {link: sum(r["exploitability"] for r in rows if r["spec"].get("link") == link
                            and r["spec"].get("features") == f"hashing:{k}") / 2
                  for link in ("poly:2", "exp:1")}
        (key,) = [key for key in best if key.startswith(f"{k}:")]
        assert key == f"{k}:{min(finals, key=finals.get)}"
        assert best[key]["seeds"] == 2 and best[key]["x"][-1] == 200
        assert abs(best[key]["exploitability"][-1] - min(finals.values())) < 1e-12
    code, out, _ = run_cli(capsys, "results", "--db", db)  # the column, where stored
    header, *lines = out.splitlines()
    assert code == 0 and header.endswith("complexity\tregression error")
    assert f"\t{cell['regression_error']:.4g}" in next(
        line for line in lines if line.startswith(cell["hash"][:12]))
    plot(data, tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"

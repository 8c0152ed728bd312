"""The reproduction report: figures read from the store, the claims table, the HTML page
(parsed, and rendered in headless Chromium when it is installed) and its Markdown twin."""

import base64
import json
import shutil
import statistics
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rcfr.cli import main
from rcfr.core.errors import RcfrError
from rcfr.experiments import RunSpec, Store, SweepSpec, load_sweep, run_sweep
from rcfr.experiments.claims import Context, Dataset, Run
from rcfr.experiments.evidence import (
    AT_BUDGET,
    BELOW_BUDGET,
    DEPENDS,
    EXACT,
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    LEVELS,
    NO_DATA,
    NO_DATA_LEVEL,
    Budget,
    below,
    below_everywhere,
    compare_budget,
    qualify,
    ratio_text,
)
from rcfr.experiments.figures import KINDS, collect, figure_names, figure_spec
from rcfr.experiments.judge import Claim, judge_all, load_claims
from rcfr.experiments.report import (
    CLAIMS,
    COLUMNS,
    load_export,
    render_docs_page,
    summary_line,
    write_report,
)

PNG = b"\x89PNG\r\n\x1a\n"
CHROMIUM = Path("/usr/bin/chromium")

# tiny stand-ins for two paper figures (same plot kinds and claim checks, seconds to run)
THESIS = """
name = "thesis_4_1_quick"
figure = "rcfr_complexity"
[base]
game = "leduc(canonical=true)"
iterations = 60
averaging = "uniform"
[[part]]
base = { regressor = "best-first", features = "thesis" }
grid = { share = [0.1, 0.8] }
zip = { algorithm = ["rcfr", "rcfr+"], bootstrap = [false, false] }
[[part]]
base = { algorithm = "cfr+", abstraction = "J.QK" }
[[part]]
base = { algorithm = "cfr+" }
"""
GIBSON = """
name = "gibson_bluff_quick"
figure = "mccfr_nodes"
seeds = 3
[base]
game = "kuhn"
nodes = 20000
eval_log = 2
[grid]
algorithm = ["cs", "as"]
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    specs = root / "experiments"
    specs.mkdir()
    (specs / "thesis_4_1_quick.toml").write_text(THESIS)
    (specs / "gibson_bluff_quick.toml").write_text(GIBSON)
    patch = pytest.MonkeyPatch()
    patch.setenv("RCFR_EXPERIMENTS", str(specs))
    db = root / "results.db"
    with Store(db) as store:
        both = [load_sweep(specs / f"{name}.toml") for name in ("thesis_4_1_quick",
                                                                 "gibson_bluff_quick")]
        run_sweep(SweepSpec("both", both[0].runs + both[1].runs), store, backend="inline")
        info = write_report(store, root / "out", claims=True)
    yield root, db, info
    patch.undo()


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.rows, self._row, self._cell = [], [], None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs)
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None


def test_figures_are_found_and_read_back(report):
    root, db, _ = report
    assert figure_names() == ["gibson_bluff", "thesis_4_1"]
    with Store(db) as store:
        data = collect(figure_spec("thesis_4_1", quick=True), store)
        assert data["runs"] == 6 and data["done"] == 6 and not data["failed"]
        assert set(data["series"]) == {"BF", "BF+"}
        assert [r["label"] for r in data["references"]] == ["FULL+ (CFR+, uniform averaging)"]
        assert data["unit"] == "exploitability (mbb/g)" and data["scale"] == 1000.0
        for row in data["series"].values():
            assert row["requested"] == [0.1, 0.8]
            # leaves used never exceed the budget (share x 672 canonical sequences)
            assert all(round(u * 672) <= round(r * 672) for u, r in zip(
                row["used"], row["requested"], strict=True))
        # thesis 4.3: at 80% the tree fits the Q-regrets exactly, so RCFR+ is FULL+ (CFR+ with
        # uniform averaging); at 10% RCFR+ beats RCFR
        plus, plain = data["series"]["BF+"], data["series"]["BF"]
        full = data["references"][0]["exploitability"]
        assert plus["used"][1] < 0.8 and plus["exploitability"][1] == pytest.approx(full,
                                                                                    rel=1e-6)
        assert plus["exploitability"][0] < plain["exploitability"][0]
        curves = collect(figure_spec("gibson_bluff", quick=True), store)
        assert set(curves["series"]) == {"CS", "AS"}
        assert curves["uniform"] == pytest.approx(0.4583333333333333)
        # the uniform line is computed once per game and then read from beside the store
        (kept,) = store.files.glob("uniform-*.json")
        assert json.loads(kept.read_text()) == {"game": "kuhn",
                                                "exploitability": curves["uniform"]}
        kept.write_text(json.dumps({"game": "kuhn", "exploitability": 0.25}))
        assert collect(figure_spec("gibson_bluff", quick=True), store)["uniform"] == 0.25
        finals = {}
        for r in store.runs(hashes=figure_spec("gibson_bluff", quick=True).hashes()):
            finals.setdefault(r["spec"]["algorithm"].upper(), []).append(r["exploitability"])
        for name, row in curves["series"].items():  # the runs' own final points, averaged
            assert row["final"] == pytest.approx(sum(finals[name]) / 3, rel=1e-12)
        for row in curves["series"].values():
            assert row["seeds"] == 3 and row["label"].endswith("(mean ± 95% CI, 3 seeds)")
            assert all(h is not None and h >= 0 for h in row["ci95"])
            assert row["x"] == sorted(row["x"])
        assert json.loads(json.dumps(curves)) == curves


def test_report_page_and_markdown(report):
    root, db, info = report
    out = root / "out"
    assert sorted(info["figures"]) == ["gibson_bluff_quick", "thesis_4_1_quick"]
    page = _Page()
    page.feed((out / "report.html").read_text())
    assert len(page.images) == 2
    for img in page.images:
        head, data = img["src"].split(",", 1)
        assert head == "data:image/png;base64"
        assert base64.b64decode(data)[:8] == PNG  # self-contained: embedded PNGs
    header, *rows = page.rows
    assert header == list(COLUMNS)
    assert len(rows) == len(CLAIMS) >= 64
    by_id = {r[0]: r for r in rows}
    levels = {r[5].split(":")[0] for r in rows}
    assert levels <= set(LEVELS)
    for r in rows:  # below the paper's budget a verdict always names the budget
        if r[5].startswith("below paper budget"):
            assert r[6] != "fails" and " at " in r[6] and "of the paper's" in r[6]
    # the thesis stand-in runs 60 iterations of Leduc: evidence about that budget only
    assert by_id["M8"][5].startswith("below paper budget: 1/1,667 of the paper's iterations")
    # exact facts are computed, whatever the runs say
    assert by_id["M2"][4] == "-85.61 mbb/g (sequence-form LP)" and by_id["M2"][6] == "holds"
    assert by_id["G8"][4] == "0.7807" and by_id["G8"][6] == "holds"
    # the Bluff stand-in is Kuhn poker: no Bluff claim is judged from it
    assert by_id["G22"][5] == "no data" and "not judged from other games" in by_id["G22"][7]
    assert by_id["G9"][6] == "unexplained"
    md = (out / "report.md").read_text()
    assert summary_line(info["summary"]) in md
    assert md.count("\n| M") + md.count("\n| G") + md.count("\n| D") + md.count("\n| C") \
        + md.count("\n| X") >= len(CLAIMS)
    for name in info["figures"]:
        assert f"![{name}]({name}.png)" in md
        assert (out / f"{name}.png").read_bytes()[:8] == PNG


def test_report_command(report, capsys, monkeypatch):
    root, db, claimed = report
    # by default the store's own runs, without judging the papers' claims (minutes)
    import rcfr.experiments.report as report_module

    judge = report_module.judge_all
    monkeypatch.setattr(report_module, "judge_all", lambda ctx: pytest.fail("judged claims"))
    code = main(["report", "--db", str(db), "-o", str(root / "again"), "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and Path(info["html"]).is_file() and "claims" not in info
    with Store(db) as store:
        stored = store.runs()
    assert [r["hash"] for r in info["runs"]] == [r["hash"] for r in stored] and len(stored) == 12
    assert {r["status"] for r in info["runs"]} == {"done"}
    md = (root / "again" / "report.md").read_text()
    assert "**12 runs: 12 done**" in md and "Claims of the papers" not in md
    first = stored[0]
    assert (f"| {first['hash'][:12]} | {RunSpec.from_dict(first['spec']).label()} | done | "
            f"{first['iterations']:,} |") in md
    page = _Page()
    page.feed((root / "again" / "report.html").read_text())
    assert page.rows[0] == ["hash", "run", "status", "iterations", "nodes", "seconds",
                            "exploitability", "value"] and len(page.rows) == 13
    docs = root / "docs"
    docs.mkdir()
    code = main(["report", "--db", str(db), "-o", str(root / "third"), "--docs", str(docs)])
    assert code == 2 and "add --claims" in capsys.readouterr().err
    monkeypatch.setattr(report_module, "judge_all", judge)
    code = main(["report", "--db", str(db), "-o", str(root / "third"), "--claims", "--docs",
                 str(docs)])
    assert code == 0, capsys.readouterr().err
    export = json.loads((docs / "data" / "reproduction.json").read_text())
    assert len(export["claims"]) == len(claimed["claims"]) > 60  # every claim, as the report
    assert main(["report", "--db", str(root / "none.db")]) == 2
    assert "no results database" in capsys.readouterr().err


def test_figure_command_plots_from_the_store(report, capsys, tmp_path):
    root, db, _ = report
    png = tmp_path / "t.png"
    code = main(["figure", "thesis_4_1", "--quick", "--db", str(db), "-o", str(png), "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and info["to_run"] == 0 and info["ran"] == 0  # the store has every run
    assert png.read_bytes()[:8] == PNG
    code = main(["figure", "thesis_4_1", "--quick", "--db", str(db), "--share", "0.5"])
    err = capsys.readouterr().err
    assert code == 2 and "--share applies to convergence" in err
    assert main(["figure", "nope", "--db", str(db)]) == 2
    assert "unknown figure" in capsys.readouterr().err
    # a spec of one's own: no NAME needed; --help names every plot kind it may use
    own = root / "experiments" / "gibson_bluff_quick.toml"
    code = main(["figure", "--spec", str(own), "--db", str(db), "--no-run", "-o",
                 str(tmp_path / "own.png")])
    assert code == 0 and (tmp_path / "own.png").read_bytes()[:8] == PNG
    assert main(["figure", "--db", str(db)]) == 2
    assert "give a figure NAME" in capsys.readouterr().err
    assert main(["figure", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert all(f"{kind}:" in text for kind in KINDS)


@pytest.mark.skipif(not CHROMIUM.is_file(), reason="Chromium is not installed at "
                    "/usr/bin/chromium (Debian package chromium); the page is still parsed")
def test_report_renders_in_chromium(report, tmp_path):
    root, _, _ = report
    page = root / "out" / "report.html"
    # a script counts the images that decoded; Chromium prints the DOM after it ran
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace(
        "</body>", "<script>window.onload=()=>{const i=[...document.images];"
        "document.title='loaded '+i.filter(x=>x.complete&&x.naturalWidth>0).length+' of '"
        "+i.length;}</script></body>"))
    result = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget="
         "5000", "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr[-500:]
    assert "<title>loaded 2 of 2</title>" in result.stdout
    shutil.rmtree(tmp_path, ignore_errors=True)


# -- verdict logic on hand-made stores --------------------------------------------------------
def _run(spec: dict, exploitability: float, curve=None, share=None, value=None) -> Run:
    return Run(spec, exploitability, value, share, spec.get("iterations"), spec.get("nodes"),
               1.0, list(curve or [exploitability]))


def _thesis(iterations: int, plus: float, plain: float, name="thesis_4_1_quick",
            paper=False, planned=4, game="leduc(canonical=true)") -> Dataset:
    base = {"game": game, "iterations": iterations, "regressor": "best-first",
            "features": "thesis", "averaging": "uniform"}
    runs = [_run({**base, "algorithm": "rcfr+", "share": 0.1}, plus, share=0.1),
            _run({**base, "algorithm": "rcfr", "share": 0.1}, plain, share=0.1),
            _run({"game": game, "iterations": iterations, "algorithm": "cfr+",
                  "averaging": "uniform"}, 0.001, value=-0.5)]  # a FULL+ far from the value
    return Dataset("thesis_4_1", name, paper, game, runs, planned)


def _judge(*datasets: Dataset, ids: tuple[str, ...]) -> dict[str, dict]:
    claims = [c for c in CLAIMS if c.id in ids]
    return {r["id"]: r for r in judge_all(Context.of(datasets), claims)}


def test_exact_claims_are_judged_by_the_exact_computation_whatever_the_runs_say():
    rows = _judge(_thesis(100_000, 0.01, 0.02, paper=True), ids=("M1", "M2", "M5", "D1"))
    # the FULL+ run's value (-500 mbb/g) is ignored: the LP says -85.6
    assert rows["M2"]["level"] == EXACT and rows["M2"]["verdict"] == HOLDS
    assert rows["M2"]["ours"].startswith("-85.61")
    assert all(r["level"] == EXACT and r["verdict"] == HOLDS for r in rows.values())


def test_a_claim_at_a_tenth_of_the_papers_budget_is_never_rated_fails():
    # RCFR+ worse than RCFR at 10,000 iterations: evidence about that budget only
    rows = _judge(_thesis(10_000, 0.05, 0.02), ids=("M8",))
    row = rows["M8"]
    assert row["level"] == BELOW_BUDGET and row["verdict"] == FAILS
    assert row["shown"] == "fails at 1/10 of the paper's iterations" != "fails"
    assert "1/10 of the paper's iterations (10,000 iterations of 100,000" in row["budget"]
    # the same runs at the paper's budget fail outright
    at = _judge(_thesis(100_000, 0.05, 0.02, name="thesis_4_1", paper=True, planned=3),
                ids=("M8",))["M8"]
    assert at["level"] == AT_BUDGET and at["shown"] == FAILS


def test_a_partial_paper_sweep_that_holds_is_inconclusive_and_cites_the_quick_twin():
    paper = _thesis(100_000, 0.01, 0.02, name="thesis_4_1", paper=True, planned=59)
    quick = _thesis(1_000, 0.05, 0.02)
    row = _judge(paper, quick, ids=("M8",))["M8"]
    assert row["level"] == AT_BUDGET and row["verdict"] == INCONCLUSIVE
    assert "3 of 59 runs done" in row["note"]
    assert "quick spec thesis_4_1_quick (1/100 of the paper's iterations): fails" in row["note"]


def test_a_claim_with_no_runs_of_the_papers_game_is_no_data_even_when_other_games_have_runs():
    nl = Dataset("gibson_holdem_k36", "gibson_holdem_k36_quick", False, "nl_one_card", [
        _run({"game": "nl_one_card", "algorithm": a, "nodes": 1e7, "seed": s}, e)
        for a, e in (("as", 0.01), ("es", 0.03)) for s in range(3)], 6)
    kuhn = Dataset("gibson_bluff", "gibson_bluff_quick", False, "kuhn", [
        _run({"game": "kuhn", "algorithm": "as", "nodes": 1e7}, 0.01)], 1)
    rows = _judge(nl, kuhn, ids=("G16", "G17", "G22"))
    for row in rows.values():
        assert row["level"] == NO_DATA_LEVEL and row["verdict"] == NO_DATA
    assert "not judged from other games' runs: gibson_holdem_k36_quick (nl_one_card)" \
        in rows["G16"]["note"]


def test_perfect_q_regret_fits_are_judged_by_the_leaves_the_tree_used():
    """Morrill 2016, ch. 4: RCFR+ run with budgets above 80% of Leduc (672 sequences) used
    less than 80%; a tree that stops below its leaf budget fits its targets exactly."""
    game = "leduc(canonical=true)"
    base = {"game": game, "iterations": 100_000, "regressor": "best-first",
            "features": "thesis", "averaging": "uniform", "algorithm": "rcfr+"}
    full = _run({"game": game, "iterations": 100_000, "algorithm": "cfr+",
                 "averaging": "uniform"}, 7.0e-5)

    def judged(used_leaves: int, expl: float) -> dict:
        bf = _run({**base, "share": 0.8}, expl, share=used_leaves / 672)  # budget: 538 leaves
        near = _run({**base, "share": 0.7}, 1.25e-4, share=470 / 672)  # used all 470
        ds = Dataset("thesis_4_1", "thesis_4_1", True, game, [bf, near, full], 3)
        return _judge(ds, ids=("M12", "M13"))

    rows = judged(473, 7.01e-5)  # 70.4% used, 1.001 x FULL+
    assert rows["M12"]["verdict"] == HOLDS and rows["M13"]["verdict"] == HOLDS
    assert "BF+ (budget 80%, used 70.4%): 1.001 x FULL+" in rows["M12"]["ours"]
    assert "not exact: BF+ at 69.9%: 1.786 x FULL+" in rows["M13"]["ours"]
    rows = judged(473, 8.0e-5)  # an exact fit that does not match FULL+
    assert rows["M12"]["verdict"] == FAILS and rows["M13"]["verdict"] == FAILS
    rows = judged(538, 7.01e-5)  # the whole budget used: no exact fit to judge
    assert rows["M12"]["verdict"] == NO_DATA and rows["M13"]["verdict"] == NO_DATA
    assert rows["M12"]["note"] == ("the runs of leduc(canonical=true) this claim needs are not "
                                   "done yet (thesis_4_1: 3 of 3 runs done)")


def test_node_budgets_give_the_estimated_time_of_the_papers_budget():
    runs = [_run({"game": "liars_dice", "algorithm": a, "nodes": 1e9, "seed": s}, e,
                 curve=[e * 4, e * 2, e])
            for a, e in (("as", 0.01), ("es", 0.05), ("cs", 0.04), ("os", 0.2)) for s in range(5)]
    row = _judge(Dataset("gibson_bluff", "gibson_bluff_1e9", True, "liars_dice", runs, 20),
                 ids=("G22",))["G22"]
    assert row["level"] == BELOW_BUDGET and row["shown"].startswith("holds at 1/1,000")
    # 1e9 nodes in 1 s a run: 1e9 nodes/s; 1e12 nodes x 5 seeds x 4 schemes = 2e4 s
    assert ("the paper's 1e+12 nodes x 5 seeds for each of AS, CS, ES, OS would take about "
            "0.23 core-days (0.12 days on 2 cores) at rcfr's measured AS 1e+09, "
            "CS 1e+09, ES 1e+09, OS 1e+09 nodes/s") in row["note"]


def test_as_converging_faster_is_judged_at_every_checkpoint():
    """G22 ("AS converged faster than CS, ES and OS", Fig. 3a): AS must be below every other
    scheme at every checkpoint but the first, not only over the last stretch. Here AS ends
    lowest but lies above ES at 1e7 nodes: with ES's seeds apart from AS's there, it fails;
    with the seeds spread over both, it is inconclusive."""
    def bluff(es_mid: float, spread: float) -> dict:
        runs = []
        for a, curve in (("as", [0.8, 0.3, 0.02, 0.01]), ("es", [0.8, es_mid, 0.03, 0.02]),
                         ("cs", [0.5, 0.1, 0.05])):  # a curve with fewer checkpoints
            for s in range(5):
                run = _run({"game": "liars_dice", "algorithm": a, "nodes": 1e9, "seed": s},
                           curve[-1], [x + spread * (s - 2) / 1000 for x in curve])
                run.xs = [1e6, 1e7, 1e8, 1e9][-len(curve):]
                runs.append(run)
        return _judge(Dataset("gibson_bluff", "gibson_bluff_1e9", True, "liars_dice", runs, 15),
                      ids=("G22",))["G22"]

    row = bluff(0.2, 1.0)
    assert row["verdict"] == FAILS
    assert row["ours"] == ("AS 0.01 ± 0.002 vs ES 0.02 ± 0.002: fails (above at 1 of 3 "
                           "points, 1e+07 nodes; its interval above at 1); AS 0.01 ± 0.002 vs "
                           "CS 0.05 ± 0.002: holds; AS is lowest at every point from 1e+08 "
                           "nodes")
    assert bluff(0.299, 1.0)["verdict"] == INCONCLUSIVE  # AS's mean above, intervals overlap
    assert bluff(0.4, 1.0)["verdict"] == HOLDS


def test_a_tabular_reference_run_once_does_not_count_as_missing_seeds():
    """D'Orazio et al.'s sweeps run the deterministic CFR reference with one seed beside the
    5-seed f-RCFR runs: the claims are at the paper's budget once those have 5 seeds."""
    base = {"game": "leduc", "iterations": 100_000, "algorithm": "rcfr", "regressor": "ridge",
            "link": "poly:2"}
    runs = [_run({**base, "features": f"hashing:{k}", "seed": s}, 1.0 / k + 0.001 * s)
            for k in (10, 20) for s in range(5)]
    runs.append(_run({"game": "leduc", "iterations": 100_000, "algorithm": "cfr",
                      "averaging": "uniform", "seed": 0}, 1e-3))
    row = _judge(Dataset("dorazio_leduc", "dorazio_leduc", True, "leduc", runs, len(runs)),
                 ids=("D4",))["D4"]
    assert row["level"] == AT_BUDGET and row["verdict"] == HOLDS
    assert row["budget"] == "the paper's iterations (100,000 iterations), 5 seeds"
    row = _judge(Dataset("dorazio_leduc", "dorazio_leduc", True, "leduc", runs[1:], 10),
                 ids=("D4",))["D4"]
    assert row["level"] == BELOW_BUDGET and row["budget"].endswith("4 of 5 seeds")


def test_throughput_is_the_fastest_stored_runs():
    """A run that waited for the processor on a shared machine does not slow the estimate."""
    runs = [_run({"game": "liars_dice", "algorithm": "os", "nodes": 1e9, "seed": s}, 0.1)
            for s in range(3)]
    runs[1].seconds = 4.0  # a starved run: 2.5e8 nodes/s
    runs[2].seconds = 0.5  # 2e9 nodes/s
    ctx = Context.of([Dataset("gibson_bluff", "gibson_bluff", True, "liars_dice", runs, 3)])
    assert ctx.throughput("liars_dice") == {"OS": 2e9}
    assert ctx.throughput("kuhn") == {}


def test_below_everywhere_leaves_out_the_first_point_and_ties():
    """At every point but the first: curves that start out together (ties) still hold; one
    run a side above anywhere fails; seeds above in the mean with overlapping intervals are
    inconclusive, with separated intervals fail."""
    e = below_everywhere([[5.0, 4.0, 4.0, 2.0, 1.0]], [[5.0, 4.0, 4.0, 3.0, 2.0]])
    assert e.verdict == HOLDS and e.points == 4 and e.higher == ()
    e = below_everywhere([[5.0, 3.0, 4.0, 2.0, 1.0]], [[5.0, 4.0, 3.5, 3.0, 2.0]])
    assert e.verdict == FAILS and e.higher == (2,) and e.separated == (2,)
    assert below_everywhere([[9.0, 1.0]], [[5.0, 2.0]]).verdict == HOLDS  # first point left out
    seeds = [[5.0, 3.0 + d, 1.0 + d] for d in (-0.5, 0.0, 0.5)]
    e = below_everywhere(seeds, [[5.0, 2.9 + d, 2.0 + d] for d in (-0.01, 0.0, 0.01)])
    assert e.verdict == INCONCLUSIVE and e.higher == (1,) and e.separated == ()
    e = below_everywhere(seeds, [[5.0, 1.0 + d, 2.0 + d] for d in (-0.01, 0.0, 0.01)])
    assert e.verdict == FAILS and e.separated == (1,)


def test_oscillating_curves_are_judged_over_the_last_stretch():
    # A's curve crosses B's in the last 20%: the verdict depends on the stopping point
    a = [[10, 8, 6, 5, 4, 3.0, 2.0, 3.5, 2.0, 3.5]]
    b = [[10, 9, 7, 6, 5, 4.0, 3.0, 3.0, 3.0, 3.0]]
    c = below(a, b)
    assert c.verdict == INCONCLUSIVE and DEPENDS in c.note and c.flips
    assert below(a, [[20] * 10]).verdict == HOLDS
    assert below([[20] * 10], a).verdict == FAILS
    # seeds: overlapping intervals are inconclusive, separated ones decide
    assert below([[1.0], [1.2], [0.8]], [[1.1], [1.3], [0.9]]).verdict == INCONCLUSIVE
    assert below([[1.0], [1.01], [0.99]], [[2.0], [2.01], [1.99]]).verdict == HOLDS


def test_a_check_that_raises_any_error_is_reported_not_fatal(monkeypatch):
    def boom(ctx):
        raise TypeError("bad data")

    bad = Claim("X1", "seed", "§0", "a claim", "1", boom)
    (row,) = judge_all(Context.of([]), [bad])
    assert row["verdict"] == INCONCLUSIVE and "TypeError: bad data" in row["note"]


def test_the_claims_table_is_data_that_names_every_check():
    """The claims are a packaged TOML table read by rcfr.experiments.judge, in its order: the
    ids are unique and every check and judge of rcfr.experiments.claims is named by a claim."""
    import tomllib
    from importlib import resources

    import rcfr.experiments.claims as claims

    text = resources.files("rcfr.experiments").joinpath("data", "claims.toml").read_text("utf-8")
    rows = [row for paper in tomllib.loads(text)["paper"] for row in paper["claim"]]
    assert [row["id"] for row in rows] == [c.id for c in CLAIMS]
    assert len({c.id for c in CLAIMS}) == len(CLAIMS)
    assert {row["check"] for row in rows if "check" in row} == set(claims.CHECKS)
    assert {row["judge"] for row in rows if "judge" in row} == set(claims.JUDGES)


def test_a_claims_table_naming_an_unknown_check_is_refused_in_one_line():
    row = ('[[paper]]\nname = "A paper"\n[[paper.claim]]\nid = "X1"\nsource = "§1"\n'
           'text = "a claim"\nreported = "1"\n')
    with pytest.raises(RcfrError, match="^the claims table names an unknown check 'nope'$"):
        load_claims(row + 'check = "nope"\n')
    with pytest.raises(RcfrError, match="unknown judge 'nope'"):
        load_claims(row + 'runs = ["thesis_4_1"]\nbudget = "b"\njudge = "nope"\n'
                    '[budgets]\nb = { axis = "iterations", amount = 10, seeds = 1 }\n')
    (claim,) = load_claims(row + 'check = "no_spec"\nargs = { what = "no spec runs it" }\n')
    assert (claim.seed, claim.paper) == ("A paper", "1")
    assert claim.check(Context.of([])).note == "no spec runs it"


def test_a_one_run_claim_of_a_stochastic_algorithm_is_judged_by_its_distribution():
    """Ceraolo's table reports one run of sampled regret matching: against [0.3, 0.3, 0.4]
    rcfr's runs of the same code have a median of about 0.994 and about one in six reach the
    survey's 0.999, so the claim holds (5 runs at >= 0.99 each would fail 9 times in 10); a
    claim the runs cannot produce (paper at 0.999) fails."""
    import rcfr.experiments.claims as claims

    ctx = Context(None)
    c4 = next(c for c in CLAIMS if c.id == "C4").check(ctx)
    assert c4.verdict == HOLDS and c4.level == AT_BUDGET
    probs = [a[0] for a in claims._rm_against(ctx, (0.3, 0.3, 0.4))]
    assert len(probs) == claims.RM_SEEDS
    assert 0.99 < statistics.median(probs) < 0.997
    assert 0.10 < sum(p >= 0.999 for p in probs) / len(probs) < 0.25
    assert claims._rm_claim((0.3, 0.3, 0.4), 1, 0.999)(ctx).verdict == FAILS


def test_regret_matching_self_play_is_judged_on_the_surveys_sampled_code():
    """Two sampled regret matchers (not full-width RM from the uniform profile, which never
    leaves it): after 10,000 iterations the median run is within 0.01 of 1/3; after 100 it is
    not."""
    import rcfr.experiments.claims as claims

    ctx = Context(None)
    c5 = next(c for c in CLAIMS if c.id == "C5").check(ctx)
    assert c5.verdict == HOLDS and c5.level == AT_BUDGET
    runs = claims._rm_against(ctx, None)
    dev = [max(abs(p - 1 / 3) for p in avg) for avg in runs]
    assert 0.004 < statistics.median(dev) < 0.01 and max(dev) > 0.01  # sampled: not exact
    assert all(abs(sum(avg) - 1) < 1e-9 for avg in runs)
    short = claims._rm_selfplay(ctx, 100)
    assert short.verdict == FAILS and short.level == BELOW_BUDGET


def test_budget_ratios_read_as_fractions():
    assert [ratio_text(x, 100) for x in (30, 33, 25, 10, 3, 1, 80, 100)] == [
        "3/10", "1/3", "1/4", "1/10", "1/33", "1/100", "4/5", "1"]
    level, text = compare_budget(Budget("nodes", 1e9, 3), Budget("nodes", 1e12, 5))
    assert level == BELOW_BUDGET and text.endswith("3 of 5 seeds")
    assert qualify(FAILS, level, text) == "fails at 1/1,000 of the paper's nodes, 3 of 5 seeds"


# -- the committed report data and the docs page ----------------------------------------------
DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_committed_report_data_loads_and_the_docs_page_renders_from_it():
    data = DOCS / "data" / "reproduction.json"
    assert data.stat().st_size < 1_000_000
    report = load_export(data)
    assert len(report["claims"]) == len(CLAIMS)
    assert {c["id"] for c in report["claims"]} == {c.id for c in CLAIMS}
    assert sum(report["summary"]["levels"].values()) == len(CLAIMS)
    for c in report["claims"]:  # the rule: no bare "fails" below the budget
        assert c["level"] in LEVELS
        assert not (c["level"] in (BELOW_BUDGET, NO_DATA_LEVEL) and c["shown"] == FAILS)
    page = render_docs_page(DOCS)
    assert summary_line(report["summary"]) in page
    for c in report["claims"]:
        assert f"| {c['id']} |" in page
    for f in report["figures"]:
        assert (DOCS / f["png"]).read_bytes()[:8] == PNG and f"]({f['png']})" in page
    assert "Bluff's uniform-profile exploitability by rule variant" in page
    assert "<!-- reproduction-report -->" in (DOCS / "reproduction.md").read_text()


def test_the_bluff_variant_search_finds_no_rule_set_with_both_numbers():
    bluff = json.loads((DOCS / "data" / "bluff_variants.json").read_text())
    assert len(bluff["all"]) == 192 and not any(r["match"] for r in bluff["all"])
    best = min((r for r in bluff["all"] if abs(r["bluff11"] - 0.780) <= 0.001),
               key=lambda r: abs(r["bluff21"] - 0.784))
    assert round(best["bluff21"], 4) == 0.7826
    # rcfr's own rules, one round: the values rcfr's exact evaluation gives
    rcfr = next(r for r in bluff["all"] if r["rules"] == {
        "order": "quantity", "exact": False, "wild": True, "ordered": True, "rounds": "one",
        "two": 0})
    assert rcfr["bluff11"] == pytest.approx(0.78074432319224, abs=1e-12)
    assert rcfr["bluff21"] == pytest.approx(0.8845416439811604, abs=1e-12)


def _above(ratio_bf: float, ratio_rp: float, paper: bool) -> Dataset:
    """RCFR runs above 35% of one-card poker beside FULL+ (Fig. 4.3's caption, claim M26)."""
    iterations = 100_000 if paper else 300
    base = {"game": "nl_one_card", "iterations": iterations, "features": "thesis",
            "averaging": "uniform"}
    full = 0.02
    runs = [_run({**base, "algorithm": "cfr+"}, full)]
    for share in (0.4, 0.6):
        runs.append(_run({**base, "algorithm": "rcfr+", "regressor": "best-first",
                          "share": share}, full * ratio_bf, share=share))
        runs.append(_run({**base, "algorithm": "rcfr", "regressor": "recursive",
                          "share": share}, full * ratio_rp, share=share))
    name = "thesis_4_3_above" + ("" if paper else "_quick")
    return Dataset("thesis_4_3_above", name, paper, "nl_one_card", runs, len(runs))


def test_runs_above_35_percent_reach_full_plus_only_when_every_variant_does():
    row = _judge(_above(1.05, 1.08, paper=True), ids=("M26",))["M26"]
    assert row["level"] == AT_BUDGET and row["verdict"] == HOLDS
    assert "RP at 40%: 1.080 x FULL+" in row["ours"] and "FULL+ 20 mbb/g" in row["ours"]
    # one variant at twice FULL+'s exploitability: fails, at the paper's budget
    row = _judge(_above(1.05, 2.0, paper=True), ids=("M26",))["M26"]
    assert row["level"] == AT_BUDGET and row["verdict"] == FAILS
    # the quick twin only: the verdict names its budget
    row = _judge(_above(1.05, 2.0, paper=False), ids=("M26",))["M26"]
    assert row["level"] == BELOW_BUDGET
    assert row["shown"] == "fails at 1/333 of the paper's iterations"


def _dorazio(errors: dict[int, list[float | None]], planned: int) -> Dataset:
    """f-RCFR runs of the paper spec: per partitions, an exp link (lower exploitability, the
    best) and a poly link, 5 seeds, the exp runs carrying the given regression errors."""
    runs = []
    for k, errs in errors.items():
        for seed, err in enumerate(errs):
            base = {"game": "leduc", "iterations": 100_000, "algorithm": "rcfr",
                    "regressor": "ridge", "features": f"hashing:{k}", "seed": seed}
            runs.append(_run({**base, "link": "exp:1"}, 1.0 / k))
            runs[-1].regression_error = err
            runs.append(_run({**base, "link": "poly:2"}, 2.0 / k))
            runs[-1].regression_error = 1.0  # (not the best link: not read)
    return Dataset("dorazio_leduc", "dorazio_leduc", True, "leduc", runs, planned)


def _goof_curves(curves: dict[int, list[float]]) -> Dataset:
    """Goofspiel f-RCFR runs of the paper spec: one link per number of partitions, 5 seeds
    (each seed the curve plus seed / 1000), evaluated at iterations 1, 10, 100, 1000."""
    runs = []
    for k, curve in curves.items():
        for seed in range(5):
            run = _run({"game": "goofspiel", "iterations": 100_000, "algorithm": "rcfr",
                        "regressor": "ridge", "features": f"hashing:{k}", "link": "poly:2",
                        "seed": seed}, curve[-1] + seed / 1000,
                       [x + seed / 1000 for x in curve])
            run.xs = [1, 10, 100, 1000]
            runs.append(run)
    return Dataset("dorazio_goofspiel", "dorazio_goofspiel", True, "goofspiel", runs, len(runs))


def test_at_each_iteration_is_judged_at_every_point_not_the_last_stretch():
    """D7 ("decreases for a larger number of partitions at each iteration") compares every
    evaluation point but the first (one iteration, the same uniform profile for all); D5 (the
    final exploitability) only the last stretch. Twenty partitions above ten at iteration 10,
    below from 100 on: D5 holds, D7 fails and says from where the order holds."""
    early = _goof_curves({10: [0.8, 0.5, 0.45, 0.44], 20: [0.8, 0.7, 0.3, 0.2]})
    rows = _judge(early, ids=("D5", "D7"))
    assert rows["D5"]["verdict"] == HOLDS
    assert rows["D7"]["level"] == AT_BUDGET and rows["D7"]["verdict"] == FAILS
    assert rows["D7"]["ours"] == (
        "every point after the first: 20 vs 10: fails (above at 1 of 3 points, iteration "
        "10; its interval above at 1); more partitions are lower at every point from "
        "iteration 100")
    ordered = _goof_curves({10: [0.8, 0.5, 0.45, 0.44], 20: [0.8, 0.4, 0.3, 0.2]})
    row = _judge(ordered, ids=("D7",))["D7"]
    assert row["verdict"] == HOLDS and row["ours"] == "every point after the first: 20 vs 10: holds"
    no_curves = _goof_curves({10: [0.44], 20: [0.2]})
    assert _judge(no_curves, ids=("D7",))["D7"]["verdict"] == NO_DATA


def test_the_regression_error_claim_reads_the_best_links_errors():
    """D13 (D'Orazio et al.'s Fig. 1) compares the cumulative regression error of the best link
    at each number of partitions over the seeds; runs without the error are no data."""
    falling = _dorazio({10: [9.0, 9.5, 10.0, 9.2, 9.8], 20: [5.0, 5.2, 4.9, 5.1, 5.3]}, 20)
    row = _judge(falling, ids=("D13",))["D13"]
    assert row["level"] == AT_BUDGET and row["verdict"] == HOLDS
    assert row["ours"].startswith("cumulative regression error of the best link: 10: 9.5, 20: 5.1")
    rising = _dorazio({10: [5.0, 5.2, 4.9, 5.1, 5.3], 20: [9.0, 9.5, 10.0, 9.2, 9.8]}, 20)
    assert _judge(rising, ids=("D13",))["D13"]["verdict"] == FAILS
    overlapping = _dorazio({10: [5.0, 9.0, 5.0, 9.0, 7.0], 20: [6.0, 6.5, 7.0, 6.2, 8.0]}, 20)
    assert _judge(overlapping, ids=("D13",))["D13"]["verdict"] == INCONCLUSIVE
    unrecorded = _dorazio({10: [None] * 5, 20: [None] * 5}, 20)
    row = _judge(unrecorded, ids=("D13",))["D13"]
    assert row["verdict"] == NO_DATA and "needs the regression error" in row["note"]


def test_figure_2a_at_k36_reads_the_width_sweeps_es_and_as_runs():
    """G16 (AS 54% below ES in 2-NL Hold'em(36)) is judged from any sweep with ES and AS runs
    of that game at Gibson et al.'s parameters: width_holdem36's are the same runs as Figure
    2a's but for their evaluation points; its full-width runs are not read."""
    game = "nl_holdem2(stack=36)"
    runs = []
    for seed in range(3):
        for algorithm, final in (("es", 1.0 + 0.01 * seed), ("as", 0.4 + 0.01 * seed),
                                 ("dcfr", 5.0)):
            nodes = 10**11 if algorithm == "dcfr" else 10**9
            runs.append(_run({"game": game, "algorithm": algorithm, "nodes": nodes,
                              "seed": seed, "dtype": "float32"}, final))
    width = Dataset("width_holdem36", "width_holdem36_quick", False, game, runs, 9)
    row = _judge(width, ids=("G16",))["G16"]
    assert row["level"] == BELOW_BUDGET and row["verdict"] == HOLDS
    assert row["ours"].startswith("AS 59") and "below ES" in row["ours"]
    # the paper budget's time, at the sampled schemes' measured speed only
    assert "for each of AS, ES would take" in row["note"] and "DCFR" not in row["note"]
    assert "; ;" not in row["note"]

"""The reproduction report: figures read from the store, the claims table, the HTML page
(parsed, and rendered in headless Chromium when it is installed) and its Markdown twin."""

import base64
import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rcfr.cli import main
from rcfr.experiments import Store, SweepSpec, load_sweep, run_sweep
from rcfr.experiments.figures import collect, figure_names, figure_spec
from rcfr.experiments.report import CLAIMS, write_report

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
        info = write_report(store, root / "out")
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
    assert sorted(info["figures"]) == ["gibson_bluff", "thesis_4_1"]
    page = _Page()
    page.feed((out / "report.html").read_text())
    assert len(page.images) == 2
    for img in page.images:
        head, data = img["src"].split(",", 1)
        assert head == "data:image/png;base64"
        assert base64.b64decode(data)[:8] == PNG  # self-contained: embedded PNGs
    header, *rows = page.rows
    assert header == ["source", "claim", "paper", "ours", "settings", "verdict",
                      "criterion, notes"]
    assert len(rows) == len(CLAIMS)
    assert {r[5] for r in rows} <= {"holds", "fails", "inconclusive", "no data"}
    by_claim = {r[1]: r for r in rows}
    abstraction = by_claim["Every RCFR version outperforms every state-space abstraction in "
                           "Leduc hold'em"]
    with Store(db) as store:  # the verdict, recomputed from the stored runs
        runs = [(r["spec"], r["complexity_share"], r["exploitability"]) for r in store.runs()]
    abstract = [(c, e) for spec, c, e in runs if spec.get("abstraction")]
    rcfr = [(c, e) for spec, c, e in runs if spec.get("regressor")]
    assert len(abstract) == 1 and len(rcfr) == 4
    (share, value), = abstract
    near = [e for c, e in rcfr if abs(c - share) <= 0.05]  # RCFR runs at its complexity
    expected = "no data" if not near else "holds" if max(near) < value else "fails"
    assert abstraction[5] == expected
    # our stand-in game is Kuhn poker here: its uniform exploitability is not Bluff's 0.780
    uniform = by_claim["The uniform profile is exploitable for 0.780 in Bluff(1,1)"]
    assert uniform[3] == "0.4583" and uniform[5] == "fails"
    assert uniform[4] == ("gibson_bluff_quick: kuhn, 2e+04 nodes, 3 seed(s) planned; "
                          "6 of 6 runs done")
    # the Leduc value comes from FULL+; with no data the claims say so
    value = next(r for r in rows if "loses 86 mbb/g" in r[1])
    assert value[3].endswith("mbb/g (FULL+)")
    assert next(r for r in rows if "goofspiel" in r[1])[5] == "no data"
    md = (out / "report.md").read_text()
    assert md.count("\n| ") == len(CLAIMS) + 1
    for name in info["figures"]:
        assert f"![{name}]({name}.png)" in md
        assert (out / f"{name}.png").read_bytes()[:8] == PNG


def test_report_command(report, capsys):
    root, db, _ = report
    code = main(["report", "--db", str(db), "-o", str(root / "again"), "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and Path(info["html"]).is_file()
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


def test_wager_abstraction_claim_compares_rcfr_plus_at_each_abstraction_share():
    from rcfr.experiments.report import FAILS, HOLDS, NO_DATA, _beat_abstractions

    _plus_beats_wager_abstractions = _beat_abstractions(("BF+", "BF+_BS"), skip=("null",))

    def data(bf_plus_at_p: float) -> dict:
        return {"scale": 1000.0, "unit": "exploitability (mbb/g)",
                "failed": [], "abstractions": [
                    {"label": "null", "complexity_share": 0.02, "exploitability": 0.1},
                    {"label": "P", "complexity_share": 0.04, "exploitability": 0.174},
                    {"label": "HPD", "complexity_share": 0.13, "exploitability": 0.09}],
                "series": {"BF+": {"requested": [0.05, 0.15], "used": [0.045, 0.14],
                                   "exploitability": [bf_plus_at_p, 0.05]}}}

    ours, verdict, note = _plus_beats_wager_abstractions(data(0.15))
    assert verdict == HOLDS and note == "2 of 2 comparisons"  # null is not compared
    assert _plus_beats_wager_abstractions(data(0.199))[1] == FAILS
    far = data(0.15)
    far["series"]["BF+"]["used"] = [0.30, 0.35]  # no run within 5 points of any abstraction
    assert _plus_beats_wager_abstractions(far)[1] == NO_DATA


def test_gibson_holdem_parameter_and_stack_claims():
    """Figures 1a, 1b and 2b's claims on hand-made data (mbb/g = 500 x chips)."""
    from rcfr.experiments.report import (
        FAILS,
        HOLDS,
        INCONCLUSIVE,
        _as_gain_grows,
        _best_epsilon_beta,
        _best_tau,
    )

    base = {"scale": 500.0, "unit": "exploitability (mbb/g)", "nodes": [3e8]}
    grows = {**base, "series": {
        "ES": {"stack": [20, 22, 24], "exploitability": [1, 1, 1.0], "ci95": [.1, .1, .1]},
        "AS": {"stack": [20, 22, 24], "exploitability": [1, .9, .7], "ci95": [.1, .1, .1]}}}
    ours, verdict, _ = _as_gain_grows(grows)
    assert verdict == HOLDS and ours == "AS below ES by k=20: +0%, k=22: +10%, k=24: +30%"
    grows["series"]["AS"]["ci95"][2] = 0.25  # growing, but not clear of ES at k = 24
    assert _as_gain_grows(grows)[1] == INCONCLUSIVE
    grows["series"]["AS"]["exploitability"] = [0.7, 0.9, 1.0]
    assert _as_gain_grows(grows)[1] == FAILS

    def tau(t, m, h):
        return f"AS ε=0.05 β=1e+06 τ={t:g}", {"final": m, "final_ci95": h}

    data = {**base, "series": dict([tau(1, 0.9, 0.01), tau(100, 0.5, 0.02), tau(1e3, 0.52, 0.01),
                                    tau(1e6, 0.8, 0.01)])}
    ours, verdict, _ = _best_tau(data)
    assert verdict == HOLDS and ours.startswith("best τ 100 (250 ± 10 mbb/g)")
    data["series"] = dict([tau(1, 0.4, 0.01), tau(100, 0.5, 0.02), tau(1e3, 0.52, 0.01)])
    assert _best_tau(data)[1] == FAILS
    grid = {**base, "series": {
        "1e+06": {"epsilon": [0.05, 0.5], "exploitability": [0.30, 0.5], "ci95": [0.02, 0.01]},
        "1": {"epsilon": [0.05, 0.5], "exploitability": [0.29, 0.6], "ci95": [0.01, 0.01]}}}
    ours, verdict, _ = _best_epsilon_beta(grid)  # the paper's setting within the best's interval
    assert verdict == HOLDS and ours.startswith("best (ε, β) ε=0.05 β=1 (145 ± 5 mbb/g)")
    grid["series"]["1"]["exploitability"][0] = 0.2
    assert _best_epsilon_beta(grid)[1] == FAILS

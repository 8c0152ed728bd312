"""The report of a results store: its runs and every paper figure that has data in it, and on
request (``claims``) the reproduction report's table of every checkable claim of the
reproduced papers with its evidence level and verdict (:mod:`.claims`, :mod:`.evidence`;
minutes of exact computations).

- :func:`write_report` writes ``report.html`` (self-contained, figures embedded as PNG data
  URIs) and ``report.md`` with the PNGs beside it (``rcfr report [--claims]``).
- :func:`build_report` is the report as plain JSON: the claims table, the counts by evidence
  level, the datasets (paper spec and quick twin: runs done of planned) and every figure's
  data with its curves thinned to the plotted points.  :func:`write_docs_report` writes it to
  ``docs/data/reproduction.json`` with the figures under ``docs/img/reproduction/``, and
  :func:`render_docs_page` turns that file into the documentation's Reproduction page (the
  docs build calls it from ``docs/hooks.py``: no solving, milliseconds).
"""

from __future__ import annotations

import base64
import html
import json
import math
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from ..core.fileio import write_atomic
from .claims import Context
from .evidence import (
    AT_BUDGET,
    BELOW_BUDGET,
    EXACT,
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    LEVELS,
    NO_DATA,
    NO_DATA_LEVEL,
    UNEXPLAINED,
)
from .figures import collect, figure_names, figure_spec, plot
from .judge import CLAIMS, judge_all
from .store import Store

EXPORT_VERSION = 1
MAX_POINTS = 40  # a curve's points kept in the export (log-spaced over its x range)
__all__ = ["AT_BUDGET", "BELOW_BUDGET", "CLAIMS", "EXACT", "FAILS", "HOLDS", "INCONCLUSIVE",
           "LEVELS", "NO_DATA", "NO_DATA_LEVEL", "UNEXPLAINED", "build_report", "claims_table",
           "load_export", "render_docs_page", "summary_line", "write_docs_report",
           "write_report"]


# -- the report as data ---------------------------------------------------------------------------
def claims_table(store: Store | None, exact: bool = True) -> list[dict[str, str]]:
    """Every claim's row (see :func:`.judge.judge_all`), judged on ``store``'s runs (None: no
    runs, only the exact computations)."""
    return judge_all(Context(store, exact=exact))


def summary(claims: list[dict[str, str]]) -> dict[str, Any]:
    """Counts by evidence level, and by verdict within each level."""
    levels = Counter(c["level"] for c in claims)
    verdicts: dict[str, Counter] = {lvl: Counter() for lvl in LEVELS}
    for c in claims:
        verdicts.setdefault(c["level"], Counter())[c["verdict"]] += 1
    return {"claims": len(claims), "levels": {lvl: levels.get(lvl, 0) for lvl in LEVELS},
            "verdicts": {lvl: {v: n for v, n in verdicts[lvl].items()} for lvl in verdicts}}


def summary_line(s: dict[str, Any]) -> str:
    """"64 claims: 23 exact, 13 at paper budget, 2 below paper budget, 26 no data"."""
    parts = []
    for lvl in LEVELS:
        n = s["levels"].get(lvl, 0)
        detail = ", ".join(f"{k} {v}" for v, k in sorted(
            ((v, k) for k, v in s["verdicts"].get(lvl, {}).items()), reverse=True)
            if lvl != NO_DATA_LEVEL)
        parts.append(f"{n} {lvl}" + (f" ({detail})" if detail and n else ""))
    return f"{s['claims']} claims: " + "; ".join(parts)


def _thin_curve(xs: list[float], keep: int = MAX_POINTS) -> list[int]:
    """Indices of at most ``keep`` points, evenly spaced in log x (the figures' axes), the
    first and last always kept."""
    n = len(xs)
    if n <= keep:
        return list(range(n))
    lo, hi = math.log(max(xs[0], 1e-300)), math.log(max(xs[-1], 1e-300))
    chosen, j = {0, n - 1}, 0
    for k in range(1, keep - 1):
        target = lo + (hi - lo) * k / (keep - 1)
        while j < n - 1 and math.log(max(xs[j], 1e-300)) < target:
            j += 1
        chosen.add(j)
    return sorted(chosen)


def thin(data: dict[str, Any], keep: int = MAX_POINTS) -> dict[str, Any]:
    """A figure's data (:func:`.figures.collect`) with its curves cut to ``keep`` points and
    numbers rounded to 6 significant digits: what the plots draw, small enough to commit."""
    data = json.loads(json.dumps(data))
    if data.get("figure") in ("mccfr_nodes", "convergence", "convergence_seconds"):
        _thin_series(data.get("series", {}), keep)
    elif data.get("figure") == "width_vs_sampling":
        for panel in data.get("panels", {}).values():
            _thin_series(panel.get("series", {}), keep)
    return _round(data)


def _thin_series(series: dict[str, Any], keep: int) -> None:
    for row in series.values():
        idx = _thin_curve(row["x"], keep)
        for key in ("x", "exploitability", "ci95"):
            row[key] = [row[key][i] for i in idx]
        row["runs"] = [[run[i] for i in idx if i < len(run)] for run in row.get("runs", [])]


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.6g}") if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_round(v) for v in value]
    return value


def _datasets(store: Store) -> list[dict[str, Any]]:
    """Every figure spec (paper and quick) with data: its figure data and settings."""
    out = []
    for name in figure_names():
        for quick in (False, True):
            try:
                sweep = figure_spec(name, quick)
            except RcfrError:
                continue
            data = collect(sweep, store)
            if not data["done"]:
                continue
            budgets = sorted({f"{r.iterations:,} iterations" if r.iterations else
                              f"{r.nodes:.3g} nodes" for r in sweep.runs})
            seeds = len({r.seed for r in sweep.runs})
            out.append({"figure": name, "spec": sweep.name, "paper": not quick,
                        "game": data["game"], "done": data["done"], "runs": data["runs"],
                        "failed": len(data["failed"]),
                        "settings": (f"{sweep.name}: {data['game']}, {', '.join(budgets)}, "
                                     f"{seeds} seed(s) planned; {data['done']} of "
                                     f"{data['runs']} runs done"),
                        "data": data})
    return out


RUN_FIELDS = ("hash", "run", "status", "iterations", "nodes", "seconds", "exploitability",
              "value")


def store_runs(store: Store) -> list[dict[str, Any]]:
    """Every intact run of ``store``, in the order stored: its hash, a label of its settings
    (:meth:`.spec.RunSpec.label`), status and final figures."""
    from .spec import RunSpec

    rows = []
    for r in store.runs():
        try:
            label = RunSpec.from_dict(r["spec"]).label()
        except RcfrError:  # a spec an older version wrote: shown as stored
            label = json.dumps(r["spec"], sort_keys=True)
        rows.append({"hash": r["hash"], "run": label,
                     **{k: r[k] for k in RUN_FIELDS[2:]}, "error": r["error"]})
    return rows


def build_report(store: Store, exact: bool = True, claims: bool = True) -> dict[str, Any]:
    """The report as plain JSON (see the module's docstring); figure data thinned.  With
    ``claims`` the papers' claims table (``claims``, ``summary``), else the store's runs
    (``runs``)."""
    report: dict[str, Any] = {"version": EXPORT_VERSION,
                              "generated": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                              "store": store.path.name}
    if claims:
        table = claims_table(store, exact=exact)
        report.update(summary=summary(table), claims=table)
    else:
        report["runs"] = store_runs(store)
    report["figures"] = [{k: (thin(v) if k == "data" else v) for k, v in d.items()}
                         for d in _datasets(store)]
    return report


# -- files ----------------------------------------------------------------------------------------
def _out_dir(out_dir: str | Path) -> Path:
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise RcfrError(f"{out_dir} is a file, not a directory")
    if not out_dir.parent.is_dir():
        raise RcfrError(f"directory does not exist: {out_dir.parent}")
    out_dir.mkdir(exist_ok=True)
    return out_dir


def write_report(store: Store, out_dir: str | Path, claims: bool = False) -> dict[str, Any]:
    """Write ``report.html``, ``report.md`` and the figures' PNGs into ``out_dir``: the store's
    runs, or with ``claims`` the papers' claims table (:func:`build_report`)."""
    out_dir = _out_dir(out_dir)
    report = build_report(store, claims=claims)
    for f in report["figures"]:
        f["png"] = f"{f['spec']}.png"
        plot(f["data"], out_dir / f["png"])
    md = render_markdown(report, image_dir="")
    page = _html(report, out_dir)
    write_atomic(out_dir / "report.md", lambda h: h.write(md.encode()))
    write_atomic(out_dir / "report.html", lambda h: h.write(page.encode()))
    info = {"html": str(out_dir / "report.html"), "markdown": str(out_dir / "report.md"),
            "figures": [f["spec"] for f in report["figures"]]}
    if claims:
        info.update(claims=report["claims"], summary=report["summary"])
    else:
        info["runs"] = report["runs"]
    return info


def write_docs_report(source: Store | str | Path, docs_dir: str | Path) -> dict[str, Any]:
    """Regenerate the documentation's reproduction data from a store (or from an export JSON
    file, which only redraws its figures): ``docs/data/reproduction.json`` and
    ``docs/img/reproduction/SPEC.png``.  The docs build renders ``docs/reproduction.md`` from
    them (:func:`render_docs_page`).  Returns the export."""
    docs = Path(docs_dir)
    if not docs.is_dir():
        raise RcfrError(f"not a directory: {docs}")
    if isinstance(source, Store):
        report = build_report(source)
    else:
        report = load_export(source)
    img = docs / "img" / "reproduction"
    img.mkdir(parents=True, exist_ok=True)
    for f in report["figures"]:
        f["png"] = f"img/reproduction/{f['spec']}.png"
        plot(f["data"], docs / f["png"])
        _palette(docs / f["png"])
    (docs / "data").mkdir(exist_ok=True)
    text = json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    write_atomic(docs / "data" / "reproduction.json", lambda h: h.write(text.encode()))
    return report


def _palette(path: Path) -> None:
    """Re-save a PNG with a 256-colour palette (a third of the size for line plots), for the
    files committed under ``docs/``; left as drawn where Pillow is missing."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with matplotlib
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256)
    write_atomic(path, lambda h: small.save(h, format="PNG", optimize=True))


def load_export(path: str | Path) -> dict[str, Any]:
    """The export written by :func:`write_docs_report`, checked."""
    try:
        report = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise RcfrError(f"cannot read the report data {path}: {exc}") from None
    if not isinstance(report, dict) or report.get("version") != EXPORT_VERSION or not all(
            k in report for k in ("claims", "summary", "figures")):
        raise RcfrError(f"{path}: not reproduction report data (version {EXPORT_VERSION})")
    return report


# -- rendering ------------------------------------------------------------------------------------
COLUMNS = ("id", "source", "claim", "paper", "ours", "evidence", "verdict", "criterion, notes")


def _cells(c: dict[str, str]) -> list[str]:
    evidence = c["level"] + (f": {c['budget']}" if c.get("budget") else "")
    note = c["note"] + (f" [{c['settings']}]" if c.get("settings") else "")
    return [c["id"], f"{c['seed']}, {c['source']}", c["claim"], c["paper"], c["ours"] or "—",
            evidence, c["shown"], note]


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: dict[str, Any], image_dir: str = "", bluff: dict | None = None,
                    heading: str = "#") -> str:
    """The report's Markdown: the summary line, the claims table, the datasets, the
    figures (PNG paths as in the report's ``png`` fields, relative to ``image_dir``) and the
    Bluff variants table when given."""
    h = heading
    if "claims" not in report:  # the store's own runs
        lines = [f"{h} rcfr report\n", f"From `{report['store']}`, {report['generated']}.\n",
                 f"**{runs_line(report['runs'])}**\n", f"{h}# Runs\n"]
        if report["runs"]:
            lines += ["| " + " | ".join(RUN_FIELDS) + " |", "|" + "---|" * len(RUN_FIELDS)]
            lines += ["| " + " | ".join(_md_cell(x) for x in _run_cells(r)) + " |"
                      for r in report["runs"]]
        else:
            lines.append("The store holds no runs yet.")
        return "\n".join(lines + _figure_lines(report, image_dir, h)) + "\n"
    lines = [f"{h} rcfr reproduction report\n",
             f"From `{report['store']}`, {report['generated']}.\n",
             f"**{summary_line(report['summary'])}**\n",
             f"{h}# Claims of the papers\n",
             "Evidence levels: *exact* (an LP, a closed form or an exact evaluation computed "
             "by rcfr: final), *at paper budget* (runs with the paper's iterations or nodes and "
             "seeds), *below paper budget* (the verdict for that budget, with the ratio), *no "
             "data*. Curves are judged over the last 20% of their points; a verdict that "
             "depends on the stopping point says so. A claim is never judged from another "
             "game's runs.\n",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for c in report["claims"]:
        lines.append("| " + " | ".join(_md_cell(x) for x in _cells(c)) + " |")
    lines += _figure_lines(report, image_dir, h)
    if bluff:
        lines.append(render_bluff(bluff, heading=h + "#"))
    return "\n".join(lines)


def _figure_lines(report: dict[str, Any], image_dir: str, h: str) -> list[str]:
    """The Markdown of the paper figures with data: their runs, then the figures."""
    title = "Runs in the store" if "claims" in report else "Paper figures with data"
    lines = [f"\n{h}# {title}\n"]
    if report["figures"]:
        lines += ["| figure | spec | game | runs done | failed |", "|---|---|---|---|---|"]
        for f in report["figures"]:
            lines.append(f"| {f['figure']} | {f['spec']}{' (paper)' if f['paper'] else ''} | "
                         f"`{f['game']}` | {f['done']} of {f['runs']} | {f['failed']} |")
    else:
        lines.append("No paper figure has data in this store.")
    lines.append(f"\n{h}# Figures\n")
    for f in report["figures"]:
        png = f.get("png") or f"{f['spec']}.png"
        if image_dir:
            png = f"{image_dir.rstrip('/')}/{png}"
        lines.append(f"{h}## {f['spec']}\n\n![{f['spec']}]({png})\n\n{f['settings']}"
                     + (f", {f['failed']} failed" if f["failed"] else "") + "\n")
    return lines


def runs_line(runs: list[dict[str, Any]]) -> str:
    """"12 runs: 10 done, 1 failed, 1 interrupted"."""
    counts = Counter(r["status"] for r in runs)
    detail = ", ".join(f"{n} {status}" for status, n in counts.most_common())
    return f"{len(runs)} runs" + (f": {detail}" if detail else "")


def _run_cells(r: dict[str, Any]) -> list[str]:
    def number(value, form):
        return "" if value is None else format(value, form)

    status = r["status"] + (f": {r['error']}" if r.get("error") else "")
    return [r["hash"][:12], r["run"], status, number(r["iterations"], ","),
            number(r["nodes"], ","), number(r["seconds"], ".2f"),
            number(r["exploitability"], ".6g"), number(r["value"], "+.6f")]


def render_bluff(bluff: dict[str, Any], heading: str = "##") -> str:
    """The Bluff rule-variant table (``benchmarks/bluff_variants.py``'s JSON)."""
    lines = [f"{heading} Bluff's uniform-profile exploitability by rule variant\n",
             bluff.get("summary", "") + "\n",
             "| variant | Bluff(1,1) | Bluff(2,1) | both match |", "|---|---|---|---|"]
    for row in bluff.get("rows", []):
        b11, b21 = row.get("bluff11"), row.get("bluff21")
        lines.append(f"| {_md_cell(row['variant'])} | "
                     f"{'—' if b11 is None else f'{b11:.4f}'} | "
                     f"{'—' if b21 is None else f'{b21:.4f}'} | "
                     f"{'yes' if row.get('match') else 'no'} |")
    if bluff.get("not_searched"):
        lines.append("\nNot searched: " + "; ".join(bluff["not_searched"]) + ".")
    return "\n".join(lines) + "\n"


def render_docs_page(docs_dir: str | Path) -> str:
    """The Reproduction page's generated part, from ``docs/data/reproduction.json`` (and
    ``docs/data/bluff_variants.json`` where present)."""
    docs = Path(docs_dir)
    report = load_export(docs / "data" / "reproduction.json")
    bluff_path = docs / "data" / "bluff_variants.json"
    bluff = json.loads(bluff_path.read_text()) if bluff_path.is_file() else None
    body = render_markdown(report, bluff=bluff, heading="#")
    return body.split("\n", 1)[1]  # the page has its own title


_CSS = """body{font-family:sans-serif;max-width:1300px;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:4px 6px;
vertical-align:top;font-size:90%}th{background:#f0f0f0}img{max-width:100%}
.holds{color:#060}.fails{color:#a00}.inconclusive{color:#a60}.no-data{color:#888}
.unexplained{color:#a0a}"""


def _html(report: dict[str, Any], out_dir: Path) -> str:
    esc = html.escape
    if "claims" not in report:  # the store's own runs
        head = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>rcfr report"
                f"</title><style>{_CSS}</style></head><body>",
                f"<h1>rcfr report</h1><p>From <code>{esc(report['store'])}</code>, "
                f"{esc(report['generated'])}.</p>",
                f"<p><strong>{esc(runs_line(report['runs']))}</strong></p>",
                "<h2>Runs</h2><table id=\"runs\"><tr>"
                + "".join(f"<th>{esc(c)}</th>" for c in RUN_FIELDS) + "</tr>",
                *("<tr>" + "".join(f"<td>{esc(x)}</td>" for x in _run_cells(r)) + "</tr>"
                  for r in report["runs"]), "</table><h2>Figures</h2>"]
        return _html_figures(report, out_dir, head)
    rows = []
    for c in report["claims"]:
        cls = c["verdict"].replace(" ", "-")
        cells = _cells(c)
        rows.append("<tr>" + "".join(
            f"<td class=\"{cls}\">{esc(x)}</td>" if k == 6 else f"<td>{esc(x)}</td>"
            for k, x in enumerate(cells)) + "</tr>")
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>rcfr reproduction "
             f"report</title><style>{_CSS}</style></head><body>",
             f"<h1>rcfr reproduction report</h1><p>From <code>{esc(report['store'])}</code>, "
             f"{esc(report['generated'])}.</p>",
             f"<p><strong>{esc(summary_line(report['summary']))}</strong></p>",
             "<h2>Claims of the papers</h2><table id=\"claims\"><tr>"
             + "".join(f"<th>{esc(c)}</th>" for c in COLUMNS) + "</tr>",
             *rows, "</table><h2>Figures</h2>"]
    return _html_figures(report, out_dir, parts)


def _html_figures(report: dict[str, Any], out_dir: Path, parts: list[str]) -> str:
    esc = html.escape
    for f in report["figures"]:
        data = base64.b64encode((out_dir / f["png"]).read_bytes()).decode()
        parts.append(f"<figure id=\"{esc(f['spec'])}\"><h3>{esc(f['spec'])}</h3>"
                     f"<img alt=\"{esc(f['spec'])}\" src=\"data:image/png;base64,{data}\">"
                     f"<figcaption>{esc(f['settings'])}</figcaption></figure>")
    if not report["figures"]:
        parts.append("<p>No figure has data in this store yet.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


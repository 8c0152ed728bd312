"""The reproduction report: every paper figure that has data in the store, and a table of the
seed papers' quantitative claims with the paper's number, ours, the settings and a verdict
computed from the data (with the 95% interval where there are seeds).

``report.html`` is self-contained (figures embedded as PNG data URIs); ``report.md`` is its
Markdown twin, with the PNG files beside it.
"""

from __future__ import annotations

import base64
import html
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from ..core.fileio import write_atomic
from .figures import collect, figure_names, figure_spec, plot
from .store import Store

HOLDS, FAILS, INCONCLUSIVE, NO_DATA = "holds", "fails", "inconclusive", "no data"


@dataclass(frozen=True)
class Claim:
    source: str
    figure: str  # the figure spec whose data it reads ("a|b": the first with data)
    text: str
    paper: str
    check: Callable[[dict[str, Any]], tuple[str, str, str]]  # data -> (ours, verdict, note)


def _fmt(mean: float, half: float | None, scale: float = 1.0, unit: str = "") -> str:
    text = f"{scale * mean:.4g}"
    if half is not None:
        text += f" ± {scale * half:.2g}"
    return text + (f" {unit}" if unit else "")


def _unit(data: dict) -> str:
    return data["unit"].split("(")[-1].rstrip(")") if "(" in data["unit"] else ""


# -- Morrill 2016 -----------------------------------------------------------------------------
def _plus_beats_plain(data: dict) -> tuple[str, str, str]:
    series = data["series"]
    pairs = [("BF+", "BF"), ("BF+_BS", "BF_BS")]
    wins = total = 0
    for plus, plain in pairs:
        if plus in series and plain in series:
            a, b = series[plus], series[plain]
            common = sorted(set(a["requested"]) & set(b["requested"]))
            for share in common:
                total += 1
                wins += (a["exploitability"][a["requested"].index(share)]
                         < b["exploitability"][b["requested"].index(share)])
    if not total:
        return "", NO_DATA, ""
    return (f"RCFR+ below RCFR in {wins} of {total} (variant, complexity) pairs",
            HOLDS if wins == total else FAILS, "")


def _plus_matches_full(data: dict) -> tuple[str, str, str]:
    full = [r for r in data["references"] if r["label"].startswith("FULL+")]
    row = data["series"].get("BF+")
    if not full or not row:
        return "", NO_DATA, ""
    k = max(range(len(row["requested"])), key=lambda i: row["requested"][i])
    ratio = row["exploitability"][k] / full[0]["exploitability"]
    f, unit = data["scale"], _unit(data)
    ours = (f"BF+ at {row['requested'][k]:.0%}: {_fmt(row['exploitability'][k], None, f, unit)}"
            f"; FULL+: {_fmt(full[0]['exploitability'], None, f, unit)} (ratio {ratio:.3f})")
    if row["requested"][k] < 0.8:
        return ours, INCONCLUSIVE, "no run at 80% or more"
    return ours, HOLDS if ratio <= 1.1 else FAILS, "criterion: within 10% of FULL+"


def _beat_abstractions(variants: tuple[str, ...] | None, skip: tuple[str, ...] = ()
                       ) -> Callable[[dict], tuple[str, str, str]]:
    """The RCFR ``variants`` (all series if None), each at every abstraction's complexity (its
    run nearest in complexity share, within 5 points), are less exploitable than it (Morrill
    2016, sec. 4.3); abstractions named in ``skip`` are not compared."""
    return lambda data: _compare_at_share(data, variants, skip)


def _compare_at_share(data: dict, variants: tuple[str, ...] | None, skip: tuple[str, ...]
                      ) -> tuple[str, str, str]:
    targets = [a for a in data["abstractions"] if a["label"] not in skip]
    if not targets:
        failed = sum("abstraction" in f["label"] for f in data["failed"])
        return "", NO_DATA, f"{failed} abstraction runs failed" if failed else ""
    f, unit = data["scale"], _unit(data)
    parts, wins, total = [], 0, 0
    for variant in variants or tuple(data["series"]):
        row = data["series"].get(variant)
        if not row:
            continue
        for a in targets:
            share = a["complexity_share"] or 0.0
            k = min(range(len(row["used"])), key=lambda i: abs(row["used"][i] - share))
            if abs(row["used"][k] - share) > 0.05:
                continue
            total += 1
            win = row["exploitability"][k] < a["exploitability"]
            wins += win
            parts.append(f"{variant} {row['used'][k]:.0%} {_fmt(row['exploitability'][k], None, f)}"
                         f" {'<' if win else '>='} {a['label']} {share:.0%} "
                         f"{_fmt(a['exploitability'], None, f)}")
    if not total:
        return "", NO_DATA, "no RCFR+ run within 5 points of an abstraction's share"
    return ("; ".join(parts) + (f" ({unit})" if unit else ""),
            HOLDS if wins == total else FAILS, f"{wins} of {total} comparisons")


def _value(expected_mbb: float) -> Callable[[dict], tuple[str, str, str]]:
    def check(data: dict) -> tuple[str, str, str]:
        full = [r for r in data["references"] if r["label"].startswith("FULL+")]
        if not full or full[0].get("value") is None:
            return "", NO_DATA, ""
        ours = data["scale"] * full[0]["value"]
        return (f"{ours:+.1f} mbb/g (FULL+)", HOLDS if abs(ours - expected_mbb) < 2.0 else FAILS,
                "criterion: within 2 mbb/g")
    return check


def _converged_like_full(data: dict) -> tuple[str, str, str]:
    series = data["series"]
    full = next((r for k, r in series.items() if k.startswith("CFR+")), None)
    plus = next((r for k, r in series.items() if k.startswith("RCFR+") and "bootstrap" not in k),
                None)
    if full is None or plus is None:
        return "", NO_DATA, ""
    ratio = plus["exploitability"][-1] / full["exploitability"][-1]
    return (f"final RCFR+/FULL+ exploitability ratio {ratio:.3g}",
            HOLDS if ratio <= 2.0 else FAILS, "criterion: within a factor 2")


# -- Gibson et al. 2012 -----------------------------------------------------------------------
def _final(row: dict) -> tuple[float, float | None]:
    """The runs' final exploitability (mean, 95% half-width): each at its own budget."""
    return row["final"], row["final_ci95"]


def _by_scheme(data: dict) -> dict[str, dict]:
    """The figure's series keyed by their scheme (``AS``, ``ES``, ...: the label's first
    word)."""
    return {k.split(" ")[0].split(",")[0]: r for k, r in data["series"].items()}


def _as_fastest(data: dict) -> tuple[str, str, str]:
    rows = _by_scheme(data)
    if "AS" not in rows or len(rows) < 2:
        return "", NO_DATA, ""
    f, unit = data["scale"], _unit(data)
    parts = [f"{k} {_fmt(*_final(r), f, unit)}" for k, r in rows.items()]
    a_mean, a_half = _final(rows["AS"])
    others = [_final(r) for k, r in rows.items() if k != "AS"]
    if all(a_mean < m for m, _ in others):
        separated = all(a_mean + (a_half or math.inf) < m - (h or math.inf) for m, h in others)
        verdict = HOLDS if separated else INCONCLUSIVE
    else:
        verdict = FAILS
    nodes = rows["AS"]["final_x"]
    seeds = ", ".join(f"{k} {r['seeds']}" for k, r in rows.items())
    return (f"at {nodes:.3g} nodes: " + ", ".join(parts), verdict,
            f"mean ± 95% CI (seeds: {seeds}); holds when the intervals separate, "
            "inconclusive when AS is lowest but they overlap")


def _as_vs_es(data: dict) -> tuple[str, str, str]:
    rows = _by_scheme(data)
    if "AS" not in rows or "ES" not in rows:
        return "", NO_DATA, ""
    (a, _), (e, _) = _final(rows["AS"]), _final(rows["ES"])
    nodes = rows["AS"]["final_x"]
    return (f"{100 * (e - a) / e:.0f}% below ES at {nodes:.3g} nodes",
            HOLDS if a < e else FAILS,
            "direction only" + ("" if data["game"] == "nl_holdem2(stack=36)" else
                                f": our game is {data['game']}, not 2-NL Hold'em(36)"))


def _as_gain_grows(data: dict) -> tuple[str, str, str]:
    """Figure 2b: AS's improvement over ES by stack, and whether it grows with the stack."""
    rows = _by_scheme(data)
    if "AS" not in rows or "ES" not in rows:
        return "", NO_DATA, ""
    es = dict(zip(rows["ES"]["stack"], rows["ES"]["exploitability"], strict=True))
    gains = [(k, 100 * (es[k] - a) / es[k]) for k, a in
             zip(rows["AS"]["stack"], rows["AS"]["exploitability"], strict=True) if k in es]
    ours = ", ".join(f"k={k}: {g:+.0f}%" for k, g in gains)
    if len(gains) < 3:
        return ours, INCONCLUSIVE, "fewer than three stacks"
    ks, gs = zip(*gains, strict=True)
    mk, mg = sum(ks) / len(ks), sum(gs) / len(gs)
    slope = sum((k - mk) * (g - mg) for k, g in gains) / sum((k - mk) ** 2 for k in ks)

    def at_largest(name: str) -> tuple[float, float]:
        row = rows[name]
        i = row["stack"].index(ks[-1])
        return row["exploitability"][i], row.get("ci95", [None] * len(row["stack"]))[i] or 0.0

    (a, ah), (e, eh) = at_largest("AS"), at_largest("ES")
    if slope <= 0 or gs[-1] <= gs[0]:
        verdict = FAILS
    else:  # growing: it holds once AS is clear of ES at the largest stack
        verdict = HOLDS if a + ah < e - eh else INCONCLUSIVE
    return (f"AS below ES by {ours}", verdict,
            f"least-squares slope {slope:+.2f} points per chip; holds when the gain grows "
            f"(positive slope, largest stack above smallest) and AS's 95% interval at the "
            f"largest stack is below ES's (inconclusive when they overlap); after "
            f"{data.get('nodes')} nodes")


def _best_of(means: dict[str, tuple[float, float | None]], wanted: set[str], what: str,
             data: dict) -> tuple[str, str, str]:
    """Whether one of the paper's best settings is lowest, or within the lowest's interval."""
    best = min(means, key=lambda k: means[k][0])
    m, h = means[best]
    near = [k for k in wanted if k in means and means[k][0] <= m + (h or 0.0)]
    if not any(k in means for k in wanted):
        return f"best {what} {best}", NO_DATA, "the paper's settings were not run"
    verdict = HOLDS if best in wanted or near else FAILS
    f, unit = data["scale"], _unit(data)
    return (f"best {what} {best} ({_fmt(m, h, f, unit)}); " + ", ".join(
        f"{k}: {_fmt(*means[k], f, unit)}" for k in sorted(wanted) if k in means), verdict,
        "holds when a paper setting is lowest or within the lowest's 95% interval")


def _best_tau(data: dict) -> tuple[str, str, str]:
    means = {}
    for key, row in data["series"].items():
        tau = key.rsplit("τ=", 1)[-1] if "τ=" in key else None
        if tau is not None:
            means[f"{float(tau):g}"] = _final(row)
    if not means:
        return "", NO_DATA, ""
    return _best_of(means, {"100", "1000"}, "τ", data)


def _best_epsilon_beta(data: dict) -> tuple[str, str, str]:
    means = {}
    for beta, row in data["series"].items():  # keyed by beta
        for eps, m, h in zip(row["epsilon"], row["exploitability"], row["ci95"], strict=True):
            means[f"ε={eps:g} β={float(beta):g}"] = (m, h)
    if not means:
        return "", NO_DATA, ""
    return _best_of(means, {"ε=0.05 β=100000", "ε=0.05 β=1e+06"}, "(ε, β)", data)


def _uniform(expected: float, note: str = "") -> Callable[[dict], tuple[str, str, str]]:
    def check(data: dict) -> tuple[str, str, str]:
        if data.get("uniform") is None:
            return "", NO_DATA, ""
        return (f"{data['uniform']:.4f}", HOLDS if abs(data["uniform"] - expected) < 0.001
                else FAILS, "criterion: within 0.001" + note)
    return check


# -- D'Orazio et al. 2019 ---------------------------------------------------------------------
def _best_by_partition(data: dict, prefix: str = "") -> dict[int, tuple[float, float | None]]:
    best: dict[int, tuple[float, float | None]] = {}
    for link, row in data["series"].items():
        if not link.startswith(prefix):
            continue
        for k, m, h in zip(row["partitions"], row["exploitability"], row["ci95"], strict=True):
            if k not in best or m < best[k][0]:
                best[k] = (m, h)
    return best


def _partitions_help(data: dict) -> tuple[str, str, str]:
    best = _best_by_partition(data)
    if len(best) < 2:
        return "", NO_DATA, ""
    ks = sorted(best)
    f, unit = data["scale"], _unit(data)
    values = [best[k][0] for k in ks]
    ours = ", ".join(f"{k}: {_fmt(*best[k], f, unit)}" for k in ks)
    decreasing = all(b < a for a, b in zip(values, values[1:], strict=False))
    return ours, HOLDS if decreasing else FAILS, "best link per number of partitions"


def _exp_beats_poly(data: dict) -> tuple[str, str, str]:
    exp, poly = _best_by_partition(data, "exp"), _best_by_partition(data, "poly")
    ks = [k for k in (30, 40) if k in exp and k in poly]
    if not ks:
        return "", NO_DATA, "needs runs at 30 or 40 partitions"
    f, unit = data["scale"], _unit(data)
    parts, wins, separated = [], 0, 0
    for k in ks:
        (em, eh), (pm, ph) = exp[k], poly[k]
        parts.append(f"{k}: exp {_fmt(em, eh, f, unit)} vs poly {_fmt(pm, ph, f, unit)}")
        wins += em < pm
        separated += em + (eh or math.inf) < pm - (ph or math.inf)
    verdict = HOLDS if separated == len(ks) else INCONCLUSIVE if wins == len(ks) else FAILS
    return "; ".join(parts), verdict, "best of each family, mean ± 95% CI"


CLAIMS: tuple[Claim, ...] = (
    Claim("Morrill 2016, §4.3, Fig. 4.1", "thesis_4_1",
          "RCFR+ outperforms plain RCFR at every complexity level (Leduc hold'em)",
          "at every complexity", _plus_beats_plain),
    Claim("Morrill 2016, §4.3, Fig. 4.1", "thesis_4_1",
          "Less than 80% of the game suffices for RCFR+ to match FULL+",
          "BF+ at 80% = FULL+", _plus_matches_full),
    Claim("Morrill 2016, §4.3, Fig. 4.1", "thesis_4_1",
          "Every RCFR version outperforms every state-space abstraction in Leduc hold'em",
          "by a wide margin (at each abstraction's complexity)", _beat_abstractions(None)),
    Claim("Morrill 2016, §4.1", "thesis_4_1", "The first player loses 86 mbb/g at equilibrium "
          "in Leduc hold'em", "-86 mbb/g (-85.6)", _value(-85.606)),
    Claim("Morrill 2016, §4.3, Fig. 4.3", "thesis_4_3",
          "RCFR+ outperforms plain RCFR at every complexity level (no-limit one-card poker)",
          "at every complexity", _plus_beats_plain),
    Claim("Morrill 2016, §4.3, Fig. 4.3", "thesis_4_3",
          "Both RCFR+ variants outperform every one-card action abstraction except the null "
          "abstraction at its complexity", "BF+, BF+_BS below P, HP, PD, HPD",
          _beat_abstractions(("BF+", "BF+_BS"), skip=("null",))),
    Claim("Morrill 2016, §4.1", "thesis_4_3", "The first player loses 83 mbb/g at equilibrium "
          "in no-limit one-card poker", "-83 mbb/g", _value(-83.3)),
    Claim("Morrill 2016, Fig. 4.2", "convergence_leduc",
          "RCFR+ near 45% of Leduc converges like FULL+", "curves overlap",
          _converged_like_full),
    Claim("Gibson et al. 2012, Fig. 3a", "gibson_bluff|gibson_bluff_1e9",
          "AS converges faster than CS, ES and OS in Bluff(1,1)",
          "AS lowest at every checkpoint", _as_fastest),
    Claim("Gibson et al. 2012, Fig. 3", "gibson_bluff|gibson_bluff_1e9",
          "The uniform profile is exploitable for 0.780 in Bluff(1,1)", "0.780", _uniform(0.7807)),
    Claim("Gibson et al. 2012, Fig. 3b", "gibson_bluff21",
          "AS converges faster than CS, ES and OS in Bluff(2,1)",
          "AS lowest at every checkpoint", _as_fastest),
    Claim("Gibson et al. 2012, Fig. 3", "gibson_bluff21",
          "The uniform profile is exploitable for 0.784 in Bluff(2,1)", "0.784",
          _uniform(0.784, "; one round with +-1 payoffs (the README's table gives the "
                   "multi-round rule sets: 0.815 and 0.828)")),
    Claim("Gibson et al. 2012, §5, Fig. 2b", "gibson_holdem_stacks",
          "Little difference at 20 and 22 chips; AS's margin over ES grows with the stack",
          "margins increase with game size", _as_gain_grows),
    Claim("Gibson et al. 2012, §5, Fig. 1a", "gibson_holdem_as_grid",
          "AS with ε = 0.05 and β = 1e5 or 1e6 is the least exploitable (τ = 1000)",
          "ε 0.05, β 1e5-1e6", _best_epsilon_beta),
    Claim("Gibson et al. 2012, §5, Fig. 1b", "gibson_holdem_tau",
          "AS with τ = 100 or 1000 is the least exploitable (ε 0.05, β 1e6)", "τ 100-1000",
          _best_tau),
    Claim("Gibson et al. 2012, §5, Fig. 2a", "gibson_holdem_k36|gibson_holdem|gibson_nl",
          "AS improves on ES at the final data points in no-limit poker",
          "54% (2-NL Hold'em(36))", _as_vs_es),
    Claim("D'Orazio et al. 2019, Fig. 2 right", "dorazio_leduc",
          "More partitions give lower final exploitability (Leduc hold'em)", "decreasing",
          _partitions_help),
    Claim("D'Orazio et al. 2019, §5, Fig. 3", "dorazio_leduc",
          "At 30 and 40 partitions in Leduc the best exponential link beats every polynomial "
          "link", "exp below all poly", _exp_beats_poly),
    Claim("D'Orazio et al. 2019, Fig. 2 right", "dorazio_goofspiel",
          "More partitions give lower final exploitability (goofspiel)", "decreasing",
          _partitions_help),
)


# -- assembling ---------------------------------------------------------------------------------
def _datasets(store: Store) -> dict[str, dict[str, Any]]:
    """Per figure name, the data of its paper spec if that has runs done, else of its quick
    twin (when that has)."""
    out = {}
    for name in figure_names():
        for quick in (False, True):
            try:
                sweep = figure_spec(name, quick)
            except RcfrError:
                continue
            data = collect(sweep, store)
            if data["done"]:
                data["settings"] = (f"{_settings(sweep)}; {data['done']} of {data['runs']} "
                                    f"runs done")
                out[name] = data
                break
    return out


def _settings(sweep) -> str:
    runs = sweep.runs
    budgets = sorted({f"{r.iterations:,} iterations" if r.iterations else f"{r.nodes:.3g} nodes"
                      for r in runs})
    seeds = len({r.seed for r in runs})
    return f"{sweep.name}: {runs[0].game}, {', '.join(budgets)}, {seeds} seed(s) planned"


def claims_table(datasets: dict[str, dict[str, Any]]) -> list[dict[str, str]]:
    rows = []
    for claim in CLAIMS:
        data = next((datasets[n] for n in claim.figure.split("|") if n in datasets), None)
        if data is None:
            ours, verdict, note, settings = "", NO_DATA, "", ""
        else:
            try:
                ours, verdict, note = claim.check(data)
            except (KeyError, IndexError, ValueError, ZeroDivisionError) as exc:
                ours, verdict, note = "", INCONCLUSIVE, f"could not evaluate ({exc})"
            settings = data["settings"]
        rows.append({"source": claim.source, "claim": claim.text, "paper": claim.paper,
                     "ours": ours, "settings": settings, "verdict": verdict, "note": note})
    return rows


_CSS = """body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:4px 6px;
vertical-align:top;font-size:90%}th{background:#f0f0f0}img{max-width:100%}
.holds{color:#060}.fails{color:#a00}.inconclusive{color:#a60}.no-data{color:#888}"""


def write_report(store: Store, out_dir: str | Path) -> dict[str, Any]:
    """Write ``report.html``, ``report.md`` and the figures' PNGs into ``out_dir``."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise RcfrError(f"{out_dir} is a file, not a directory")
    if not out_dir.parent.is_dir():
        raise RcfrError(f"directory does not exist: {out_dir.parent}")
    out_dir.mkdir(exist_ok=True)
    datasets = _datasets(store)
    figures = []
    for name, data in datasets.items():
        png = out_dir / f"{name}.png"
        plot(data, png)
        figures.append({"name": name, "png": png.name, "settings": data["settings"],
                        "done": data["done"], "runs": data["runs"],
                        "failed": len(data["failed"])})
    claims = claims_table(datasets)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    md = _markdown(store, figures, claims, stamp)
    page = _html(store, figures, claims, stamp, out_dir)
    write_atomic(out_dir / "report.md", lambda h: h.write(md.encode()))
    write_atomic(out_dir / "report.html", lambda h: h.write(page.encode()))
    return {"html": str(out_dir / "report.html"), "markdown": str(out_dir / "report.md"),
            "figures": [f["name"] for f in figures], "claims": claims}


def _caption(f: dict) -> str:
    text = f["settings"]
    if f["failed"]:
        text += f", {f['failed']} failed"
    return text


def _markdown(store: Store, figures: list[dict], claims: list[dict], stamp: str) -> str:
    lines = [f"# rcfr reproduction report\n\nFrom `{store.path.name}`, {stamp}.\n",
             "## Claims of the seed papers\n",
             "| source | claim | paper | ours | settings | verdict | criterion, notes |",
             "|---|---|---|---|---|---|---|"]
    for c in claims:
        cells = [c["source"], c["claim"], c["paper"], c["ours"] or "—", c["settings"] or "—",
                 c["verdict"], c["note"] or ""]
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    lines.append("\n## Figures\n")
    for f in figures:
        lines.append(f"### {f['name']}\n\n![{f['name']}]({f['png']})\n\n{_caption(f)}\n")
    if not figures:
        lines.append("No figure has data in this store yet.\n")
    return "\n".join(lines)


def _html(store: Store, figures: list[dict], claims: list[dict], stamp: str,
          out_dir: Path) -> str:
    esc = html.escape
    rows = []
    for c in claims:
        cls = c["verdict"].replace(" ", "-")
        rows.append(f"<tr><td>{esc(c['source'])}</td><td>{esc(c['claim'])}</td>"
                    f"<td>{esc(c['paper'])}</td><td>{esc(c['ours'] or '—')}</td>"
                    f"<td>{esc(c['settings'] or '—')}</td>"
                    f"<td class=\"{cls}\">{esc(c['verdict'])}</td>"
                    f"<td>{esc(c['note'])}</td></tr>")
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>rcfr reproduction "
             f"report</title><style>{_CSS}</style></head><body>",
             f"<h1>rcfr reproduction report</h1><p>From <code>{esc(store.path.name)}</code>, "
             f"{esc(stamp)}.</p>",
             "<h2>Claims of the seed papers</h2><table id=\"claims\"><tr><th>source</th>"
             "<th>claim</th><th>paper</th><th>ours</th><th>settings</th><th>verdict</th>"
             "<th>criterion, notes</th></tr>",
             *rows, "</table><h2>Figures</h2>"]
    for f in figures:
        data = base64.b64encode((out_dir / f["png"]).read_bytes()).decode()
        parts.append(f"<figure id=\"{esc(f['name'])}\"><h3>{esc(f['name'])}</h3>"
                     f"<img alt=\"{esc(f['name'])}\" src=\"data:image/png;base64,{data}\">"
                     f"<figcaption>{esc(_caption(f))}</figcaption></figure>")
    if not figures:
        parts.append("<p>No figure has data in this store yet.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)

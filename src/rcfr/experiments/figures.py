"""The papers' figures, drawn from the results store.

A figure is a sweep spec packaged with rcfr (``rcfr/experiments/specs/``, read with
:mod:`importlib.resources`; its ``figure`` key names the plot kind) plus a plot:
:func:`collect` turns the spec's stored runs into plain JSON data, :func:`plot` draws that
data into a PNG.  Means over seeds carry a Student-t 95% interval ("mean ± 95% CI, n
seeds"); every baseline says its averaging; poker games are in mbb/g, goofspiel in
milli-utils.  Runs that failed (e.g. an abstraction not available yet) are counted and named
in the data, not plotted.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import statistics
from collections import defaultdict
from collections.abc import Callable
from importlib.resources import as_file, files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from ..core.fileio import check_writable, write_atomic, write_json
from .spec import SweepSpec, load_sweep
from .store import Store

KINDS = ("rcfr_complexity", "mccfr_nodes", "frcfr_links", "convergence", "mccfr_parameters",
         "mccfr_stacks", "convergence_seconds", "width_vs_sampling", "convergence_suite")
SUITE_AXES = ("iterations", "seconds")  # convergence_suite's x axes (rcfr figure --x)
SPECS = "specs"  # the papers' sweep specs: package data of rcfr.experiments (pyproject.toml)

DESCRIPTIONS = {
    "rcfr_complexity": "exploitability vs regressor complexity: RCFR variants, abstractions, "
                       "FULL+ (Morrill 2016, figs 4.1/4.3)",
    "mccfr_nodes": "exploitability vs nodes visited for CS, ES, OS, AS (Gibson et al. 2012, "
                   "figs 2a/3a)",
    "frcfr_links": "f-RCFR's links by hashing partitions: the best link's curves, the final "
                   "exploitability and the regression error (D'Orazio et al. 2019, figs 2 "
                   "left, 2 right, 1)",
    "convergence": "exploitability vs iterations (Morrill 2016, figs 4.2/4.4)",
    "convergence_seconds": "exploitability vs seconds, for solvers whose iterations differ "
                           "(NFSP's episodes beside CFR+ and RCFR+ iterations)",
    "mccfr_parameters": "final exploitability of AS by epsilon, one line per beta (Gibson et "
                        "al. 2012, fig 1a)",
    "mccfr_stacks": "final exploitability / k by starting stack k for CS, ES, AS (Gibson et "
                    "al. 2012, fig 2b)",
    "width_vs_sampling": "exploitability vs nodes visited and vs seconds: full-width CFR+/DCFR/"
                         "PCFR+ beside the sampling schemes (Ceraolo 2021, sec. 4.2)",
    "convergence_suite": "exploitability vs iterations, one panel per game of the DCFR/DDCFR "
                         "suite, beside the DDCFR authors' published curves (Xu et al. 2024)",
}


# -- specs -------------------------------------------------------------------------------------
def spec_dir() -> Traversable:
    """The folder of named specs: ``$RCFR_EXPERIMENTS`` where set, else the specs packaged
    with rcfr (in a checkout and in an installed wheel alike)."""
    override = os.environ.get("RCFR_EXPERIMENTS")
    return Path(override) if override else files(__package__) / SPECS


def spec_names() -> list[str]:
    """The named specs (file names without ``.toml``), ``_quick`` twins included."""
    directory = spec_dir()
    if not directory.is_dir():
        return []
    try:  # listed again when the folder changes (a report asks for every spec, twice)
        stamp = os.stat(str(directory)).st_mtime_ns
    except OSError:  # a folder inside a zip: listed every time
        return _list_specs(directory)
    return list(_listed(str(directory), stamp))


@functools.lru_cache(maxsize=8)
def _listed(directory: str, stamp: int) -> tuple[str, ...]:
    return tuple(_list_specs(Path(directory)))


def _list_specs(directory: Traversable) -> list[str]:
    return sorted(p.name.removesuffix(".toml") for p in directory.iterdir()
                  if p.name.endswith(".toml") and p.is_file())


def figure_names() -> list[str]:
    """The figure specs (without the ``_quick`` twins)."""
    return sorted({name.removesuffix("_quick") for name in spec_names()})


def named_spec(name: str) -> SweepSpec:
    """The named spec ``name`` (e.g. ``thesis_4_1_quick``), read from :func:`spec_dir`."""
    if name not in spec_names():  # also keeps a name from reaching outside the folder
        known = ", ".join(spec_names()) or f"none in {spec_dir()}"
        raise RcfrError(f"no spec named {name!r}; specs: {known}")
    return _read_named(str(spec_dir()), name)


@functools.cache
def _read_named(directory: str, name: str) -> SweepSpec:
    """A packaged spec, read and expanded once a process (``report`` reads every one twice)."""
    with as_file(spec_dir() / f"{name}.toml") as path:  # a real file even from a zip
        return load_sweep(path)


def load_spec(spec: str | os.PathLike) -> SweepSpec:
    """A sweep spec given as a path to a TOML file or as a named spec's name (a path that
    exists wins; ``rcfr sweep`` reads its argument with this)."""
    if Path(spec).is_file():
        return load_sweep(spec)
    names = spec_names()
    if str(spec) in names:
        return named_spec(str(spec))
    raise RcfrError(f"no such spec file: {spec} (nor the name of a packaged spec: "
                    f"{', '.join(names) or f'none in {spec_dir()}'})")


def figure_spec(name: str, quick: bool = False) -> SweepSpec:
    full = f"{name}{'_quick' if quick else ''}"
    if full not in spec_names():
        known = ", ".join(figure_names()) or f"none in {spec_dir()}"
        raise RcfrError(f"unknown figure {name!r} (no spec {full}.toml); figures: {known}")
    sweep = named_spec(full)
    if sweep.figure not in KINDS:
        raise RcfrError(f"{sweep.path}: figure: expected one of {', '.join(KINDS)}, "
                        f"got {sweep.figure!r}")
    return sweep


# -- statistics and units ------------------------------------------------------------------------
def mean_ci(values: list[float]) -> tuple[float, float | None]:
    """The mean and the half-width of its Student-t 95% interval (None for one value)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None
    from scipy.stats import t

    return mean, float(t.ppf(0.975, len(values) - 1) * statistics.stdev(values)
                       / math.sqrt(len(values)))


def unit_of(game: str) -> tuple[float, str]:
    """Scale and axis label: mbb/g for poker, milli-utils for goofspiel, else game units."""
    try:
        from ..games.registry import load_game

        loaded = load_game(game)
    except Exception:
        return 1.0, "exploitability"
    if getattr(loaded, "big_blind", None):
        return 1000.0 / float(loaded.big_blind), "exploitability (mbb/g)"
    if "goofspiel" in str(loaded):
        return 1000.0, "exploitability (milli-utils)"
    return 1.0, "exploitability"


def _ci_label(label: str, n: int) -> str:
    return f"{label} (mean ± 95% CI, {n} seeds)" if n > 1 else label


def _averaging(spec: dict) -> str:
    if spec.get("averaging"):
        return spec["averaging"]
    if spec["algorithm"] in ("cfr+",):
        return "linear"
    return "uniform"


# -- data ---------------------------------------------------------------------------------------
def collect(sweep: SweepSpec, store: Store) -> dict[str, Any]:
    """The figure's data from the store: plain JSON (numbers, strings, lists, dicts)."""
    rows = store.runs(hashes=sweep.hashes())
    done = [r for r in rows if r["status"] == "done"]
    failed = [r for r in rows if r["status"] == "failed"]
    game = sweep.runs[0].game if sweep.runs else ""
    scale, unit = unit_of(game)
    data: dict[str, Any] = {
        "figure": sweep.figure, "name": sweep.name, "game": game, "scale": scale, "unit": unit,
        "runs": len(sweep.runs), "done": len(done), "missing": len(sweep.runs) - len(rows),
        "failed": [{"label": _describe(r["spec"]), "error": r["error"]} for r in failed],
    }
    kind = sweep.figure
    if kind == "rcfr_complexity":
        data.update(_collect_complexity(done))
    elif kind == "mccfr_nodes":
        data.update(_collect_curves(done, store, "nodes"))
        data["uniform"] = (_uniform_exploitability(game, store, sweep.max_memory,
                                                   sweep.runs[0].dtype) if done else None)
    elif kind == "convergence":
        data.update(_collect_curves(done, store, "iterations"))
    elif kind == "convergence_seconds":
        data.update(_collect_curves(done, store, "seconds"))
    elif kind == "width_vs_sampling":
        # a full-width iteration counts the histories it walks, as the papers count nodes
        data["panels"] = {axis: _collect_curves(done, store, axis)
                          for axis in ("nodes", "seconds")}
        data["uniform"] = (_uniform_exploitability(game, store, sweep.max_memory,
                                                   sweep.runs[0].dtype) if done else None)
    elif kind == "frcfr_links":
        data.update(_collect_links(done, store))
    elif kind == "mccfr_parameters":
        data.update(_collect_parameters(done))
    elif kind == "mccfr_stacks":
        data.update(_collect_stacks(done))
    elif kind == "convergence_suite":
        data.update(_collect_suite(done, store, [r.game for r in sweep.runs]))
        data["scale"], data["unit"] = 1.0, "exploitability (nash_conv / 2, the game's units)"
    return data


def _uniform_exploitability(game: str, store: Store, max_memory: str | None,
                            dtype: str | None = None) -> float | None:
    """The uniform profile's exploitability (the figures' reference line), computed once per
    game and kept beside the store (2-NL Hold'em(36) takes minutes); ``None`` where the game
    does not fit the memory budget (the sweep spec's ``max_memory``, judged as for its runs'
    ``dtype``)."""
    from ..core.budget import memory_limit
    from ..evaluate import exploitability
    from ..forms.compile import compile_game
    from ..policy import TabularPolicy

    key = hashlib.sha256(game.encode()).hexdigest()[:16]
    path = store.files / f"uniform-{key}.json"
    if path.is_file():
        try:
            saved = json.loads(path.read_text())
            if saved.get("game") == game:
                return float(saved["exploitability"])
        except (ValueError, KeyError, TypeError):
            pass  # a damaged file: computed again
    try:
        with memory_limit(max_memory):
            tree = compile_game(game, dtype=dtype)
    except RcfrError:
        return None
    value = float(exploitability(tree, TabularPolicy.uniform(tree)))
    store.ensure_files()
    write_json(path, {"game": game, "exploitability": value})
    return value


def _describe(spec: dict) -> str:
    keys = ("algorithm", "abstraction", "regressor", "share", "link", "features", "seed")
    return " ".join(f"{spec[k]}" if k == "algorithm" else f"{k}={spec[k]}"
                    for k in keys if k in spec)


def variant_name(spec: dict) -> str:
    """The thesis's names: BF/RP for best-first/recursive trees, + for RCFR+, _BS for
    bootstrapped targets; an abstraction's name; FULL+ for tabular CFR+."""
    if spec.get("abstraction"):
        return f"abstraction {spec['abstraction']}"
    if spec.get("regressor") in ("best-first", "recursive"):
        name = "BF" if spec["regressor"] == "best-first" else "RP"
        if spec["algorithm"].endswith("+"):
            name += "+"
        return name + ("_BS" if spec.get("bootstrap") else "")
    if spec["algorithm"] in ("cfr", "cfr+"):
        return "FULL" + ("+" if spec["algorithm"] == "cfr+" else "")
    return spec["algorithm"]


def _collect_complexity(done: list[dict]) -> dict[str, Any]:
    series: dict[str, dict] = {}
    abstractions, references = [], []
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in done:
        s = r["spec"]
        if s.get("abstraction"):
            abstractions.append({"label": s["abstraction"], "algorithm": s["algorithm"],
                                 "complexity_share": r["complexity_share"],
                                 "exploitability": r["exploitability"]})
        elif s.get("regressor"):
            groups[(variant_name(s), s.get("share"), s.get("leaves"))].append(r)
        else:
            references.append({"label": f"{variant_name(s)} ({s['algorithm'].upper()}, "
                                        f"{_averaging(s)} averaging)",
                               "exploitability": r["exploitability"], "value": r["value"]})
    order = ["BF", "BF_BS", "BF+", "BF+_BS", "RP", "RP_BS", "RP+", "RP+_BS"]
    for (name, share, leaves), rs in sorted(groups.items(), key=lambda kv: (
            order.index(kv[0][0]) if kv[0][0] in order else len(order), kv[0][0],
            kv[0][1] or 0, kv[0][2] or 0)):
        row = series.setdefault(name, {"requested": [], "used": [], "exploitability": [],
                                       "ci95": [], "seeds": []})
        mean, half = mean_ci([r["exploitability"] for r in rs])
        requested = share if share is not None else leaves / max(1, _sequences(rs[0]))
        row["requested"].append(requested)
        row["used"].append(statistics.fmean(r["complexity_share"] or 0.0 for r in rs))
        row["exploitability"].append(mean)
        row["ci95"].append(half)
        row["seeds"].append(len(rs))
    return {"series": series, "abstractions": abstractions, "references": references}


def _sequences(row: dict) -> int:
    if row.get("complexity") and row.get("complexity_share"):
        return round(row["complexity"] / row["complexity_share"])
    return 1


def _collect_curves(done: list[dict], store: Store, axis: str) -> dict[str, Any]:
    groups: dict[str, list[dict]] = defaultdict(list)
    specs: dict[str, dict] = {}
    for r in done:
        s = r["spec"]
        key = _curve_label(s)
        groups[key].append(r)
        specs[key] = s
    series = {}
    for key, rs in groups.items():
        curves = [store.points(r["hash"]) for r in rs]
        length = min(len(c) for c in curves)
        if length == 0:
            continue
        xs, mean, half = [], [], []
        for k in range(length):
            m, h = mean_ci([c[k]["exploitability"] for c in curves])
            xs.append(statistics.fmean(c[k][axis] for c in curves))
            mean.append(m)
            half.append(h)
        final, final_half = mean_ci([r["exploitability"] for r in rs])
        series[key] = {"label": _ci_label(key, len(rs)), "x": xs, "exploitability": mean,
                       "ci95": half, "seeds": len(rs),
                       "runs": [[p["exploitability"] for p in c[:length]] for c in curves],
                       # each run's own final point (its budget), beside the common points
                       "final": final, "final_ci95": final_half,
                       "final_x": statistics.fmean(r[axis] or 0 for r in rs)}
    return {"axis": axis, "series": series}


def _curve_label(s: dict) -> str:
    name = s["algorithm"].upper()
    if s.get("rule"):
        name += f" ({s['rule']})"
    if s.get("share") is not None:
        name += f" {s['share']:.0%} of the game"
    if s.get("bootstrap"):
        name += " bootstrap"
    if s["algorithm"] in ("cfr", "cfr+", "rcfr", "rcfr+"):
        name += f", {_averaging(s)} averaging"
    for key, symbol in (("epsilon", "ε"), ("beta", "β"), ("tau", "τ")):  # set: a sweep over it
        if s.get(key) is not None:
            name += f" {symbol}={s[key]:g}"
    return name


def _collect_parameters(done: list[dict]) -> dict[str, Any]:
    """Final exploitability by (beta, epsilon): Gibson et al.'s Figure 1a grid."""
    groups: dict[tuple[str, float], list[float]] = defaultdict(list)
    for r in done:
        s = r["spec"]
        key = (f"{float(s.get('beta', 1e6)):g}", float(s.get("epsilon", 0.05)))
        groups[key].append(r["exploitability"])
    return {"series": _final_series(groups, "epsilon", lambda beta: f"β = {beta}")}


def _stack_of(game: str) -> int | None:
    from ..games.registry import load_game

    try:
        stack = getattr(load_game(game), "stack", None)
    except RcfrError:
        return None
    return int(stack) if isinstance(stack, int) else None


def _collect_stacks(done: list[dict]) -> dict[str, Any]:
    """Final exploitability divided by the starting stack, by stack and algorithm (Gibson et
    al.'s Figure 2b); in game units (chips), so ``scale`` turns them into mbb/g per chip."""
    groups: dict[tuple[str, int], list[float]] = defaultdict(list)
    for r in done:
        s = r["spec"]
        k = _stack_of(s["game"])
        if k is not None:
            groups[(_curve_label(s), k)].append(r["exploitability"] / k)
    nodes = sorted({r["spec"].get("nodes") for r in done if r["spec"].get("nodes")})
    return {"series": _final_series(groups, "stack", str), "nodes": nodes}


def _partitions(spec: dict) -> int | None:
    match = re.fullmatch(r"hashing:(\d+)", str(spec.get("features", "")))
    return int(match.group(1)) if match else None


def _collect_links(done: list[dict], store: Store) -> dict[str, Any]:
    groups: dict[tuple[str, int], list[float]] = defaultdict(list)
    errors: dict[tuple[str, int], list[float]] = defaultdict(list)
    cells: dict[tuple[int, str], list[dict]] = defaultdict(list)
    references = []
    for r in done:
        s = r["spec"]
        k = _partitions(s)
        if s.get("regressor") == "ridge" and k is not None:
            groups[(s.get("link") or "poly:2", k)].append(r["exploitability"])
            cells[(k, s.get("link") or "poly:2")].append(r)
            if r.get("regression_error") is not None:  # (runs of rcfr 0.1 before it)
                errors[(s.get("link") or "poly:2", k)].append(r["regression_error"])
        elif s["algorithm"] in ("cfr", "cfr+"):
            references.append({"label": f"tabular {s['algorithm'].upper()} "
                                        f"({_averaging(s)} averaging)",
                               "exploitability": r["exploitability"]})
    def label(link: str) -> str:
        return link + (" (RCFR's regret matching)" if link == "poly:2" else "")

    return {"series": _final_series(groups, "partitions", label), "references": references,
            "errors": _final_series(errors, "partitions", label),
            "best": _best_link_curves(cells, store)}


def _collect_suite(done: list[dict], store: Store, order: list[str]) -> dict[str, Any]:
    """Per game (in the spec's order): each rule's curve by iterations (the rules are
    deterministic: one run each, the first seed's where a spec gives several) and the DDCFR
    authors' published curves for the game, where they have one."""
    from ..games.suite import papers_unit
    from .published import ALGORITHMS, published_curve, published_games

    games: dict[str, Any] = {}
    have = published_games()
    for game in dict.fromkeys(order):
        rules: dict[str, Any] = {}
        for r in sorted((r for r in done if r["spec"]["game"] == game),
                        key=lambda r: r["spec"].get("seed") or 0):
            if r["spec"]["algorithm"] in rules:  # (a later seed of a rule already drawn)
                continue
            points = store.points(r["hash"])
            unit = papers_unit(game)  # (the published curves' unit)
            if points:
                rules[r["spec"]["algorithm"]] = {
                    "x": [p["iterations"] for p in points],
                    "exploitability": [unit * p["exploitability"] for p in points],
                    "seconds": [p["seconds"] for p in points]}
        published = ({a: [list(p) for p in published_curve(game, a)] for a in ALGORITHMS}
                     if game in have else {})
        if rules:
            games[game] = {"rules": rules, "published": published}
    return {"axis": "iterations", "games": games}


def lowest_mean(groups: dict[Any, list[float]]) -> Any:
    """The key whose values have the lowest mean: D'Orazio et al.'s pick of the best link
    for a number of partitions (lowest mean final exploitability over the seeds)."""
    return min(groups, key=lambda key: statistics.fmean(groups[key]))


def _best_link_curves(cells: dict[tuple[int, str], list[dict]], store: Store
                      ) -> dict[str, dict]:
    """D'Orazio et al.'s Fig. 2 (left): for each number of partitions, the link with the
    lowest mean final exploitability over the seeds, and its mean curve with 95% intervals."""
    out = {}
    for k in sorted({k for k, _ in cells}):
        link = lowest_mean({n: [r["exploitability"] for r in rs]
                            for (at, n), rs in cells.items() if at == k})
        runs = cells[(k, link)]
        for row in _collect_curves(runs, store, "iterations")["series"].values():
            row["label"] = _ci_label(f"{k} partitions: {link}", row["seeds"])
            out[f"{k}:{link}"] = row
    return out


def _final_series(groups: dict[tuple[str, Any], list[float]], x: str,
                  label: Callable[[str], str]) -> dict[str, dict]:
    """Final values grouped by ``(series, abscissa)``: per series, the abscissae (under
    ``x``), the means over seeds with their 95% intervals, the runs and a label."""
    series: dict[str, dict] = {}
    for (name, at), values in sorted(groups.items()):
        row = series.setdefault(name, {x: [], "exploitability": [], "ci95": [], "runs": []})
        mean, half = mean_ci(values)
        row[x].append(at)
        row["exploitability"].append(mean)
        row["ci95"].append(half)
        row["runs"].append(values)
    seeds = max((len(v) for v in groups.values()), default=0)
    for name, row in series.items():
        row["label"] = _ci_label(label(name), seeds)
    return series


# -- plots --------------------------------------------------------------------------------------
def _positive(values) -> list[float]:
    return [max(v, 1e-12) for v in values]


def _band(ax, xs, mean, half, color, f) -> None:
    if any(h is not None for h in half):
        low = [f * (m - (h or 0.0)) for m, h in zip(mean, half, strict=True)]
        high = [f * (m + (h or 0.0)) for m, h in zip(mean, half, strict=True)]
        ax.fill_between(xs, _positive(low), _positive(high), color=color, alpha=0.2,
                        linewidth=0)


def _plot_complexity(axes, data) -> None:
    f = data["scale"]
    styles = {"BF": ("C0", "o", "-"), "BF_BS": ("C0", "s", "--"), "BF+": ("C3", "o", "-"),
              "BF+_BS": ("C3", "s", "--"), "RP": ("C2", "^", "-"), "RP+": ("C1", "^", "-"),
              "RP_BS": ("C2", "v", "--"), "RP+_BS": ("C1", "v", "--")}
    for ax, log in zip(axes, (False, True), strict=True):
        for name, row in data["series"].items():
            color, marker, line = styles.get(name, (None, "o", "-"))
            req = [100 * x for x in row["requested"]]
            y = [f * v for v in row["exploitability"]]
            seeds = max(row["seeds"])
            ax.plot(req, _positive(y) if log else y, color=color, marker=marker,
                    linestyle=line, label=_ci_label(f"{name} (requested budget)", seeds))
            ax.scatter([100 * x for x in row["used"]], _positive(y) if log else y,
                       color=color, marker="x", s=18, zorder=3)
            _band(ax, req, row["exploitability"], row["ci95"], color, f)
        if data["series"]:
            ax.scatter([], [], marker="x", color="0.3", label="leaves actually used")
        for k, a in enumerate(data["abstractions"]):
            y = f * a["exploitability"]
            ax.scatter([100 * (a["complexity_share"] or 0)], [max(y, 1e-12) if log else y],
                       marker="D", color=f"C{4 + k % 5}",
                       label=f"abstraction {a['label']} ({a['algorithm'].upper()})")
        for k, ref in enumerate(data["references"]):
            y = f * ref["exploitability"]
            ax.axhline(max(y, 1e-12) if log else y, color="k",
                       linestyle=(":", "-.")[k % 2], label=ref["label"])
        if log:
            ax.set_yscale("log")
        ax.set_xlabel("complexity (% of the game's sequences)")
        ax.set_ylabel(data["unit"])
        ax.set_title(f"{'log' if log else 'linear'} scale")
    axes[0].figure.suptitle(f"RCFR on {data['game']} ({data['name']})")
    # One legend right of both panels: inside, it hid points (J.Q.K at 68.75%, 621 mbb/g).
    if axes[1].get_legend_handles_labels()[0]:
        axes[1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                       fontsize="x-small")


def _plot_curves(axes, data) -> None:
    (ax,) = axes
    f = data["scale"]
    for k, (_, row) in enumerate(data["series"].items()):
        color = f"C{k % 10}"
        ax.plot(row["x"], _positive([f * v for v in row["exploitability"]]), marker="o",
                markersize=3, color=color, label=row["label"])
        _band(ax, row["x"], row["exploitability"], row["ci95"], color, f)
    if data.get("uniform") is not None:
        ax.axhline(f * data["uniform"], color="k", linestyle="--",
                   label="uniform strategy (no averaging)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel({"nodes": "nodes visited", "seconds": "seconds (wall, with evaluation)"}
                  .get(data["axis"], "iterations"))
    ax.set_ylabel(data["unit"])
    ax.set_title(f"{data['game']} ({data['name']})")


def _plot_width(axes, data) -> None:
    """One panel per x axis (nodes visited, seconds) of the same runs."""
    for ax, panel in zip(axes, data["panels"].values(), strict=True):
        _plot_curves([ax], {**data, **panel})


def _plot_links(axes, data) -> None:
    curves, ax, right = axes
    f = data["scale"]
    # D'Orazio et al.'s Fig. 2 (left): the best link of each number of partitions over time
    _plot_curves([curves], {**data, "series": data.get("best") or {}, "axis": "iterations",
                            "uniform": None})
    curves.set_title(f"{data['game']}: the best link per number of partitions over time")
    _errorbars(ax, data, "partitions")
    for k, ref in enumerate(data["references"]):
        ax.axhline(max(f * ref["exploitability"], 1e-12), color="k",
                   linestyle=(":", "-.")[k % 2], label=ref["label"])
    ax.set_yscale("log")
    ax.set_xlabel("hashing partitions")
    ax.set_ylabel(data["unit"])
    ax.set_title(f"f-RCFR (ridge, tug-of-war hashing) on {data['game']} ({data['name']})")
    # D'Orazio et al.'s Fig. 1: the cumulative regression error by partitions
    _errorbars(right, {"series": data.get("errors") or {}, "scale": 1.0}, "partitions")
    if not data.get("errors"):
        right.text(0.5, 0.5, "no run recorded its regression error", ha="center",
                   transform=right.transAxes, color="0.4")
    else:
        right.set_yscale("log")
    right.set_xlabel("hashing partitions")
    right.set_ylabel("cumulative regression error")
    right.set_title("sum over iterations of |estimates - cumulative regrets|^2")


def _errorbars(ax, data, x: str) -> None:
    """One line per series with its 95% intervals, ``x`` the series' key of the abscissae."""
    f = data["scale"]
    for k, (_, row) in enumerate(data["series"].items()):
        y = [f * v for v in row["exploitability"]]
        err = [f * (h or 0.0) for h in row["ci95"]]
        ax.errorbar(row[x], _positive(y), yerr=err if any(err) else None, marker="o",
                    capsize=3, color=f"C{k % 10}", label=row["label"])


def _plot_parameters(axes, data) -> None:
    (ax,) = axes
    _errorbars(ax, data, "epsilon")
    ax.set_yscale("log")
    ax.set_xlabel("ε (AS's exploration)")
    ax.set_ylabel(data["unit"])
    ax.set_title(f"AS by ε and β on {data['game']} ({data['name']})")


def _plot_stacks(axes, data) -> None:
    (ax,) = axes
    _errorbars(ax, data, "stack")
    stacks = sorted({k for row in data["series"].values() for k in row["stack"]})
    if stacks:
        ax.set_xticks(stacks)
    ax.set_yscale("log")
    ax.set_xlabel("starting stack k (chips)")
    ax.set_ylabel(data["unit"] + " / k")
    budget = ", ".join(f"{n:.3g}" for n in data.get("nodes", []))
    ax.set_title(f"after {budget} nodes visited ({data['name']})")


_RULE_COLORS = {"cfr": "C0", "cfr+": "C1", "dcfr": "C2", "ddcfr": "C3", "lcfr": "C4",
                "pcfr+": "C5", "pdcfr+": "C6"}


def _plot_suite(axes, data) -> None:
    """One panel per game: rcfr's rules as solid lines, the published curves dashed in the
    same rule's colour (iteration 0, the uniform strategy, is left off the log axis).  Against
    seconds (``data["axis"]``) the published curves, which have no times, are left out."""
    seconds = data.get("axis", "iterations") == "seconds"
    for ax, (game, panel) in zip(axes, data["games"].items(), strict=True):
        for k, (rule, row) in enumerate(panel["rules"].items()):
            color = _RULE_COLORS.get(rule, f"C{(7 + k) % 10}")
            xs = row["seconds"] if seconds else row["x"]
            keep = [k for k, x in enumerate(xs) if x is not None and x > 0]
            ax.plot([xs[k] for k in keep], _positive([row["exploitability"][k] for k in keep]),
                    color=color, label=f"{rule.upper()} (rcfr)")
        for rule, points in ({} if seconds else panel["published"]).items():
            points = [(x, y) for x, y in points if x > 0]
            ax.plot([x for x, _ in points], _positive([y for _, y in points]), linestyle="--",
                    color=_RULE_COLORS.get(rule, "k"), label=f"{rule.upper()} (published)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("seconds (wall clock, evaluation included)" if seconds else "iterations")
        ax.set_ylabel(data["unit"])
        ax.set_title(f"{game} ({data['name']})")


_PLOTTERS = {"rcfr_complexity": (_plot_complexity, 2), "mccfr_nodes": (_plot_curves, 1),
             "convergence": (_plot_curves, 1), "convergence_seconds": (_plot_curves, 1),
             "frcfr_links": (_plot_links, 3),
             "mccfr_parameters": (_plot_parameters, 1), "mccfr_stacks": (_plot_stacks, 1),
             "width_vs_sampling": (_plot_width, 2),
             "convergence_suite": (_plot_suite, 0)}  # 0: one panel per game, three a row


def _figure_kind(data: Any) -> str:
    """The plot kind of :func:`collect`'s ``data``, refused where it is none of ours."""
    kind = data.get("figure") if isinstance(data, dict) else None
    if kind not in _PLOTTERS:
        raise RcfrError(f"not figure data: expected 'figure' one of {', '.join(_PLOTTERS)}")
    return kind


def plot(data: dict[str, Any], path: str | os.PathLike) -> None:
    """Draw :func:`collect`'s data into the PNG ``path`` (written atomically)."""
    _figure_kind(data)  # (before the path is probed)
    target = check_writable(path)
    fig = draw_figure(data)
    write_atomic(target, lambda handle: fig.savefig(handle, format="png"))


def draw_figure(data: dict[str, Any]):
    """:func:`collect`'s data drawn on a matplotlib ``Figure`` (what :func:`plot` writes)."""
    kind = _figure_kind(data)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    draw, panels = _PLOTTERS[kind]
    rows, cols = 1, panels
    if not panels:  # a panel per game
        games = data.get("games")
        panels = max(1, len(games) if isinstance(games, dict) else 0)
        cols = min(3, panels)
        rows = -(-panels // cols)
    width = 7.5 * cols + (3.5 if kind == "rcfr_complexity" else 0.0)  # its legend, outside
    fig = Figure(figsize=(width, 5.2 * rows), dpi=110)
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(rows, cols, k + 1) for k in range(panels)]
    try:
        draw(axes, data)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RcfrError(f"malformed {kind} data: {type(exc).__name__} {exc}") from None
    notes = []
    if data.get("failed"):
        notes.append(f"{len(data['failed'])} run(s) failed")
    if data.get("missing"):
        notes.append(f"{data['missing']} run(s) not run yet")
    if notes:
        fig.text(0.01, 0.01, "; ".join(notes), fontsize="small", color="0.4")
    placed = any(ax.get_legend() for ax in axes)  # a plotter that placed its own legend
    for ax in axes:
        ax.grid(True, which="major", alpha=0.3)
        if ax.get_legend_handles_labels()[0] and not placed:
            ax.legend(fontsize="x-small")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig

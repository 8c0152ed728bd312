"""The papers' figures: experiments that return plain data and a plot that draws them.

Each entry of :data:`FIGURES` maps a name to ``(description, function)``.  A function takes
keyword parameters only (defaults small enough for a run of seconds to a minute; the papers'
settings are given in each docstring) and an optional ``progress(done, total, label)``
callback, called after each unit of work (one solver run), and returns a JSON-serialisable
dict: strings, numbers and lists of them, with ``"figure"`` naming the figure.
:func:`plot` draws such a dict into a PNG (matplotlib's Agg canvas, written atomically).

Exploitability is in game units in the data (as :func:`rcfr.exploitability` gives it); the
plots show poker games in milli-big-blinds per game (mbb/g), as the papers do.

Bad parameters raise :class:`rcfr.errors.RcfrError` with a one-line message.
"""

from __future__ import annotations

import math
import numbers
import os
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from .errors import RcfrError
from .evaluate import exploitability
from .fileio import check_writable, write_atomic
from .games.goofspiel import Goofspiel
from .games.leduc import LeducPoker
from .games.liars_dice import LiarsDice
from .games.nl_one_card import NLOneCardPoker
from .links import parse_link
from .policy import TabularPolicy
from .solvers.loop import CFRSolver
from .solvers.rcfr import RCFRSolver
from .solvers.sampling import check_parameters, nodes_curve
from .tree import GameTree, compile_game

Progress = Callable[[int, int, str], None]

# the thesis's four best-first variants (Morrill 2016, ch. 4): name -> (algorithm, bootstrap)
RCFR_VARIANTS = {
    "RCFR": ("rcfr", False),
    "RCFR (bootstrap)": ("rcfr", True),
    "RCFR+": ("rcfr+", False),
    "RCFR+ (bootstrap)": ("rcfr+", True),
}
RCFR_SHARES_LEDUC = (0.1, 0.3, 0.5, 0.8)  # figure 4.1's range
RCFR_SHARES_ONE_CARD = (0.02, 0.05, 0.1, 0.2, 0.35)  # figure 4.3's range
CONVERGENCE_ALGORITHMS = ("cfr", "cfr+", "rcfr", "rcfr+")
# partitions of the tug-of-war hashing features where the approximation matters: canonical
# Leduc has 144 information sets a player (10 buckets a partition, exact from about 15 on);
# D'Orazio et al. used 10-50 on Leduc (468 a player) and goofspiel (1,062 a player)
FRCFR_PARTITIONS_CANONICAL = (4, 6, 8, 10, 12, 16)
FRCFR_PARTITIONS_PAPER = (10, 20, 30, 40, 50)
# regret matching, a smaller and a larger power (the paper's 1.5 and 3) and Hedge; the
# counterfactual regrets of one iteration are of the order of one chip (utility) in Leduc and
# goofspiel, and temperatures 0.3-3 all do about as well there, so T = 1
FRCFR_LINKS = ("poly:2", "poly:1.5", "poly:3", "exp:1")


# -- parameter checks ---------------------------------------------------------------------
def _whole(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise RcfrError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    return int(value)


def _count(name: str, value: Any, minimum: int = 1) -> int:
    """A whole number that may be written as a float (``3e6``)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool | numbers.Integral):
        if math.isfinite(value) and float(value).is_integer():
            value = int(value)
    return _whole(name, value, minimum)


def _nonempty(name: str, values: Any) -> list:
    if isinstance(values, str) or not isinstance(values, Sequence) or not values:
        raise RcfrError(f"{name} must be a non-empty list, got {values!r}")
    return list(values)


def _shares(values: Any) -> list[float]:
    out = []
    for s in _nonempty("shares", values):
        if (isinstance(s, bool) or not isinstance(s, numbers.Real) or not math.isfinite(s)
                or not 0.0 < s <= 1.0):
            raise RcfrError(f"a complexity share must be in (0, 1], got {s!r}")
        out.append(float(s))
    if len(set(out)) != len(out):
        raise RcfrError(f"the complexity shares must be distinct, got {values!r}")
    return sorted(out)


def _game(game: Any, figure: str, kinds: tuple[type, ...], names: str) -> GameTree:
    """The compiled game, if it is one of the figure's games."""
    if isinstance(game, GameTree):
        tree = game
    elif isinstance(game, str):
        tree = compile_game(game)
    else:
        raise RcfrError(f"the game must be a game string, got {game!r}")
    if kinds and not isinstance(tree.game, kinds):
        raise RcfrError(f"{figure} runs on {names}, not {str(tree.game)!r}")
    return tree


class _Steps:
    """Counts units of work and reports each to ``progress(done, total, label)``."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self, label: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, label)


def _log_points(last: int, points: int, first: float = 1.0) -> list[int]:
    """About ``points`` distinct whole numbers spaced evenly in log scale from ``first`` to
    ``last`` (both included)."""
    if points == 1 or last <= first:
        return [last]
    ratio = (last / first) ** (1.0 / (points - 1))
    return sorted({max(1, min(last, round(first * ratio**k))) for k in range(points)} | {last})


def _uniform_exploitability(tree: GameTree) -> float:
    return float(exploitability(tree, TabularPolicy.uniform(tree)))


def _base(figure: str, tree: GameTree, **fields: Any) -> dict[str, Any]:
    return {"figure": figure, "game": str(tree.game), "big_blind": tree.game.big_blind,
            "sequences": tree.num_sequences,
            "uniform_exploitability": _uniform_exploitability(tree), **fields}


# -- 1. RCFR complexity (Morrill 2016, figures 4.1 and 4.3) -------------------------------
def rcfr_complexity(*, game: str | GameTree = "leduc(canonical=true)", iterations: int = 1000,
                    shares: Sequence[float] | None = None,
                    variants: Sequence[str] = tuple(RCFR_VARIANTS),
                    progress: Progress | None = None) -> dict[str, Any]:
    """Exploitability of the average strategy after ``iterations`` iterations against the
    regressor's complexity (tree leaves as a share of the game's sequences) for RCFR, RCFR+ and
    their bootstrapped forms with best-first trees on the thesis's features, with tabular CFR+
    (uniform averaging, the thesis's FULL+) as the reference: Morrill 2016, Figure 4.1
    (Leduc hold'em) and Figure 4.3 (no-limit one-card poker).

    Games: ``leduc``, ``leduc(canonical=true)``, ``nl_one_card``.  ``shares`` default to
    10-80% in Leduc and 2-35% in one-card poker (the thesis omits larger trees there: they all
    match FULL+).  The thesis ran 100,000 iterations (``iterations=100_000`` reproduces it, at
    about 100 times the default's cost)."""
    tree = _game(game, "rcfr_complexity", (LeducPoker, NLOneCardPoker),
                 "leduc, leduc(canonical=true) or nl_one_card (the thesis's feature games)")
    iterations = _whole("iterations", iterations)
    if shares is None:
        shares = RCFR_SHARES_LEDUC if isinstance(tree.game, LeducPoker) else RCFR_SHARES_ONE_CARD
    shares = _shares(shares)
    variants = _nonempty("variants", variants)
    for v in variants:
        if v not in RCFR_VARIANTS:
            raise RcfrError(f"unknown RCFR variant {v!r}; use {', '.join(RCFR_VARIANTS)}")
    step = _Steps(progress, len(variants) * len(shares) + 1)
    t0 = time.perf_counter()
    series: dict[str, Any] = {}
    for name in variants:
        algorithm, bootstrap = RCFR_VARIANTS[name]
        row: dict[str, Any] = {"algorithm": algorithm, "bootstrap": bootstrap, "leaves": [],
                               "complexity": [], "complexity_share": [], "exploitability": []}
        for share in shares:
            leaves = max(2, round(share * tree.num_sequences))
            solver = RCFRSolver(tree, algorithm, regressor="best-first", leaves=leaves,
                                bootstrap=bootstrap, features="thesis").run(iterations)
            row["leaves"].append(leaves)
            row["complexity"].append(solver.complexity)
            row["complexity_share"].append(solver.complexity_share)
            row["exploitability"].append(float(exploitability(tree, solver.average_policy())))
            step(f"{name}, {share:.0%} of the game")
        series[name] = row
    full = CFRSolver(tree, "cfr+", averaging="uniform").run(iterations)
    step("CFR+ (tabular)")
    return _base("rcfr_complexity", tree, iterations=iterations, shares=shares, series=series,
                 reference={"label": "CFR+ (tabular, uniform averaging)",
                            "exploitability": float(exploitability(tree,
                                                                   full.average_policy()))},
                 seconds=time.perf_counter() - t0)


# -- 2. MCCFR by nodes visited (Gibson et al. 2012, figures 2a and 3a) --------------------
def mccfr_nodes(*, game: str | GameTree = "nl_one_card",
                schemes: Sequence[str] = ("cs", "es", "os", "as"),
                budget: float = 3_000_000, points: int = 7, seeds: int = 3,
                progress: Progress | None = None) -> dict[str, Any]:
    """Exploitability of the average strategy against histories visited for chance, external,
    outcome (epsilon 0.5) and average strategy sampling (epsilon 0.05, beta 1e6, tau 1000):
    mean over ``seeds`` runs with a 95% interval (1.96 standard errors), at ``points`` budgets
    spaced evenly in log scale over three decades up to ``budget``.  Gibson et al. 2012,
    Figure 2a (no-limit hold'em; here no-limit one-card poker) and Figure 3a (Bluff(1,1) =
    ``liars_dice``); they ran 5 seeds to about 1e12 nodes.

    Games: ``nl_one_card``, ``liars_dice``.  Each run is
    :func:`rcfr.solvers.sampling.nodes_curve` (as in ``benchmarks/bench_sampling.py``)."""
    tree = _game(game, "mccfr_nodes", (NLOneCardPoker, LiarsDice),
                 "nl_one_card or liars_dice (Gibson et al.'s no-limit poker and Bluff)")
    schemes = [check_parameters(s)[0] for s in _nonempty("schemes", schemes)]
    if len(set(schemes)) != len(schemes):
        raise RcfrError(f"the schemes must be distinct, got {schemes!r}")
    budget = _count("the node budget", budget, minimum=10)
    points = _whole("points", points)
    seeds = _whole("seeds", seeds)
    budgets = _log_points(budget, points, first=max(1.0, budget / 1000.0))
    step = _Steps(progress, len(schemes) * seeds)
    t0 = time.perf_counter()
    series: dict[str, Any] = {}
    for scheme in schemes:
        runs = []
        for seed in range(seeds):
            runs.append(nodes_curve(tree, scheme, budgets, seed=seed))
            step(f"{scheme}, seed {seed}")
        expl = [[float(run[k][1]) for run in runs] for k in range(len(budgets))]
        mean = [statistics.fmean(v) for v in expl]
        half = [1.96 * statistics.stdev(v) / math.sqrt(len(v)) if len(v) > 1 else 0.0
                for v in expl]
        series[scheme] = {
            "label": scheme.upper(),
            "nodes": [statistics.fmean(run[k][0] for run in runs) for k in range(len(budgets))],
            "exploitability": mean, "ci95": half, "runs": expl,
        }
    return _base("mccfr_nodes", tree, budgets=budgets, seeds=seeds, series=series,
                 seconds=time.perf_counter() - t0)


# -- 3. f-RCFR links (D'Orazio et al. 2019, figure 2 right) -------------------------------
def frcfr_links(*, game: str | GameTree = "leduc(canonical=true)", iterations: int = 1000,
                partitions: Sequence[int] | None = None,
                links: Sequence[str] = FRCFR_LINKS, seeds: int = 1,
                progress: Progress | None = None) -> dict[str, Any]:
    """Exploitability of the average strategy after ``iterations`` iterations of f-RCFR (ridge
    regression on tug-of-war hashing features, weights summed over iterations) against the
    number of hashing partitions, one line per link function, with tabular CFR as the
    reference: D'Orazio et al. 2019, Figure 2 (right), which used 100,000 iterations and 5
    seeds (each seed draws other hash functions).

    Games: ``leduc(canonical=true)`` (partitions 4-16 by default), ``leduc`` and ``goofspiel``
    (the paper's 10-50).  Links: ``poly:P`` (P = 2 is RCFR's regret matching) and ``exp:T``."""
    tree = _game(game, "frcfr_links", (LeducPoker, Goofspiel),
                 "leduc, leduc(canonical=true) or goofspiel (D'Orazio et al.'s games)")
    iterations = _whole("iterations", iterations)
    if partitions is None:
        canonical = getattr(tree.game, "canonical", False)
        partitions = FRCFR_PARTITIONS_CANONICAL if canonical else FRCFR_PARTITIONS_PAPER
    ks = sorted({_whole("the number of partitions", k) for k in _nonempty("partitions",
                                                                           partitions)})
    links = [parse_link(spec).spec() for spec in _nonempty("links", links)]
    if len(set(links)) != len(links):
        raise RcfrError(f"the links must be distinct, got {links!r}")
    seeds = _whole("seeds", seeds)
    step = _Steps(progress, len(links) * len(ks) * seeds + 1)
    t0 = time.perf_counter()
    series: dict[str, Any] = {}
    for link in links:
        runs, complexity = [], []
        for k in ks:
            vals = []
            for seed in range(seeds):
                solver = RCFRSolver(tree, "rcfr", regressor="ridge", features=f"hashing:{k}",
                                    link=link, seed=seed).run(iterations)
                vals.append(float(exploitability(tree, solver.average_policy())))
                step(f"{link}, {k} partitions, seed {seed}")
            runs.append(vals)
            complexity.append(solver.complexity)
        series[link] = {"exploitability": [statistics.fmean(v) for v in runs], "runs": runs,
                        "complexity": complexity}
    cfr = CFRSolver(tree, "cfr").run(iterations)
    step("CFR (tabular)")
    return _base("frcfr_links", tree, iterations=iterations, partitions=ks, seeds=seeds,
                 series=series,
                 reference={"label": "CFR (tabular)",
                            "exploitability": float(exploitability(tree, cfr.average_policy()))},
                 seconds=time.perf_counter() - t0)


# -- 4. convergence ----------------------------------------------------------------------
def convergence(*, game: str | GameTree = "leduc(canonical=true)", iterations: int = 10_000,
                algorithms: Sequence[str] = ("cfr", "cfr+"), share: float = 0.45,
                points: int = 20, progress: Progress | None = None) -> dict[str, Any]:
    """Exploitability of the average strategy against iterations (log-log), at ``points``
    iterations spaced evenly in log scale: CFR (uniform averaging), CFR+ (linear averaging)
    and, when listed in ``algorithms``, RCFR / RCFR+ with a best-first tree of ``share`` of the
    game's sequences (default features; uniform averaging) -- cf. Morrill 2016, Figures 4.2
    and 4.4 (near 45% and 4% of the game).  Any game."""
    tree = _game(game, "convergence", (), "")
    iterations = _whole("iterations", iterations)
    algorithms = [str(a).strip().lower() for a in _nonempty("algorithms", algorithms)]
    for a in algorithms:
        if a not in CONVERGENCE_ALGORITHMS:
            raise RcfrError(f"unknown algorithm {a!r} for convergence; use "
                            f"{', '.join(CONVERGENCE_ALGORITHMS)}")
    if len(set(algorithms)) != len(algorithms):
        raise RcfrError(f"the algorithms must be distinct, got {algorithms!r}")
    (share,) = _shares([share])
    checkpoints = _log_points(iterations, _whole("points", points))
    step = _Steps(progress, len(algorithms) * len(checkpoints))
    t0 = time.perf_counter()
    series: dict[str, Any] = {}
    for name in algorithms:
        if name.startswith("rcfr"):
            leaves = max(2, round(share * tree.num_sequences))
            solver: Any = RCFRSolver(tree, name, regressor="best-first", leaves=leaves)
            label = f"{name.upper()} ({share:.0%} of the game)"
        else:
            solver = CFRSolver(tree, name)
            label = name.upper()
        curve = []
        for it in checkpoints:
            solver.run(it - solver.iteration)
            curve.append(float(exploitability(tree, solver.average_policy())))
            step(f"{name}, iteration {it}")
        series[name] = {"label": label, "iterations": list(checkpoints),
                        "exploitability": curve}
        if name.startswith("rcfr"):
            series[name]["complexity_share"] = solver.complexity_share
    return _base("convergence", tree, iterations=iterations, share=share, series=series,
                 seconds=time.perf_counter() - t0)


FIGURES: dict[str, tuple[str, Callable[..., dict[str, Any]]]] = {
    "rcfr_complexity": ("exploitability vs regressor complexity for RCFR/RCFR+ and their "
                        "bootstrapped forms (Morrill 2016, figs 4.1/4.3)", rcfr_complexity),
    "mccfr_nodes": ("exploitability vs nodes visited for CS, ES, OS, AS "
                    "(Gibson et al. 2012, figs 2-3)", mccfr_nodes),
    "frcfr_links": ("exploitability vs hashing partitions for f-RCFR's link functions "
                    "(D'Orazio et al. 2019, fig 2)", frcfr_links),
    "convergence": ("exploitability vs iterations for CFR, CFR+ (and RCFR+)", convergence),
}


# -- plotting ------------------------------------------------------------------------------
def _scale(data: dict[str, Any]) -> tuple[float, str]:
    """Factor and axis label: mbb/g for poker games, game units otherwise."""
    big_blind = data.get("big_blind")
    if big_blind:
        return 1000.0 / float(big_blind), "exploitability (mbb/g)"
    return 1.0, "exploitability"


def _positive(values: Sequence[float]) -> list[float]:
    """Values for a log axis (an exact 0 would vanish: shown at a tiny positive value)."""
    return [max(v, 1e-12) for v in values]


def _plot_rcfr_complexity(ax, data: dict[str, Any]) -> None:
    f, unit = _scale(data)
    styles = {"RCFR": ("C0", "o", "-"), "RCFR (bootstrap)": ("C0", "s", "--"),
              "RCFR+": ("C3", "o", "-"), "RCFR+ (bootstrap)": ("C3", "s", "--")}
    for name, row in data["series"].items():
        color, marker, line = styles.get(name, (None, "o", "-"))
        ax.plot([100 * s for s in row["complexity_share"]],
                _positive([f * v for v in row["exploitability"]]), color=color, marker=marker,
                linestyle=line, label=name)
    ref = data["reference"]
    ax.axhline(max(f * ref["exploitability"], 1e-12), color="k", linestyle=":",
               label=ref["label"])
    ax.set_yscale("log")
    ax.set_xlabel("complexity (% of the game's sequences)")
    ax.set_ylabel(unit)
    ax.set_title(f"RCFR on {data['game']} after {data['iterations']:,} iterations")


def _plot_mccfr_nodes(ax, data: dict[str, Any]) -> None:
    f, unit = _scale(data)
    for k, (scheme, row) in enumerate(data["series"].items()):
        x = row["nodes"]
        mean = [f * v for v in row["exploitability"]]
        low = [max(f * (m - h), f * min(r)) for m, h, r in
               zip(row["exploitability"], row["ci95"], row["runs"], strict=True)]
        high = [f * (m + h) for m, h in zip(row["exploitability"], row["ci95"], strict=True)]
        ax.plot(x, _positive(mean), marker="o", markersize=3, color=f"C{k}",
                label=row.get("label", scheme))
        ax.fill_between(x, _positive(low), _positive(high), color=f"C{k}", alpha=0.2,
                        linewidth=0)
    ax.axhline(f * data["uniform_exploitability"], color="k", linestyle="--",
               label="uniform strategy")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nodes visited")
    ax.set_ylabel(unit)
    ax.set_title(f"Monte Carlo CFR on {data['game']} (mean of {data['seeds']} seeds, 95% band)")


def _plot_frcfr_links(ax, data: dict[str, Any]) -> None:
    f, unit = _scale(data)
    ks = data["partitions"]
    for k, (link, row) in enumerate(data["series"].items()):
        ax.plot(ks, _positive([f * v for v in row["exploitability"]]), marker="o",
                color=f"C{k}", label=link)
        if data.get("seeds", 1) > 1:
            for x, runs in zip(ks, row["runs"], strict=True):
                ax.scatter([x] * len(runs), _positive([f * v for v in runs]), s=8,
                           color=f"C{k}", alpha=0.4)
    ref = data["reference"]
    ax.axhline(max(f * ref["exploitability"], 1e-12), color="k", linestyle=":",
               label=ref["label"])
    ax.set_yscale("log")
    ax.set_xlabel("hashing partitions")
    ax.set_ylabel(unit)
    ax.set_title(f"f-RCFR (ridge, tug-of-war hashing) on {data['game']}, "
                 f"{data['iterations']:,} iterations")


def _plot_convergence(ax, data: dict[str, Any]) -> None:
    f, unit = _scale(data)
    for name, row in data["series"].items():
        ax.plot(row["iterations"], _positive([f * v for v in row["exploitability"]]),
                label=row.get("label", name))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("iterations")
    ax.set_ylabel(unit)
    ax.set_title(f"Convergence on {data['game']}")


_PLOTTERS = {
    "rcfr_complexity": _plot_rcfr_complexity,
    "mccfr_nodes": _plot_mccfr_nodes,
    "frcfr_links": _plot_frcfr_links,
    "convergence": _plot_convergence,
}


def plot(data: dict[str, Any], path: str | os.PathLike) -> None:
    """Draw a figure's data (from one of :data:`FIGURES`' functions, or the same dict read
    back from JSON) into the PNG file ``path``, written atomically: a temporary file in the
    same directory, then :func:`os.replace`."""
    name = data.get("figure") if isinstance(data, dict) else None
    if name not in _PLOTTERS:
        raise RcfrError(f"not figure data: expected a dict with 'figure' one of "
                        f"{', '.join(_PLOTTERS)}")
    target = check_writable(path)  # fail before drawing
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise RcfrError("plotting needs matplotlib (pip install matplotlib)") from None
    fig = Figure(figsize=(7.5, 5.0), dpi=120)
    FigureCanvasAgg(fig)  # no pyplot: no global state, no display needed
    ax = fig.add_subplot()
    try:
        _PLOTTERS[name](ax, data)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RcfrError(f"malformed {name} data: {type(exc).__name__} {exc}") from None
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    write_atomic(target, lambda handle: fig.savefig(handle, format="png"))

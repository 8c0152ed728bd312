"""The ``rcfr`` command line: list games, solve them, evaluate strategies, solve the LP.

Every command takes ``--json`` and then prints one JSON object (or list) on stdout.  Bad input
gives a one-line ``error: ...`` on stderr and exit code 2.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .errors import RcfrError
from .evaluate import evaluate as evaluate_policy
from .fileio import check_writable, write_json
from .games.registry import STANDARD_GAMES, load_game, registered_games
from .lp import solve_lp
from .policy import TabularPolicy
from .public_passes import make_public_solver
from .public_tree import PublicTree, form_sizes
from .solvers.rcfr import REGRESSORS
from .solvers.rules import RULES
from .solvers.run import ALL_ALGORITHMS, make_solver
from .solvers.run import solve as run_solve
from .tree import compile_game

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  help="Solve two-player zero-sum imperfect-information games with CFR.")
out = Console(markup=False, highlight=False)
err = Console(stderr=True, markup=False, highlight=False)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object for scripts.")]
FormOpt = Annotated[str, typer.Option(
    "--form", help="Compiled form: history, public (poker and dice games) or auto (the public "
                   "form where the history form would not fit).")]


def _emit(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")


def _fmt_expl(ev) -> str:
    text = f"{ev.exploitability:.6g}"
    if ev.exploitability_mbb is not None:
        text += f"  ({ev.exploitability_mbb:.4g} mbb/g)"
    return text


@app.command()
def games(
    names: Annotated[list[str] | None, typer.Argument(help="Game strings (default: all).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List games with their sizes."""
    descriptions = registered_games()
    rows = []
    for spec in names or STANDARD_GAMES:
        game = load_game(spec)
        sizes = form_sizes(game)  # both compiled forms
        rows.append({"name": str(game), "description": descriptions.get(game.short_name, ""),
                     **sizes})
    if as_json:
        _emit(rows)
        return
    table = Table("game", "histories", "terminals", "infosets", "sequences", "history MiB",
                  "public nodes", "public MiB")
    table.columns[0].no_wrap = True
    for r in rows:
        table.add_row(r["name"], *(f"{r[k]:,}" for k in ("histories", "terminals", "infosets",
                                                          "sequences")),
                      ("~" if r["history_mb_estimated"] else "") + f"{r['history_mb']:,.1f}",
                      *(("-", "-") if r["public_nodes"] is None else
                        (f"{r['public_nodes']:,}", f"{r['public_mb']:,.1f}")))
    out.print(table)
    if not names:
        families = [f"{k}: {v}" for k, v in descriptions.items()]
        families.append("openspiel:<game>: any two-player zero-sum OpenSpiel game, e.g. "
                        "openspiel:leduc_poker (extra rcfr[openspiel])")
        out.print("Game families: " + "; ".join(families), markup=False, highlight=False)


@app.command()
def solve(
    game: Annotated[str, typer.Argument(help="Game string, e.g. 'leduc(canonical=true)'.")],
    algorithm: Annotated[str, typer.Option(
        "--algorithm", "-a",
        help=f"One of: {', '.join(ALL_ALGORITHMS)} (cfr ... pdcfr+: tabular, one per update "
             "rule; lcfr/dcfr: Linear/Discounted CFR, pcfr+/pdcfr+: predictive (discounted) "
             "CFR+; rcfr/rcfr+: regression CFR; cs/es/os/as: Monte Carlo CFR with chance, "
             "external, outcome or average strategy sampling).")] = "cfr+",
    rule: Annotated[str | None, typer.Option(
        help=f"rcfr and cs/es/os/as: the update rule, one of {', '.join(RULES)} (default cfr; "
             "rcfr+ is rcfr with cfr+).")] = None,
    iterations: Annotated[int, typer.Option("--iterations", "-n")] = 1000,
    nodes: Annotated[int | None, typer.Option(
        help="Run until this many histories have been visited, instead of --iterations.")] = None,
    epsilon: Annotated[float | None, typer.Option(
        help="os/as: exploration (default 0.5 for os, 0.05 for as).")] = None,
    alpha: Annotated[float | None, typer.Option(
        help="dcfr/pdcfr+: exponent of the positive-regret discount (default 1.5).")] = None,
    beta: Annotated[float | None, typer.Option(
        help="dcfr: exponent of the negative-regret discount (default 0); as: the sampling "
             "bonus beta (default 1e6).")] = None,
    gamma: Annotated[float | None, typer.Option(
        help="dcfr/pdcfr+: averaging power (default 2).")] = None,
    tau: Annotated[float | None, typer.Option(help="as: tau (default 1000).")] = None,
    eval_every: Annotated[int | None, typer.Option(
        "--eval-every", help="Evaluate the average strategy every K iterations (default: ten "
                             "times in a run; 0: only at the end).")] = None,
    seed: Annotated[int, typer.Option(help="Random seed (recorded; full-width CFR is "
                                           "deterministic).")] = 0,
    simultaneous: Annotated[bool, typer.Option("--simultaneous",
                                               help="Simultaneous instead of alternating "
                                                    "updates.")] = False,
    averaging: Annotated[str | None, typer.Option(
        help="uniform, linear or quadratic (default: the rule's: uniform for cfr, linear for "
             "cfr+ and lcfr, t^gamma for dcfr, quadratic for pcfr+; uniform for rcfr/rcfr+ and "
             "the sampling schemes with cfr or cfr+).")] = None,
    link: Annotated[str | None, typer.Option(
        help="Link function: poly:P (P > 1; poly:2 = regret matching) or exp:T (softmax with "
             "temperature T > 0).")] = None,
    regressor: Annotated[str | None, typer.Option(
        help=f"rcfr and cs/es/os/as: {', '.join(REGRESSORS)} (default best-first; the "
             "sampling schemes are tabular without one).")] = None,
    leaves: Annotated[int | None, typer.Option(
        help="best-first/recursive regressors: leaf budget of the regression trees, both "
             "players together (default: the game's sequences).")] = None,
    bootstrap: Annotated[bool, typer.Option(
        "--bootstrap", help="regressors: bootstrapped targets (thesis Algorithm 2) instead of a "
                            "stored regret table.")] = False,
    features: Annotated[str | None, typer.Option(
        help="regressors: thesis, onehot or hashing:K (default: thesis for poker, onehot "
             "otherwise; hashing:5 for ridge).")] = None,
    threshold: Annotated[float | None, typer.Option(
        help="--regressor recursive: split while a node's mean squared error on average "
             "regrets exceeds this.")] = None,
    criterion: Annotated[str | None, typer.Option(
        help="regression trees: squared_error (default) or absolute_error.")] = None,
    ridge_alpha: Annotated[float | None, typer.Option(
        "--ridge-alpha", help="--regressor ridge: the ridge penalty (default 1e-3).")] = None,
    hidden: Annotated[str | None, typer.Option(
        help="--regressor torch-mlp: hidden-layer widths, e.g. 64,64 (the default).")] = None,
    minibatch: Annotated[bool, typer.Option(
        help="sampling schemes with a regressor that trains incrementally (torch-mlp): fit "
             "only the sequences each pass touched, no dense feature matrix.")] = False,
    average_regressor: Annotated[str | None, typer.Option(
        help="rcfr: also fit the average strategy with this regressor (same names as "
             "--regressor); the exploitability reported is its strategy's, the tabular "
             "average's beside it.")] = None,
    average_leaves: Annotated[int | None, typer.Option(
        help="--average-regressor trees: leaf budget, both players together.")] = None,
    average_target: Annotated[str | None, typer.Option(
        help="--average-regressor: strategy (default; reach-weighted), weights (cumulative "
             "strategy weights) or bootstrap (those, bootstrapped: no table).")] = None,
    out_file: Annotated[Path | None, typer.Option("--out", "-o",
                                                  help="Write the average strategy here "
                                                       "(.npz).")] = None,
    current_file: Annotated[Path | None, typer.Option(
        "--out-current", help="Write the current strategy (the link applied to the last "
                              "estimates) here (.npz).")] = None,
    checkpoint: Annotated[Path | None, typer.Option(help="Write the solver state here at the "
                                                         "end.")] = None,
    resume: Annotated[Path | None, typer.Option(help="Continue from this checkpoint.")] = None,
    abstraction: Annotated[str | None, typer.Option(
        help="Solve an abstract game and play it in the full game: identity; leduc's JQK, "
             "J.QK, JQ.K, J.Q.K; wager abstractions null, P, HP, PD, HPD or bets:0.5,1,2 "
             "(pot fractions).")] = None,
    out_abstract: Annotated[Path | None, typer.Option(
        "--out-abstract", help="With --abstraction: write the abstract game's average strategy "
                               "here (.npz).")] = None,
    form: FormOpt = "auto",
    as_json: JsonOpt = False,
) -> None:
    """Run a solver and write its average strategy."""
    if iterations <= 0:
        raise RcfrError(f"--iterations must be positive, got {iterations}")
    if nodes is not None and nodes <= 0:
        raise RcfrError(f"--nodes must be positive, got {nodes}")
    eval_nodes = 0
    if eval_every is None:
        eval_every = 0 if nodes is not None else max(1, iterations // 10)
        eval_nodes = max(1, nodes // 10) if nodes is not None else 0
    if eval_every < 0:
        raise RcfrError(f"--eval-every must be >= 0, got {eval_every}")
    for path in (out_file, current_file, checkpoint, out_abstract):
        check_writable(path)
    tree = compile_game(game, form)
    solve_tree = tree  # the game the solver runs on: the abstract one with --abstraction
    if abstraction is not None:
        from .abstraction import abstract_game

        if isinstance(tree, PublicTree):
            raise RcfrError("--abstraction solves the abstract game's history form; "
                            "leave out --form public")

        solve_tree = abstract_game(tree, abstraction)
    elif out_abstract is not None:
        raise RcfrError("--out-abstract needs --abstraction")
    rcfr_options = {k: v for k, v in (
        ("regressor", regressor), ("leaves", leaves), ("features", features),
        ("bootstrap", bootstrap), ("threshold", threshold), ("criterion", criterion),
        ("ridge_alpha", ridge_alpha), ("hidden", hidden), ("minibatch", minibatch),
        ("average_regressor", average_regressor), ("average_leaves", average_leaves),
        ("average_target", average_target), ("epsilon", epsilon), ("beta", beta), ("tau", tau),
        ("alpha", alpha), ("gamma", gamma))
        if v is not None and v is not False}
    if averaging is not None:
        rcfr_options["averaging"] = averaging
    solver = (make_public_solver if isinstance(solve_tree, PublicTree) else make_solver)(
        solve_tree, algorithm, rule=rule, alternating=not simultaneous, link=link, seed=seed,
        **rcfr_options)
    if resume is not None:
        solver.load_checkpoint(resume)
    progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                        MofNCompleteColumn(), TextColumn("expl {task.fields[expl]}"),
                        TimeElapsedColumn(),
                        console=err, transient=True, disable=not err.is_terminal)
    with progress:
        task = progress.add_task(f"{algorithm} on {tree.game}",
                                 total=iterations if nodes is None else nodes, expl="-")

        def tick(done: int, expl: float | None) -> None:
            fields = {} if expl is None else {"expl": f"{expl:.3g}"}
            progress.update(task, completed=done, **fields)

        result = run_solve(tree, iterations=iterations, eval_every=eval_every, nodes=nodes,
                           eval_nodes=eval_nodes, solver=solver, callback=tick,
                           abstraction=solve_tree if abstraction is not None else None)
    if out_file is not None:
        result.policy.save(out_file)
    if out_abstract is not None:
        result.abstraction.abstract_policy.save(out_abstract)
    if current_file is not None:
        current = solver.current_policy()
        if abstraction is not None:
            from .abstraction import lift_policy

            current = lift_policy(tree, solve_tree, current)
        current.save(current_file)
    if checkpoint is not None:
        solver.save_checkpoint(checkpoint)
    info = result.to_dict()
    info.update({"out": str(out_file) if out_file else None,
                 "out_current": str(current_file) if current_file else None, "seed": seed,
                 "checkpoint": str(checkpoint) if checkpoint else None})
    if out_abstract is not None:
        info["out_abstract"] = str(out_abstract)
    if as_json:
        _emit(info)
        return
    ev = result.evaluation
    out.print(f"{result.algorithm} on {result.game}: {result.iterations:,} iterations, "
              f"{info['nodes_visited']:,} nodes visited in {result.seconds:.2f} s "
              f"({info['iterations_per_second']:,.0f} it/s)")
    out.print(f"  value to player 0   {ev.value:+.6f}")
    out.print(f"  exploitability      {_fmt_expl(ev)}")
    if "tabular_exploitability" in info:
        out.print(f"  tabular average     {info['tabular_exploitability']:.6g} (the model's "
                  "strategy above)")
    if "complexity" in info:
        out.print(f"  complexity          {info['complexity']:,} "
                  f"({100 * info['complexity_share']:.1f}% of {tree.num_sequences:,} sequences)")
    if out_file is not None:
        out.print(f"  average strategy -> {out_file}")


@app.command()
def evaluate(
    game: Annotated[str, typer.Argument(help="Game string.")],
    strategy: Annotated[Path | None, typer.Argument(help="Strategy file (.npz).")] = None,
    uniform: Annotated[bool, typer.Option("--uniform", help="Evaluate the uniform "
                                                            "policy.")] = False,
    form: FormOpt = "auto",
    as_json: JsonOpt = False,
) -> None:
    """Value, best-response values and exploitability of a strategy."""
    tree = compile_game(game, form)
    if uniform == (strategy is not None):
        raise RcfrError("give either a strategy file or --uniform")
    policy = TabularPolicy.uniform(tree) if uniform else TabularPolicy.load(strategy, tree)
    ev = evaluate_policy(tree, policy)
    if as_json:
        _emit(ev.to_dict())
        return
    out.print(f"{'uniform policy' if uniform else strategy} in {tree.game}")
    out.print(f"  value to player 0        {ev.value:+.6f}")
    out.print(f"  best response, player 0  {ev.best_response_values[0]:+.6f}")
    out.print(f"  best response, player 1  {ev.best_response_values[1]:+.6f}")
    out.print(f"  exploitability           {_fmt_expl(ev)}")
    out.print(f"  NashConv                 {ev.nash_conv:.6g}")


@app.command()
def lp(
    game: Annotated[str, typer.Argument(help="Game string.")],
    out_file: Annotated[Path | None, typer.Option("--out", "-o",
                                                  help="Write the equilibrium here.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact game value and an equilibrium from the sequence-form linear program."""
    check_writable(out_file)
    tree = compile_game(game)
    sol = solve_lp(tree)
    policy = TabularPolicy(tree, sol.strategy, {"algorithm": "lp"})
    ev = evaluate_policy(tree, policy)
    if out_file is not None:
        policy.save(out_file)
    if as_json:
        _emit({"game": str(tree.game), "value": sol.value,
               "exploitability": ev.exploitability, "out": str(out_file) if out_file else None})
        return
    out.print(f"{tree.game}: value to player 0 {sol.value:+.9f} "
              f"(equilibrium exploitability {ev.exploitability:.2g})")


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="Game string.")],
    strategy: Annotated[Path, typer.Argument(help="The strategy to play against (.npz).")],
    seat: Annotated[int, typer.Option(help="Your seat: 0 (first to act) or 1.")] = 0,
    hands: Annotated[int, typer.Option(help="Hands to play.")] = 1,
    seed: Annotated[int, typer.Option(help="Seed for chance and the strategy's "
                                           "actions.")] = 0,
) -> None:
    """Play against a saved strategy: pick actions by number or name; end of input stops."""
    import numpy as np

    from .play import play_hand

    if seat not in (0, 1):
        raise RcfrError(f"--seat must be 0 or 1, got {seat}")
    if hands <= 0:
        raise RcfrError(f"--hands must be positive, got {hands}")
    tree = compile_game(game)
    policy = TabularPolicy.load(strategy, tree)
    rng = np.random.default_rng(seed)

    def read() -> str | None:
        line = sys.stdin.readline()
        return line if line else None

    def write(text: str) -> None:
        out.print(text)

    total, played = 0.0, 0
    for h in range(hands):
        out.print(f"-- hand {h + 1} of {hands}, you are player {seat} in {tree.game}")
        payoff = play_hand(policy, seat, rng, read, write)
        if payoff is None:
            out.print("end of input")
            break
        total += payoff
        played += 1
    out.print(f"you played {played} hand(s): {total:+g} in all"
              + (f", {total / played:+.3f} per hand" if played else ""))


def _csv(text: str | None, cast) -> list | None:
    if text is None:
        return None
    try:
        return [cast(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise RcfrError(f"cannot read the list {text!r}: comma-separated values expected") from None


@app.command()
def figure(
    name: Annotated[str, typer.Argument(help="rcfr_complexity, mccfr_nodes, frcfr_links or "
                                             "convergence.")],
    out_file: Annotated[Path | None, typer.Option("--out", "-o",
                                                  help="PNG to write (default NAME.png).")] = None,
    data_file: Annotated[Path | None, typer.Option("--data", help="Also write the figure's "
                                                                  "data here (JSON).")] = None,
    game: Annotated[str | None, typer.Option(help="The game (each figure has a default).")] = None,
    iterations: Annotated[int | None, typer.Option("--iterations", "-n")] = None,
    budget: Annotated[float | None, typer.Option(help="mccfr_nodes: largest node budget.")] = None,
    seeds: Annotated[int | None, typer.Option(help="Runs per point (mean and 95% band).")] = None,
    shares: Annotated[str | None, typer.Option(
        help="rcfr_complexity: leaves as shares of the sequences, e.g. 0.1,0.3,0.5.")] = None,
    partitions: Annotated[str | None, typer.Option(
        help="frcfr_links: numbers of hashing partitions, e.g. 2,4,8,16.")] = None,
    algorithms: Annotated[str | None, typer.Option(
        help="convergence: e.g. cfr,cfr+,rcfr+.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Compute one of the papers' figures and plot it: RCFR exploitability vs complexity
    (Morrill 2016, figs 4.1/4.3), MCCFR vs nodes visited (Gibson et al. 2012), f-RCFR links vs
    hashing partitions (D'Orazio et al. 2019), or convergence curves."""
    from .figures import FIGURES, plot

    if name not in FIGURES:
        raise RcfrError(f"unknown figure {name!r}; use one of {', '.join(FIGURES)}")
    out_file = out_file if out_file is not None else Path(f"{name}.png")
    for path in (out_file, data_file):
        check_writable(path)
    _, function = FIGURES[name]
    given = {"game": game, "iterations": iterations, "budget": budget, "seeds": seeds,
             "shares": _csv(shares, float), "partitions": _csv(partitions, int),
             "algorithms": _csv(algorithms, str)}
    given = {k: v for k, v in given.items() if v is not None}
    accepted = inspect.signature(function).parameters
    for key in given:
        if key not in accepted:
            raise RcfrError(f"figure {name} takes no --{key}")
    progress = Progress(TextColumn(name, markup=False), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[label]}", markup=False), TimeElapsedColumn(),
                        console=err, transient=True, disable=not err.is_terminal)
    with progress:
        task = progress.add_task(name, total=None, label="")

        def tick(done: int, total: int, label: str) -> None:
            progress.update(task, completed=done, total=total, label=label)

        data = function(**given, progress=tick)
    plot(data, out_file)
    if data_file is not None:
        write_json(data_file, data)
    if as_json:
        _emit({"figure": name, "out": str(out_file),
               "data": str(data_file) if data_file else None, "seconds": data["seconds"]})
        return
    out.print(f"{name} on {data['game']}: {data['seconds']:.1f} s -> {out_file}"
              + (f" (data: {data_file})" if data_file else ""))


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning every input error into one line and exit code 2."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        app(args=args or ["--help"], prog_name="rcfr", standalone_mode=False)
    except RcfrError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        return 2
    except typer.Abort:
        err.print("aborted", markup=False)
        return 130
    except typer.Exit as exc:
        return exc.exit_code
    except OSError as exc:
        err.print(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
                  markup=False, highlight=False, soft_wrap=True)
        return 2
    except Exception as exc:
        if not callable(getattr(exc, "format_message", None)):
            raise
        # a usage error from the argument parser (click's, vendored or not)
        msg = " ".join(exc.format_message().split())
        err.print(f"error: {msg}", markup=False, highlight=False, soft_wrap=True)
        return 2
    return 0


def entry() -> None:  # pragma: no cover - console script
    sys.exit(main())

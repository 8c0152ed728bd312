"""The aggregate report of a batch of boards (:mod:`.spot_batch`): per board and over all of
them, each player's EV and equity and the action frequencies at the root (and at a chosen
node), with the boards' textures; as CSV, a table and a figure of the frequencies by texture.

A board's figures are :meth:`rcfr.spot_report.SpotReport.totals` of its solved strategy: each
combo weighted by the chance of its pairs of hands at the node, as postflop-solver averages a
range, so the two players' EVs (postflop-solver's: chips taken from the pot) sum to the pot at
the root and their equities to 1. An aggregate is the mean of the boards' figures weighted by
the boards each stands for; a texture's the same over its boards.  Each board's figures are
kept in ``boards/<run hash>.json`` in the output folder, computed once.
"""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..core.errors import RcfrError
from ..core.fileio import write_atomic, write_json
from ..games.holdem.board_textures import PAIRING, SUITS, texture
from ..games.holdem.cards import RANK_CHARS
from ..games.holdem.combos import parse_board
from .runners import _one_thread
from .spot_batch import STORE_FILE, read_batch
from .store import Store

TEXTURES = ("suits", "pairing", "connected", "high")
SUMMARY_DIR = "boards"


def summarise_board(game: str, strategy: str, node: str | None = None) -> dict:
    """One solved board's figures at the root and at ``node`` (an action path)."""
    from ..forms.compile import compile_game
    from ..policy import TabularPolicy
    from ..spot_report import spot_report

    tree = compile_game(game, "public")
    probs = TabularPolicy.load(strategy, tree).probs
    out = {}
    for key, where in (("root", None), ("node", node)):
        if key == "node" and not node:
            continue
        report = spot_report(tree, probs, where)
        totals = [report.totals(p) for p in (0, 1)]
        out[key] = {"path": node or "", "player": report.player, "actions": report.actions,
                    "freq": totals[report.player]["strategy"],
                    "ev": [t["ev"] for t in totals], "equity": [t["equity"] for t in totals]}
    return out


def _summary_task(args: tuple[str, str, str | None]) -> dict:
    return summarise_board(*args)


def _init_worker() -> None:
    _one_thread()


def board_rows(out: Path, node: str | None = None, workers: int = 1) -> tuple[dict, list[dict]]:
    """The batch in ``out`` and one row per board (the solved ones with their figures,
    computed where not kept yet, on ``workers`` processes)."""
    batch = read_batch(out)
    store_path = out / STORE_FILE
    if not store_path.is_file():
        raise RcfrError(f"{out} holds no results ({STORE_FILE}): run rcfr spots first")
    with Store(store_path, readonly=True) as store:
        stored = {r["hash"]: r for r in store.runs(hashes=[b["hash"] for b in batch["boards"]])}
        strategies = {h: store.strategy_path(h) for h in stored}
    folder = out / SUMMARY_DIR
    node = (node or "").strip() or None
    rows, todo = [], []
    for b in batch["boards"]:
        run = stored.get(b["hash"])
        row = {"board": b["board"], "weight": b["weight"], "given": " ".join(b["given"]),
               **texture(parse_board(b["board"])), "status": run["status"] if run else "to run",
               "hash": b["hash"]}
        if run and run["status"] == "done":
            row.update(iterations=run["iterations"], seconds=run["seconds"],
                       exploitability=run["exploitability"],
                       exploitability_pct=100 * run["exploitability"] / batch["pot"])
            kept = _read_summary(folder / f"{b['hash']}.json", node)
            if kept is None:
                todo.append((len(rows), (run["spec"]["game"], str(strategies[b["hash"]]),
                                         node)))
            row["summary"] = kept
        rows.append(row)
    if todo:
        folder.mkdir(exist_ok=True)
        for (k, _), summary in zip(todo, _map(_summary_task, [a for _, a in todo], workers),
                                   strict=True):
            rows[k]["summary"] = summary
            write_json(folder / f"{rows[k]['hash']}.json", summary)
    for row in rows:
        summary = row.pop("summary", None)
        if summary is not None:
            _flatten(row, summary)
    return batch, rows


def _read_summary(path: Path, node: str | None) -> dict | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or "root" not in data:
        return None
    if node and data.get("node", {}).get("path") != node:
        return None
    return data


def _map(task, args: list, workers: int) -> list:
    if workers <= 1 or len(args) <= 1:
        return [task(a) for a in args]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(args)), mp_context=context,
                             initializer=_init_worker) as pool:
        return list(pool.map(task, args))


def _flatten(row: dict, summary: dict) -> None:
    root = summary["root"]
    for p, side in enumerate(("oop", "ip")):
        row[f"ev_{side}"] = root["ev"][p]
        row[f"equity_{side}"] = root["equity"][p]
    for key in ("root", "node"):
        if key in summary:
            at = summary[key]
            for action, f in zip(at["actions"], at["freq"], strict=True):
                row[f"{key}: {action}"] = f


FIGURES = ("ev_oop", "ev_ip", "equity_oop", "equity_ip")


def report_tables(out: Path, node: str | None = None, workers: int = 1) -> dict:
    """Everything the report of the batch in ``out`` shows (:func:`board_rows`): ``batch``,
    ``rows`` (one a board), ``freq`` (:func:`frequency_columns`), ``total``
    (:func:`aggregate` over all boards) and ``textures`` (:func:`by_texture`)."""
    batch, rows = board_rows(out, node, workers)
    freq = frequency_columns(rows)
    columns = [*FIGURES, *freq]
    return {"batch": batch, "rows": rows, "freq": freq, "total": aggregate(rows, columns),
            "textures": by_texture(rows, columns)}


def frequency_columns(rows: list[dict]) -> list[str]:
    """The action-frequency columns of the rows, in the order first seen."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key.startswith(("root: ", "node: ")):
                seen.setdefault(key)
    return list(seen)


def aggregate(rows: list[dict], columns: list[str]) -> dict:
    """The weighted means of ``columns`` over the solved ``rows`` (weight: the boards each
    stands for), with the boards and the weight they cover."""
    solved = [r for r in rows if r.get("ev_oop") is not None]
    total = sum(r["weight"] for r in solved)
    out = {"boards": len(solved), "weight": total}
    for c in columns:
        out[c] = (sum(r["weight"] * r.get(c, 0.0) for r in solved) / total) if total else None
    return out


def by_texture(rows: list[dict], columns: list[str]) -> list[dict]:
    """:func:`aggregate` over each texture's boards: one row per (texture, value)."""
    order = {"suits": SUITS, "pairing": PAIRING, "connected": (True, False),
             "high": tuple(reversed(RANK_CHARS))}
    out = []
    for t in TEXTURES:
        for value in order[t]:
            group = [r for r in rows if r[t] == value]
            agg = aggregate(group, columns)
            if agg["boards"]:
                name = ("connected" if value else "disconnected") if t == "connected" else (
                    f"{value}-high" if t == "high" else value)
                out.append({"texture": t, "value": name, **agg})
    return out


def csv_text(rows: list[dict], columns: list[str]) -> str:
    handle = io.StringIO()
    writer = csv.DictWriter(handle, columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: _csv_value(row.get(c)) for c in columns})
    return handle.getvalue()


def _csv_value(value):
    if isinstance(value, float):
        return repr(value)
    return "" if value is None else value


BOARD_COLUMNS = ("board", "weight", "given", "suits", "pairing", "connected", "high",
                 "status", "iterations", "seconds", "exploitability", "exploitability_pct",
                 *FIGURES)


def write_report(out: Path, rows: list[dict], textures: list[dict], total: dict,
                 freq: list[str], figure: bool = True) -> dict[str, str]:
    """``boards.csv``, ``textures.csv``, ``aggregate.json`` and (``figure``)
    ``textures.png`` in ``out``; their paths."""
    paths = {"boards": out / "boards.csv", "textures": out / "textures.csv",
             "aggregate": out / "aggregate.json"}
    board_csv = csv_text(rows, [*BOARD_COLUMNS, *freq, "hash"])
    write_atomic(paths["boards"], lambda h: h.write(board_csv.encode()))
    texture_csv = csv_text(textures, ["texture", "value", "boards", "weight", *FIGURES, *freq])
    write_atomic(paths["textures"], lambda h: h.write(texture_csv.encode()))
    write_json(paths["aggregate"], {"all": total, "textures": textures})
    if figure and freq and total["boards"]:
        paths["figure"] = out / "textures.png"
        plot_textures(paths["figure"], textures, [c for c in freq if c.startswith("root: ")])
    return {k: str(v) for k, v in paths.items()}


def plot_textures(path: Path, textures: list[dict], freq: list[str]) -> None:
    """The root's action frequencies by texture: one panel of stacked bars a texture."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 3.6), layout="constrained")
    canvas = FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(TEXTURES), sharey=True,
                        gridspec_kw={"width_ratios": [max(1, sum(r["texture"] == t
                                                                 for r in textures))
                                                      for t in TEXTURES]})
    for ax, t in zip(axes, TEXTURES, strict=True):
        group = [r for r in textures if r["texture"] == t]
        names = [r["value"] for r in group]
        bottom = [0.0] * len(group)
        for c in freq:
            heights = [r[c] or 0.0 for r in group]
            ax.bar(names, heights, bottom=bottom, label=c[len("root: "):])
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        ax.set_title(t)
        ax.tick_params(axis="x", labelrotation=90 if t == "high" else 0)
    axes[0].set_ylabel("root frequency")
    axes[-1].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    write_atomic(path, lambda handle: canvas.print_png(handle))

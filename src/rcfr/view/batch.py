"""The aggregate report of a batch of boards (``rcfr spots``) as one self-contained page: the
boards' table (weight, texture, exploitability, each player's EV and equity, the action
frequencies at the root and at the reported node), sortable by any column and filterable by
texture, and the texture summary (the same means as ``textures.csv``, with the root's action
frequencies as stacked bars).  The numbers are the report's own (what
:func:`rcfr.experiments.spot_aggregate.report_tables` gives and ``boards.csv`` holds), written
exactly (each float's shortest round-trip form); the page rounds them for display only.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from .site import asset, html_escape, script_json, write_site

COLUMNS = (("board", "board", "text"), ("weight", "weight", "weight"),
           ("given", "boards given", "text"), ("suits", "suits", "text"),
           ("pairing", "pairing", "text"), ("connected", "connected", "text"),
           ("high", "high card", "text"), ("status", "status", "text"),
           ("iterations", "iterations", "count"),
           ("exploitability_pct", "exploitability (% pot)", "num3"),
           ("ev_oop", "EV oop", "num2"), ("ev_ip", "EV ip", "num2"),
           ("equity_oop", "equity oop", "pct"), ("equity_ip", "equity ip", "pct"))


def texture_names(row: dict) -> list[str]:
    """The texture values a board's row belongs to, named as the texture summary names them
    (:func:`rcfr.experiments.spot_aggregate.by_texture`)."""
    return [row["suits"], row["pairing"], "connected" if row["connected"] else "disconnected",
            f"{row['high']}-high"]


def columns(freq: list[str]) -> list[dict]:
    """The boards' table's columns: key (the row's and ``boards.csv``'s), label and kind
    (``text``, ``weight``, ``count``, ``num2``, ``num3``, ``pct``; ``freq`` for an action
    frequency)."""
    out = [{"key": k, "label": label, "kind": kind} for k, label, kind in COLUMNS]
    out += [{"key": c, "label": c, "kind": "freq"} for c in freq]
    return out


def page_data(report: dict, source: str) -> dict:
    """What the page loads: ``meta``, ``columns``, ``boards`` (one list a board, in the
    columns' order, with its texture names last), ``textures`` and ``all`` (the report's
    means), from a :func:`~rcfr.experiments.spot_aggregate.report_tables` ``report``."""
    batch, rows, freq = report["batch"], report["rows"], report["freq"]
    cols = columns(freq)
    boards = []
    for row in rows:
        values = [_cell(row.get(c["key"])) for c in cols]
        boards.append([*values, texture_names(row)])
    solved = sum(r.get("ev_oop") is not None for r in rows)
    meta = {"mode": "batch", "lazy": False, "chunks": [], "title": f"{batch['game']}: "
            f"{len(rows):,} boards", "game": batch["game"], "source": source,
            "pot": batch["pot"], "boards": len(rows), "solved": solved,
            "weight": sum(r["weight"] for r in rows), "options": batch.get("options", {})}
    return {"meta": meta, "columns": cols, "freq": freq, "boards": boards,
            "textures": report["textures"], "all": report["total"]}


def _cell(value):
    if isinstance(value, bool):
        return "connected" if value else "disconnected"
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_batch_view(report: dict, out: str | os.PathLike, source: str = "") -> dict:
    """Write the batch's page into the folder ``out`` (``index.html``, self-contained;
    written beside it and renamed into place); return the page's metadata."""
    data = page_data(report, source)

    def build(folder: Path) -> dict:
        page = (asset("batch.html")
                .replace("/*RCFR_CSS*/", asset("viewer.css") + asset("batch.css"))
                .replace("/*RCFR_JS*/", asset("dom.js") + asset("batch.js"))
                .replace("RCFR_TITLE", html_escape(data["meta"]["title"]))
                .replace("RCFR_DATA", script_json(json.dumps(data))))
        (folder / "index.html").write_text(page, encoding="utf-8")
        return data["meta"]

    return write_site(out, build)


__all__ = ["columns", "page_data", "texture_names", "write_batch_view"]

"""The thesis's comparison of RCFR with static abstractions (Morrill 2016, sec. 4.3, figs.
4.1-4.4): its RCFR variants as :func:`rcfr.solve` options, and the abstraction baselines they
are compared with."""

from __future__ import annotations

import time
from typing import Any

from ..abstraction.solve import standard_abstractions
from ..forms.base import Form
from ..forms.compile import compile_game
from ..games.protocol import Game
from ..run.engine import solve

# name -> solve() arguments (sec. 4.3): best-first trees on the thesis features with stored
# (BF) or bootstrapped (BS) targets, RCFR or RCFR+ (+); RP: a recursive-partitioning tree on
# the limit betting features of Waugh et al. 2015 (footnote 2) with simultaneous updates, as
# the thesis ran it ("BF using alternating CFR updates rather than RP's simultaneous updates")
VARIANTS: dict[str, dict[str, Any]] = {
    "BF": {"algorithm": "rcfr", "regressor": "best-first"},
    "BF_BS": {"algorithm": "rcfr", "regressor": "best-first", "bootstrap": True},
    "BF+": {"algorithm": "rcfr+", "regressor": "best-first"},
    "BF+_BS": {"algorithm": "rcfr+", "regressor": "best-first", "bootstrap": True},
    "RP": {"algorithm": "rcfr", "regressor": "recursive", "features": "waugh",
           "alternating": False, "threshold": 0.0},
}


def run_variant(game: Form | str, variant: str, share: float,
                iterations: int) -> dict[str, Any]:
    """One RCFR variant with a leaf budget of ``share`` of the game's sequences: its
    complexity share and full-game exploitability after ``iterations`` iterations."""
    tree = compile_game(game)
    options = dict(VARIANTS[variant])
    algorithm = options.pop("algorithm")
    leaves = max(2, round(share * tree.num_sequences))
    t0 = time.perf_counter()
    result = solve(tree, algorithm, iterations, leaves=leaves, **options)
    d = result.to_dict()
    return {"variant": variant, "leaves": leaves, "complexity": d["complexity"],
            "complexity_share": d["complexity_share"], "exploitability": d["exploitability"],
            "exploitability_mbb": d.get("exploitability_mbb"), "iterations": iterations,
            "seconds": time.perf_counter() - t0}


def abstraction_baselines(game: Game | Form | str, iterations: int = 100_000,
                          algorithm: str = "cfr+", abstractions: tuple[str, ...] | None = None,
                          **options) -> list[dict]:
    """The thesis's abstraction baseline points for ``game``: one row per abstraction with its
    name, complexity (abstract sequences), complexity share, full-game exploitability (and in
    mbb/g), abstract-game exploitability and seconds (Morrill 2016, figs. 4.1 and 4.3)."""
    full = compile_game(game)
    rows = []
    for name in abstractions or standard_abstractions(full):
        t0 = time.perf_counter()
        result = solve(full, algorithm, iterations, abstraction=name, **options)
        d = result.to_dict()
        rows.append({"abstraction": name, "complexity": d["complexity"],
                     "complexity_share": d["complexity_share"],
                     "exploitability": d["exploitability"],
                     "exploitability_mbb": d.get("exploitability_mbb"),
                     "abstract_exploitability": d["abstract_exploitability"],
                     "iterations": iterations, "seconds": time.perf_counter() - t0})
    return rows

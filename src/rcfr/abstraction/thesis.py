"""The thesis's comparison of RCFR with static abstractions (Morrill 2016, sec. 4.3, figs.
4.1-4.4): its RCFR variants as :func:`rcfr.solve` options, and the check of its claims."""

from __future__ import annotations

import time
from typing import Any

from ..forms.base import Form
from ..forms.compile import compile_game
from ..solvers.run import solve

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

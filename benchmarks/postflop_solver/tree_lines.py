"""Regenerate tests/data/postflop_trees/*.txt: postflop-solver's action tree of each spot file
there, every root-to-leaf line, printed by tree_lines.rs (build it first with build.sh).

    .venv/bin/python benchmarks/postflop_solver/tree_lines.py [--pfs-dir DIR]
    .venv/bin/python benchmarks/postflop_solver/tree_lines.py --random 500 [--seed 1]

With ``--random N`` it writes nothing: it draws N random spots (street, pot, stack, sizes of
every kind per street and player, donks, thresholds), compares postflop-solver's lines with
rcfr's ``build_action_tree`` on each and prints every difference (exit 1 if any).

The spot's sizes are resolved here from the TOML (the most specific of bets.<street>.<player>,
bets.<street>, bets.<player>, bets; donks from bets.<street>.donk, bets.donk) and handed to
postflop-solver as the strings written, so its own parser reads them; tests/test_postflop_trees.py
checks that rcfr's load_spot + build_action_tree give the same lines.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "postflop_trees"
STREETS = ("flop", "turn", "river")
PLAYERS = ("oop", "ip")


def pfs_dir() -> str:
    """build.sh's default BUILD_DIR: $PFS_DIR, else ~/.cache/rcfr/pfs."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.environ.get("PFS_DIR") or os.path.join(cache, "rcfr", "pfs")


def _pick(bets: dict, key: str, street: str, player: str | None) -> str | None:
    tables = [bets.get(street, {}).get(player, {}) if player else {}, bets.get(street, {}),
              bets.get(player, {}) if player else {}, bets]
    return next((t[key] for t in tables if key in t), None)


def arguments(spot: dict) -> list[str]:
    """tree_lines.rs's 20 arguments for a spot file's dict."""
    bets = spot.get("bets", {})
    thresholds = spot.get("thresholds", {})
    street = STREETS[len(spot["board"]) // 2 - 3]  # 6, 8, 10 characters
    args = [street, str(spot["pot"]), str(spot["stack"])]
    args += [str(float(thresholds.get(k, 0.0))) for k in ("add_allin", "force_allin", "merging")]
    for s in STREETS:
        for p in PLAYERS:
            args += [_pick(bets, "bet", s, p) or "", _pick(bets, "raise", s, p) or ""]
    for s in ("turn", "river"):
        donk = bets.get(s, {}).get("donk", bets.get("donk"))
        args.append("-" if donk is None else donk)
    return args


def _random_sizes(rng: random.Random, raise_: bool) -> str:
    kinds = ["pot", "pot", "c", "e", "a"] + (["x", "cr"] if raise_ else [])

    def one() -> str:
        kind = rng.choice(kinds)
        if kind == "pot":
            return f"{rng.choice([0, 12.5, 25, 33, 37.5, 50, 66.6, 75, 100, 150, 250])}%"
        if kind == "x":
            return f"{rng.choice([1.01, 1.5, 2, 2.5, 3.3, 5])}x"
        if kind == "c":
            return f"{rng.choice([0, 1, 7, 25, 100, 333])}c"
        if kind == "cr":
            return f"{rng.choice([0, 5, 30])}c{rng.choice([1, 2, 3])}r"
        if kind == "e":
            return rng.choice(["", "1", "2", "3", "5"]) + "e" + rng.choice(["", "", "40%",
                                                                           "125%", "0.5%"])
        return "a"

    return ", ".join(one() for _ in range(rng.choice([0, 1, 1, 2, 2, 3])))


def random_spot(rng: random.Random) -> dict:
    """A random spot file's dict (small trees: mostly turn and river)."""
    board = rng.choice(["Td9d6hQc", "Td9d6hQc2s"] * 4 + ["Td9d6h"])
    bets = {"bet": _random_sizes(rng, False), "raise": _random_sizes(rng, True)}
    if rng.random() < 0.5:
        bets["ip"] = {"bet": _random_sizes(rng, False), "raise": _random_sizes(rng, True)}
    for street in ("turn", "river"):
        if rng.random() < 0.4:
            bets[street] = {"bet": _random_sizes(rng, False), "raise": _random_sizes(rng, True)}
        if rng.random() < 0.3:
            bets.setdefault(street, {})["donk"] = _random_sizes(rng, False)
    thresholds = {k: rng.choice([0, 0, 0.05, 0.1, 0.3, 1.5, 2.0])
                  for k in ("add_allin", "force_allin", "merging")}
    return {"board": board, "pot": rng.choice([1, 3, 7, 20, 100, 200, 555]),
            "stack": rng.choice([1, 10, 60, 250, 900, 2000]),
            "ranges": {"oop": "AA", "ip": "KK"}, "bets": bets, "thresholds": thresholds}


def compare_random(program: Path, count: int, seed: int) -> int:
    """postflop-solver's and rcfr's lines on ``count`` random spots; the differences."""
    from rcfr.games.holdem.action_tree import build_action_tree, lines
    from rcfr.games.holdem.spot import spot_from_dict

    rng, compared, differ = random.Random(seed), 0, 0
    for _ in range(count):
        spot = random_spot(rng)
        try:
            out = subprocess.run([str(program), *arguments(spot)], check=True,
                                 capture_output=True, text=True, timeout=10).stdout
        except subprocess.TimeoutExpired:  # (a few runaway raise chains)
            continue
        want = out.splitlines()
        if len(want) > 50_000:
            continue
        root = build_action_tree(spot_from_dict(spot).tree_config())
        got = [" / ".join(line) for line in lines(root)]
        compared += 1
        if got != want:
            differ += 1
            print(f"differ: {spot}\n  only postflop-solver: {sorted(set(want) - set(got))[:3]}"
                  f"\n  only rcfr: {sorted(set(got) - set(want))[:3]}", flush=True)
    print(f"{compared} random spots compared, {differ} differ")
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pfs-dir", default=pfs_dir(), help="build.sh's BUILD_DIR")
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="compare N random spots with rcfr instead")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    src = Path(args.pfs_dir) / "postflop-solver"
    program = src / "target" / "release" / "examples" / "tree_lines"
    if not program.exists():
        sys.exit(f"error: {program} is missing; run benchmarks/postflop_solver/build.sh first")
    if args.random:
        sys.exit(compare_random(program, args.random, args.seed))
    commit = (src / "COMMIT").read_text().strip()
    for spot_file in sorted(DATA.glob("*.toml")):
        spot = tomllib.loads(spot_file.read_text())
        out = subprocess.run([str(program), *arguments(spot)], check=True, capture_output=True,
                             text=True).stdout
        header = (f"# postflop-solver {commit}: its action tree of {spot_file.name}, every\n"
                  f"# root-to-leaf line; generated by benchmarks/postflop_solver/tree_lines.rs\n"
                  f"# (run by tree_lines.py). Do not edit.\n")
        spot_file.with_suffix(".txt").write_text(header + out)
        print(f"{spot_file.stem}: {out.count(chr(10))} lines")


if __name__ == "__main__":
    main()

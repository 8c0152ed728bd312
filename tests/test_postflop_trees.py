"""rcfr's postflop action trees equal postflop-solver's, line for line.

tests/data/postflop_trees/NAME.txt holds every root-to-leaf action line of postflop-solver's
own action tree for the spot file NAME.toml beside it (its examples/basic.rs spot from the
flop, turn and river, and spots exercising merging, geometric sizes with caps, chip sizes and
raise caps, x raise multiples, the all-in thresholds, donks and per-player sizes), printed by
benchmarks/postflop_solver/tree_lines.rs from postflop-solver's source (its commit in each
file's header).
"""

from pathlib import Path

import pytest

from rcfr.games.holdem.action_tree import build_action_tree, lines
from rcfr.games.holdem.spot import load_spot

DATA = Path(__file__).parent / "data" / "postflop_trees"
SPOTS = sorted(p.stem for p in DATA.glob("*.toml"))


def test_every_spot_has_its_lines():
    assert len(SPOTS) == 10
    assert sorted(p.stem for p in DATA.glob("*.txt")) == SPOTS


@pytest.mark.parametrize("name", SPOTS)
def test_action_tree_lines_equal_postflop_solvers(name):
    text = (DATA / f"{name}.txt").read_text()
    assert text.startswith("# postflop-solver ")
    want = [line for line in text.splitlines() if not line.startswith("#")]
    root = build_action_tree(load_spot(DATA / f"{name}.toml").tree_config())
    got = [" / ".join(line) for line in lines(root)]
    assert len(got) == len(want)
    assert got == want


@pytest.mark.parametrize("name", ["basic_flop", "basic_turn", "basic_river"])
def test_the_packaged_basic_spots_are_postflop_solvers(name):
    """``holdem_spot(spot=basic_*)`` builds the very tree postflop-solver builds for its
    examples/basic.rs spot."""
    from rcfr import load_game

    text = (DATA / f"{name}.txt").read_text()
    want = [line for line in text.splitlines() if not line.startswith("#")]
    game = load_game(f"holdem_spot(spot={name})")
    assert [" / ".join(line) for line in lines(game.root)] == want

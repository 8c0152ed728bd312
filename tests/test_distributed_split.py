"""The split from the skeleton (issue 27): the driver builds the trunk and each actor its own
part from :func:`rcfr.forms.public.tree.compile_skeleton`, never the whole tree; the arrays
equal :func:`rcfr.forms.public.split.split_public`'s on the compiled tree, field by field, so
the distributed solver keeps the single-process numbers bit for bit (which
``tests/test_distributed.py`` checks on the solver)."""

from __future__ import annotations

import numpy as np
import pytest

from rcfr.core.errors import RcfrError
from rcfr.forms.compile import compile_game
from rcfr.forms.public.split import split_public, split_skeleton
from rcfr.forms.public.tree import compile_skeleton

GAMES = [("leduc", None), ("liars_dice", None), ("liars_dice", "depth:3"),
         ("nl_holdem2(buckets=5,ranks=6,stack=6,suits=3)", None),  # 6 x 3 deck
         ("nl_holdem2(stack=6)", None)]  # (all-in showdowns below the flop: terminal blocks)


def _equal(a, b, name: str) -> None:
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and np.array_equal(a, b), name
        assert a.dtype == b.dtype or name.endswith(("global_seq", "global_infoset")), name
    elif isinstance(a, tuple) and hasattr(a, "_fields"):
        for f in a._fields:
            _equal(getattr(a, f), getattr(b, f), f"{name}.{f}")
    elif isinstance(a, list):
        assert len(a) == len(b), name
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _equal(x, y, f"{name}[{i}]")
    else:
        assert a == b, name


@pytest.mark.parametrize("game,cut", GAMES)
def test_skeleton_split_equals_the_whole_tree_split(game, cut):
    """For 1, 2 and 3 parts: the trunk, the exchange (phantoms, value positions, slots) and
    each part built alone equal the split of the compiled tree; the parts not built carry the
    same slots; the skeleton holds none of the per-sequence arrays."""
    full = compile_game(game, form="public")
    skel = compile_skeleton(game)
    assert skel.num_sequences == full.num_sequences and skel.seq_infoset.size == 0
    assert skel.num_infosets == full.num_infosets and skel.infoset_parent_seq.size == 0
    assert skel.fingerprint() != full.fingerprint()  # (not the public form's)
    blocks = 0
    for n in (1, 2, 3):
        old = split_public(full, cut, n)
        blocks += sum(a.size for a in old.add_src)
        for build in (None, *range(n)):
            new = split_skeleton(skel, cut, n, build=build)
            _equal(old.trunk, new.trunk, "trunk")
            for f in ("cut", "num_subgames", "phantom", "set_src", "set_dst", "add_src",
                      "add_dst", "ret_slots"):
                _equal(getattr(old, f), getattr(new, f), f)
            for j, (a, b) in enumerate(zip(old.parts, new.parts, strict=True)):
                if j == build:
                    _equal(a, b, f"part {j}")
                else:
                    assert b.tree is None and b.T is None and b.global_seq is None
                    for f in ("num_sequences", "num_slots", "slot_src", "slot_player"):
                        _equal(getattr(a, f), getattr(b, f), f"part {j}.{f}")
    if game.startswith(("liars", "nl_holdem2(stack")):
        assert blocks > 0  # terminal blocks (calls, all-in showdowns) were compared


def test_skeleton_refusals():
    skel = compile_skeleton("leduc")
    with pytest.raises(RcfrError, match="subgames"):
        split_skeleton(skel, "flop", 6)  # 5 flop subgames
    with pytest.raises(RcfrError, match="part"):
        split_skeleton(skel, "flop", 2, build=2)
    with pytest.raises(RcfrError, match="skeleton"):
        split_skeleton(compile_game("leduc", form="public"), "flop", 2)
    with pytest.raises(RcfrError, match="public form"):
        compile_skeleton("goofspiel")


def test_an_actor_refuses_another_game():
    """An actor builds its part from the game's name and checks its skeleton's fingerprint
    against the driver's: a game that does not round-trip through its name is refused."""
    from rcfr.distributed.solver import PartWorker
    fp = compile_skeleton("leduc").fingerprint()
    w = PartWorker("leduc", "flop", 2, 1, "cfr+", "poly:2", fp)
    assert w.state.part.num_sequences == split_skeleton(compile_skeleton("leduc"), "flop",
                                                        2).parts[1].num_sequences
    with pytest.raises(RcfrError, match="driver's game"):
        PartWorker("liars_dice", "flop", 2, 1, "cfr+", "poly:2", fp)

"""A game's sizes on both compiled forms (``rcfr games``): histories, information sets and
sequences, with each form's memory, measured where a form is compiled and estimated from a closed
form where it is too large to build."""

from __future__ import annotations

from ..core.budget import PUBLIC_TREE_BYTES_PER_SEQUENCE
from ..games.protocol import Game
from ..games.registry import load_game
from .compile import HISTORY_BUDGET, compile_game
from .public.tree import PUBLIC_NODE_BUDGET, compile_public, offers_public_form

BYTES_PER_HISTORY = 55  # the history form's memory per history (benchmarks/bench_games.py)


def form_sizes(game: Game | str) -> dict:
    """``game``'s sizes (the history form's counts, which both forms share) with each form's
    memory in MiB: measured where the form is compiled, estimated (``~``) for a history form
    too large to build, ``None`` where a form does not exist.  A game with a closed form of its
    sizes and more than ``CLOSED_FORM_NODES`` public nodes is not compiled: both memories are
    then estimated."""
    game = load_game(game)
    closed, nodes = getattr(game, "closed_form_sizes", None), getattr(game, "num_public_nodes",
                                                                         None)
    if callable(closed) and callable(nodes) and nodes() > CLOSED_FORM_NODES:
        return _closed_form_sizes(game)
    estimate = getattr(game, "num_histories", None)
    too_big = callable(estimate) and estimate() > HISTORY_BUDGET
    offered = offers_public_form(game)
    nodes = getattr(game, "num_public_nodes", None)
    if too_big and not (offered and (not callable(nodes) or nodes() <= PUBLIC_NODE_BUDGET)):
        too_big = False  # neither form fits: the history form's memory guard says so
    history = None if too_big else compile_game(game, form="history")
    public = compile_public(game) if offered else None
    sizes = (history or public).sizes()
    keep = ("histories", "terminals", "chance_nodes", "decision_nodes", "infosets", "sequences",
            "infosets_per_player", "sequences_per_player")
    out = {k: sizes[k] for k in keep}
    out["history_mb"] = (history.nbytes if history else BYTES_PER_HISTORY * out["histories"]
                         ) / 2**20
    out["history_mb_estimated"] = history is None
    out["public_nodes"] = public.num_public_nodes if public else None
    out["public_mb"] = public.nbytes / 2**20 if public else None
    out["public_mb_estimated"] = False
    return out


CLOSED_FORM_NODES = 200_000  # public nodes above which form_sizes reads a closed form


def _closed_form_sizes(game: Game) -> dict:
    """:func:`form_sizes` from the game's closed form, with both forms' memory estimated."""
    sizes = game.closed_form_sizes()
    keep = ("histories", "terminals", "chance_nodes", "decision_nodes", "infosets", "sequences",
            "infosets_per_player", "sequences_per_player")
    out = {k: sizes[k] for k in keep}
    out["history_mb"] = BYTES_PER_HISTORY * out["histories"] / 2**20
    out["history_mb_estimated"] = True
    out["public_nodes"] = sizes["public_nodes"]
    out["public_mb"] = PUBLIC_TREE_BYTES_PER_SEQUENCE * out["sequences"] / 2**20
    out["public_mb_estimated"] = True
    return out

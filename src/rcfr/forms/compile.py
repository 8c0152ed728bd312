"""The one place that picks a compiled form (``form="auto"``): the history tree unless the
game offers the public form and its history form would not fit."""

from __future__ import annotations

from ..core.budget import public_sequences
from ..core.errors import RcfrError
from ..core.names import FORMS  # noqa: F401 (declared with the other option names)
from ..games.registry import load_game
from .base import Form
from .history.tree import GameTree, compile_history
from .public.gadget import GadgetForm
from .public.tree import PUBLIC_NODE_BUDGET, PublicTree, compile_public, offers_public_form

HISTORY_BUDGET = 20_000_000  # histories (about 1.1 GB) above which "auto" picks the public form


_KEPT: dict[tuple[str, str, str], Form] = {}  # compile_kept's one tree


def compile_kept(game: str, form: str = "auto", max_memory: str | float | int | None = None,
                 dtype: str | None = None) -> Form:
    """:func:`compile_game` of the game string ``game``, kept until a different game, form or
    table type is asked for (so a process running one game many times compiles it once and
    holds one compiled game at a time).  The trees themselves are cached on their game
    objects; this keeps the game object of the last string."""
    key = (str(game), form, dtype or "float64")
    if key not in _KEPT:
        _KEPT.clear()
        _KEPT[key] = compile_game(game, form, max_memory, dtype)
    return _KEPT[key]


def check_public_choice(form: str, what: str) -> None:
    """Refuse a ``form`` option that rules out the public form, for ``what`` (a workflow that
    runs only on public trees, e.g. multi-round liar's dice)."""
    if form not in FORMS:
        raise RcfrError(f"unknown form {form!r}; use one of {', '.join(FORMS)}")
    if form == "history":
        raise RcfrError(f"{what} on the public form; leave out --form history")


def check_history_choice(form: str | None, message: str) -> None:
    """Refuse a ``form`` option that asks for the public form, with ``message``, for a
    workflow that runs only on history trees (the abstractions); checked before compiling."""
    if form == "public":
        raise RcfrError(message)


def is_compiled(obj) -> bool:
    """Whether ``obj`` is a compiled tree of either form, or a re-solving gadget compiled on a
    public subtree (it passes through :func:`compile_game`)."""
    return isinstance(obj, GameTree | PublicTree | GadgetForm)


def compile_game(game, form: str = "auto", max_memory: str | float | int | None = None,
                 dtype: str | None = None) -> Form:
    """Compile ``game`` once (cached on the game object; a compiled tree passes through).

    ``form="history"``: the :class:`~rcfr.forms.history.tree.GameTree` of histories;
    ``"public"``: the :class:`~rcfr.forms.public.tree.PublicTree` (for games that describe
    one); ``"auto"``: the history form unless the game offers the public form and its history
    form would exceed ``HISTORY_BUDGET``.  A history form larger than ``max_memory`` (bytes or
    e.g. ``"4G"``; default: see :mod:`rcfr.core.budget`) is refused before it is built, or as
    soon as the walk passes it; ``dtype``: the solver's tables, which the public form's guard
    counts (``"float32"``: the sampled solvers', ``"int16"``: compact full-width storage)."""
    if form not in FORMS:
        raise RcfrError(f"unknown form {form!r}; use one of {', '.join(FORMS)}")
    if is_compiled(game):
        return game
    game = load_game(game)
    if form == "auto":
        estimate = getattr(game, "num_histories", None)
        big = callable(estimate) and estimate() > HISTORY_BUDGET
        public = offers_public_form(game)
        if public:  # the public form only where it fits its own budget (or its memory
            # guard judges it: then it says why not)
            nodes = getattr(game, "num_public_nodes", None)
            public = (not callable(nodes) or nodes() <= PUBLIC_NODE_BUDGET
                      or public_sequences(game) is not None)
        form = "public" if big and public else "history"
    if form == "public":
        return compile_public(game, max_memory, dtype)
    return compile_history(game, max_memory)


def compile_history_form(game, max_memory: str | float | int | None = None) -> GameTree:
    """The history form of ``game`` for what only a history tree offers (the sequence-form
    LP's terminal pairs): a history tree passes through, a public tree's game is compiled as
    histories (under the memory guard), a gadget is refused with one line."""
    if isinstance(game, GameTree):
        return game
    if isinstance(game, GadgetForm):
        raise RcfrError("a re-solving gadget on the public form has no history form: solve it "
                        "with a CFR algorithm instead")
    if isinstance(game, PublicTree):
        game = game.game
    return compile_game(game, "history", max_memory)


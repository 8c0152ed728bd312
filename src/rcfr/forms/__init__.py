"""The compiled forms of a game (ARCHITECTURE.md, "Two compiled forms"): the history tree
(:mod:`rcfr.forms.history`) and the public tree (:mod:`rcfr.forms.public`), both keeping the
:class:`Form` contract; :func:`compile_game` is the one place that picks a form."""

from .base import (
    KIND_CHANCE,
    KIND_TERMINAL,
    Capability,
    Form,
    SequenceIndex,
    StringTable,
    TreePass,
)
from .compile import FORMS, HISTORY_BUDGET, compile_game, is_compiled
from .history.tree import GameTree
from .public.tree import PublicTree

__all__ = ["FORMS", "HISTORY_BUDGET", "KIND_CHANCE", "KIND_TERMINAL", "Capability", "Form",
           "GameTree", "PublicTree", "SequenceIndex", "StringTable", "TreePass", "compile_game",
           "is_compiled"]

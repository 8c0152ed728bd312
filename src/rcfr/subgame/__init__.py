"""Safe and nested subgame solving on top of a blueprint (Libratus's second module; Brown &
Sandholm 2017, 2018): cut the game into public subgames (:mod:`.cut`), read beliefs and the
opponent's counterfactual values from the blueprint (:mod:`.blueprint`), build a gadget game
(:mod:`.gadget_games`), solve it with any rcfr solver (:mod:`.methods`), splice the result back and
evaluate it exactly (:mod:`.everywhere`), to the blueprint's precision (:mod:`.target`);
nested re-solving of off-tree wagers (:mod:`.nested`); the same on the public form, public
subtrees solved in vector form (:mod:`.public_resolving`)."""

from .blueprint import Blueprint, RootInfosets
from .cut import Subgame, default_cut, find_subgames, parse_cut
from .everywhere import ResolvedEverywhere, resolve_at_cut, resolve_everywhere
from .gadget_games import GadgetGame
from .methods import (
    METHODS,
    Resolved,
    maxmargin,
    method_function,
    reach_maxmargin,
    resolve,
    splice,
    unsafe,
)
from .nested import NestedResult, OffTree, nested_resolve
from .public_resolving import (
    PublicResolved,
    public_cut,
    public_gifts,
    resolve_everywhere_at,
    resolve_everywhere_public,
    resolve_public,
)
from .target import resolve_to_blueprint

__all__ = ["Blueprint", "RootInfosets", "Subgame", "default_cut", "find_subgames", "parse_cut",
           "ResolvedEverywhere", "resolve_at_cut", "resolve_everywhere", "GadgetGame", "METHODS",
           "Resolved", "maxmargin", "method_function", "reach_maxmargin", "resolve", "splice",
           "unsafe", "NestedResult", "OffTree", "nested_resolve", "PublicResolved", "public_cut",
           "public_gifts", "resolve_everywhere_at", "resolve_everywhere_public",
           "resolve_public", "resolve_to_blueprint"]

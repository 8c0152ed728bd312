"""Re-solving every subgame at a cut, for both players, and measuring the result exactly in
the full game: the papers' evaluation of a subgame-solving method (Brown & Sandholm 2017,
sec. 7: the blueprint is replaced by the re-solved strategy in every subgame)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..core.errors import RcfrError
from ..evaluate import Evaluation, evaluate
from ..forms.base import register_resolver, resolver_for
from ..policy import TabularPolicy
from .blueprint import Blueprint
from .cut import find_subgames
from .methods import Resolved, method_function, splice


@dataclass
class ResolvedEverywhere:
    """The full-game policy with every subgame at ``cut`` re-solved by ``method``, its
    evaluation, the blueprint's, each subgame's :class:`Resolved` and the seconds spent."""

    method: str
    cut: str
    policy: TabularPolicy
    evaluation: Evaluation
    blueprint_evaluation: Evaluation
    results: list[Resolved]
    seconds: float

    @property
    def min_margin(self) -> float:
        return min((r.min_margin for r in self.results), default=0.0)

    @property
    def iterations(self) -> int:
        """The most iterations any gadget ran (0: none ran, e.g. ``algorithm="lp"``)."""
        return max((int(r.iterations) for r in self.results), default=0)

    @property
    def worse(self) -> bool:
        """Whether the re-solved strategy is more exploitable than the blueprint (beyond
        rounding)."""
        new, old = self.evaluation.exploitability, self.blueprint_evaluation.exploitability
        return new > old + 1e-12 + 1e-9 * abs(old)

    def to_dict(self) -> dict:
        out = {"method": self.method, "cut": self.cut, "subgames": len(self.results) // 2,
               "seconds": self.seconds, "iterations": self.iterations,
               "min_margin": self.min_margin, "worse_than_blueprint": self.worse,
               "blueprint_exploitability": self.blueprint_evaluation.exploitability}
        if self.blueprint_evaluation.exploitability_mbb is not None:
            out["blueprint_exploitability_mbb"] = self.blueprint_evaluation.exploitability_mbb
        out.update(self.evaluation.to_dict())
        return out


def resolve_everywhere(policy: TabularPolicy, cut: str, method: str = "reach-maxmargin", *,
                       players: tuple[int, ...] = (0, 1), **options) -> ResolvedEverywhere:
    """Re-solve every subgame at ``cut`` with ``method`` for each of ``players`` (options go
    to the method: ``algorithm``, ``iterations``, ``seconds``, ``values``, solver options),
    splice the results into the blueprint ``policy`` and evaluate it in the full game."""
    if not players or any(p not in (0, 1) for p in players):
        raise RcfrError(f"players are 0 and/or 1, got {players!r}")
    fn = method_function(method)
    t0 = time.perf_counter()
    bp = Blueprint(policy)
    subgames = find_subgames(bp.tree, cut)
    results = []
    for p in players:
        for sg in subgames:
            kw = dict(options)
            if fn.__name__ == "reach_maxmargin":
                kw["subgames"] = subgames
            results.append(fn(bp, sg, p, **kw))
    spliced = splice(bp, results)
    seconds = time.perf_counter() - t0
    return ResolvedEverywhere(method, cut, spliced, evaluate(bp.tree, spliced),
                              evaluate(bp.tree, bp.policy), results, seconds)


register_resolver("history", resolve_everywhere)


def resolve_at_cut(policy: TabularPolicy, cut: str, method: str = "reach-maxmargin",
                   **options) -> ResolvedEverywhere:
    """:func:`resolve_everywhere` on the compiled form of ``policy``'s tree: the history form
    cuts history subgames and builds State-API gadgets; the public form
    (:func:`rcfr.subgame.public_resolving.resolve_everywhere_at`) re-solves public subtrees in
    vector form, without a history tree (the tree's form decides, through the form contract)."""
    return resolver_for(policy.tree)(policy, cut, method, **options)

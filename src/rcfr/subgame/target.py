"""Re-solving to the blueprint's precision.  The safe methods keep the blueprint's
guarantee only when their gadgets are solved well enough (Burch, Johanson & Bowling 2014;
Brown & Sandholm 2017): a gadget solved to a precision looser than the blueprint's own leaves
negative margins and can make a near-equilibrium blueprint more exploitable.
:func:`resolve_to_blueprint` re-solves every subgame with more and more iterations until the
re-solved strategy is no more exploitable than the blueprint, up to a cap."""

from __future__ import annotations

from ..core.errors import RcfrError
from .everywhere import ResolvedEverywhere, resolve_at_cut

START = 1_000  # iterations per gadget in the first round
GROWTH = 2  # each further round runs this many times more
MAX_ITERATIONS = 64_000  # the default cap per gadget


def guaranteed(method: str, values: str = "best-response") -> bool:
    """Whether ``method`` with ``values`` promises a result no more exploitable than the
    blueprint when its gadgets are solved exactly (the safe methods with best-response
    alternatives; not unsafe re-solving, not the estimated variants)."""
    return method != "unsafe" and values == "best-response"


def resolve_to_blueprint(policy, cut: str, method: str = "reach-maxmargin", *,
                         max_iterations: int = MAX_ITERATIONS, start: int = START,
                         growth: int = GROWTH, **options) -> ResolvedEverywhere:
    """:func:`.everywhere.resolve_at_cut` with ``start`` iterations per gadget, then
    ``growth`` times more each round (each round re-solves from scratch) until the full-game
    exploitability is at most the blueprint's or a round has run ``max_iterations``.  Methods
    without a guarantee (:func:`guaranteed`) run one round.  The last round's result is
    returned, with the seconds of all rounds; its ``worse`` says whether the target was
    missed."""
    if not 1 <= start <= max_iterations or growth < 2:
        raise RcfrError(f"re-solving rounds need 1 <= start ({start}) <= max_iterations "
                        f"({max_iterations}) and a growth of at least 2 ({growth})")
    safe = guaranteed(method, options.get("values", "best-response"))
    n, spent = start, 0.0
    while True:
        out = resolve_at_cut(policy, cut, method, iterations=n, **options)
        spent += out.seconds
        if not safe or not out.worse or n >= max_iterations:
            out.seconds = spent  # (every round's)
            return out
        n = min(n * growth, max_iterations)

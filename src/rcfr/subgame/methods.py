"""The re-solving methods, one function each, all returning a :class:`Resolved`.

* :func:`unsafe`: the subgame alone with the blueprint's beliefs at its root (Ganzfried &
  Sandholm 2015); no guarantee.
* :func:`resolve`: CFR-D's gadget (Burch, Johanson & Bowling 2014): the opponent may take its
  blueprint value instead of entering; the re-solved strategy does no worse than the blueprint.
* :func:`maxmargin`: the gadget that maximises the smallest margin (Moravčík et al. 2016).
* :func:`reach_maxmargin`: Maxmargin with each margin increased by what the opponent gave up
  earlier on the path (Brown & Sandholm 2017, "Reach-Maxmargin").

A margin is ``M(J) = t(J) - CBV'(J) / w(J)``: how much less the opponent's root set ``J`` gets
against the re-solved strategy than its alternative value ``t(J)`` (by default the blueprint's
``CBV(J) / w(J)``), per unit of its weight ``w(J)``.  Each
function solves the gadget game with any rcfr solver (``algorithm``, ``iterations`` or
``seconds``; ``"lp"``: exactly, by the sequence-form LP) and reports the re-solver's strategy
in the subgame, the margins, seconds and iterations."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import RcfrError
from ..evaluate import evaluate
from ..forms.compile import compile_game
from ..lp import solve_lp
from ..policy import TabularPolicy
from ..run.engine import drive
from ..solvers.run import make_solver
from .blueprint import VALUES, Blueprint
from .cut import Subgame
from .gadget_games import GadgetGame

METHODS = ("unsafe", "resolve", "maxmargin", "reach-maxmargin")


class Margins:
    """What a re-solved subgame reports of its margins: the opponent root sets it reaches and
    the smallest margin over them (Moravčík et al. 2016; Brown & Sandholm 2017)."""

    margins: np.ndarray
    gifts: np.ndarray
    set_weight: np.ndarray

    @property
    def reached(self) -> np.ndarray:
        """The opponent root sets (or rows) the re-solver reaches (``w(J) > 0``)."""
        return self.set_weight > 0

    @property
    def min_margin(self) -> float:
        """The smallest margin (gifts included for Reach-Maxmargin) over the reached sets."""
        m = (self.margins + self.gifts)[self.reached]
        return float(m.min()) if m.size else 0.0


@dataclass
class Resolved(Margins):
    """One subgame re-solved for one player.

    ``sequences``/``probs``: the re-solver's re-solved sequences in the full game's history
    tree and their probabilities (the rest keeps the blueprint); ``alternative``: the gadget's
    value ``t(J)`` per opponent root set (per unit of weight; zeros for unsafe); ``margins``:
    ``M(J)``; ``gifts``: the per-unit gift added to the margins (Reach-Maxmargin; else zeros);
    ``set_weight``: ``w(J)``."""

    method: str
    subgame: Subgame
    player: int
    sequences: np.ndarray
    probs: np.ndarray
    alternative: np.ndarray
    margins: np.ndarray
    gifts: np.ndarray
    set_weight: np.ndarray
    gadget_exploitability: float
    seconds: float
    iterations: int
    set_keys: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"method": self.method, "subgame": self.subgame.name, "player": self.player,
                "min_margin": self.min_margin, "seconds": self.seconds,
                "iterations": self.iterations,
                "gadget_exploitability": self.gadget_exploitability}


def splice(blueprint: Blueprint, results: list[Resolved]) -> TabularPolicy:
    """The blueprint with every result's re-solved sequences put in (a full-game policy on the
    history tree)."""
    probs = blueprint.probs.copy()
    for r in results:
        probs[r.sequences] = r.probs
    meta = dict(blueprint.policy.metadata)
    meta["resolved"] = sorted({r.method for r in results})
    return TabularPolicy(blueprint.tree, probs, meta)


def _run(tree, algorithm: str, iterations: int, seconds: float | None,
         options: dict) -> tuple[np.ndarray, int]:
    """The gadget's equilibrium strategy (average strategy of ``algorithm``; ``"lp"``:
    exact) and the iterations run."""
    if str(algorithm).lower() == "lp":
        return solve_lp(tree).strategy, 0
    solver = make_solver(tree, algorithm, **options)
    solver.setup()  # (validation and kernel loading outside the timed iterations)
    run = drive(tree, solver, int(iterations) if seconds is None else None,
                time_budget=None if seconds is None else float(seconds), measure=False)
    return run.policy.probs, int(solver.iteration)


def _copy_back(full, gadget, probs: np.ndarray, player: int) -> tuple[np.ndarray, np.ndarray]:
    """The re-solver's gadget sequences as full-tree sequences, matched by string."""
    seqs, vals = [], []
    for i in gadget.player_infosets(player):
        key = gadget.infoset_keys[i]
        j = full.infoset_keys.find(key, player)
        if j < 0:
            raise RcfrError(f"the gadget's information set {key!r} is not in {full.game}")
        a, k = int(gadget.infoset_seq_start[i]), int(gadget.infoset_num_actions[i])
        b = int(full.infoset_seq_start[j])
        if not np.array_equal(gadget.seq_action[a:a + k], full.seq_action[b:b + k]):
            raise RcfrError(f"the gadget's actions at {key!r} differ from the game's")
        seqs.append(np.arange(b, b + k))
        vals.append(probs[a:a + k])
    if not seqs:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return np.concatenate(seqs), np.concatenate(vals)


def _margins(blueprint: Blueprint, sets, subgame: Subgame, player: int,
             sequences: np.ndarray, probs: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``M(J) = t(J) - CBV'(J) / w(J)``: the alternative value (per unit of weight) minus the
    re-solved strategy's counterfactual best-response value (the opponent best-responds in
    the subgame)."""
    from ..evaluate import best_response
    from . import node_sweeps as K

    mixed = blueprint.probs.copy()
    mixed[sequences] = probs
    policy = TabularPolicy(blueprint.tree, mixed)
    br = best_response(blueprint.tree, policy, 1 - player)[1].probs
    v0 = K.values(blueprint.tree, br)[subgame.roots]
    v = v0 if player == 1 else -v0
    new = np.bincount(sets.of_root, sets.weight * v, minlength=len(sets.keys))
    return target - sets.normalised(new)


def _resolve(kind: str, blueprint: Blueprint, subgame: Subgame, player: int, *,
             algorithm: str, iterations: int, seconds: float | None, values: str,
             alternative: np.ndarray | None, gifts: np.ndarray | None,
             options: dict, beliefs: np.ndarray | None = None) -> Resolved:
    if player not in (0, 1):
        raise RcfrError(f"the re-solver is player 0 or 1, got {player!r}")
    if values not in VALUES:
        raise RcfrError(f"values are {' or '.join(VALUES)}, got {values!r}")
    t0 = time.perf_counter()
    sets = blueprint.root_infosets(subgame, player)
    states = blueprint.states(subgame)
    if alternative is None:
        cbv = sets.cbv if values == "best-response" else sets.estimated
        alt = sets.normalised(cbv)
    else:
        alt = np.asarray(alternative, dtype=np.float64)
    target = alt
    if kind == "unsafe":
        r = blueprint.reach[:, subgame.roots]
        opp = r[1 - player] if beliefs is None else np.asarray(beliefs, dtype=np.float64)
        weights = sets.weight * opp
        gadget_kind = "unsafe"
    else:
        weights = sets.weight
        if gifts is not None:
            alt = alt + sets.normalised(gifts)
        gadget_kind = "resolve" if kind == "resolve" else "maxmargin"
    per_gift = np.zeros(len(sets.keys)) if gifts is None else sets.normalised(gifts)
    if not np.any(weights > 0):  # the blueprint never reaches it: keep the blueprint
        empty = np.zeros(0, dtype=np.int64)
        return Resolved(kind, subgame, player, empty, np.zeros(0), alt,
                        np.zeros(len(sets.keys)), per_gift, sets.set_weight, 0.0,
                        time.perf_counter() - t0, 0, sets.keys)
    game = GadgetGame(blueprint.tree.game, gadget_kind, player, states, weights,
                      sets.of_root, sets.keys, alt)
    tree = compile_game(game, form="history")
    probs, done = _run(tree, algorithm, iterations, seconds, dict(options))
    seqs, vals = _copy_back(blueprint.tree, tree, probs, player)
    seconds_used = time.perf_counter() - t0
    gexp = evaluate(tree, TabularPolicy(tree, probs)).exploitability
    margins = _margins(blueprint, sets, subgame, player, seqs, vals, target)
    return Resolved(kind, subgame, player, seqs, vals, alt, margins, per_gift,
                    sets.set_weight, gexp, seconds_used, done, sets.keys)


def unsafe(blueprint: Blueprint, subgame: Subgame, player: int, *, algorithm: str = "cfr+",
           iterations: int = 1000, seconds: float | None = None,
           beliefs: np.ndarray | None = None, alternative: np.ndarray | None = None,
           **options) -> Resolved:
    """Unsafe re-solving: the subgame with the blueprint's beliefs of both players at its
    root (Ganzfried & Sandholm 2015; Brown & Sandholm 2017, sec. 3).  ``beliefs``: the
    opponent's reach of each root instead of the blueprint's (nested solving uses the
    translated action's); margins are measured against ``alternative`` (default: the
    blueprint's counterfactual best-response values)."""
    return _resolve("unsafe", blueprint, subgame, player, algorithm=algorithm,
                    iterations=iterations, seconds=seconds, values="best-response",
                    alternative=alternative, gifts=None, options=options, beliefs=beliefs)


def resolve(blueprint: Blueprint, subgame: Subgame, player: int, *, algorithm: str = "cfr+",
            iterations: int = 1000, seconds: float | None = None,
            values: str = "best-response", alternative: np.ndarray | None = None,
            **options) -> Resolved:
    """Resolve (Burch, Johanson & Bowling 2014, CFR-D's gadget): at each of its root sets
    ``J`` the opponent may terminate for ``t(J)`` = the blueprint's counterfactual
    best-response value (``values="blueprint"``: its counterfactual value under the blueprint,
    the estimated variant; ``alternative``: given per unit of weight)."""
    return _resolve("resolve", blueprint, subgame, player, algorithm=algorithm,
                    iterations=iterations, seconds=seconds, values=values,
                    alternative=alternative, gifts=None, options=options)


def maxmargin(blueprint: Blueprint, subgame: Subgame, player: int, *, algorithm: str = "cfr+",
              iterations: int = 1000, seconds: float | None = None,
              values: str = "best-response", alternative: np.ndarray | None = None,
              **options) -> Resolved:
    """Maxmargin (Moravčík et al. 2016): the opponent picks a root set, payoffs shifted by
    ``-t(J)``, so the solution maximises the smallest margin (``values``, ``alternative``: as
    :func:`resolve`)."""
    return _resolve("maxmargin", blueprint, subgame, player, algorithm=algorithm,
                    iterations=iterations, seconds=seconds, values=values,
                    alternative=alternative, gifts=None, options=options)


def reach_maxmargin(blueprint: Blueprint, subgame: Subgame, player: int, *,
                    subgames: list[Subgame] | None = None, algorithm: str = "cfr+",
                    iterations: int = 1000, seconds: float | None = None,
                    values: str = "best-response", alternative: np.ndarray | None = None,
                    skip_entry: bool = False, **options) -> Resolved:
    """Reach-Maxmargin (Brown & Sandholm 2017, sec. 5): Maxmargin with each margin increased
    by the opponent's gifts on the path to its root set (:meth:`Blueprint.gifts`), shared
    among the root sets of ``subgames`` (every subgame that will be re-solved; default: this
    one alone, which is safe only if no other subgame below the same earlier actions is);
    ``skip_entry``: no gift for the action entering the subgame (nested solving)."""
    subgames = [subgame] if subgames is None else list(subgames)
    if not any(s.index == subgame.index for s in subgames):
        raise RcfrError("reach_maxmargin: the subgame is not among the subgames given")
    gifts = blueprint.gifts_for(subgames, player, skip_entry)[subgame.index]
    return _resolve("reach-maxmargin", blueprint, subgame, player, algorithm=algorithm,
                    iterations=iterations, seconds=seconds, values=values,
                    alternative=alternative, gifts=gifts, options=options)


METHOD_FUNCTIONS = {"unsafe": unsafe, "resolve": resolve, "maxmargin": maxmargin,
                    "reach-maxmargin": reach_maxmargin}


def method_function(name: str):
    """The function of a method name (``unsafe``, ``resolve``, ``maxmargin``,
    ``reach-maxmargin``)."""
    key = str(name).strip().lower().replace("_", "-")
    if key not in METHOD_FUNCTIONS:
        raise RcfrError(f"unknown re-solving method {name!r}; use one of {', '.join(METHODS)}")
    return METHOD_FUNCTIONS[key]

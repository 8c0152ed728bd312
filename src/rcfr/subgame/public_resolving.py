"""Re-solving on the public form: a subgame is the public subtree below one public node
(:mod:`rcfr.forms.public.subtree`), its gadget a compiled game of its own
(:mod:`rcfr.forms.public.gadget`) solved in vector form over private-state vectors by any
full-width solver of the one loop (CFR+ by default; CFR, LCFR, DCFR, PCFR+, PDCFR+), without a
history tree.  This reaches games whose history form is far too large
(2-NL Hold'em(36): the largest flop subgame has 76 million histories), and gives the same
strategies as the history form's gadgets (:mod:`.methods`) after the same iterations.

The methods are those of :mod:`.methods` (unsafe, Resolve, Maxmargin, Reach-Maxmargin); the
opponent's root sets are its private rows at the root node, their weights ``w(r)`` and
counterfactual best-response values ``CBV(r)`` read from the blueprint in the subtree
(Burch, Johanson & Bowling 2014; Brown & Sandholm 2017)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..core import kernels as K
from ..core.errors import RcfrError
from ..core.names import ALGORITHMS
from ..evaluate import evaluate
from ..forms.base import KIND_CHANCE, KIND_TERMINAL, register_resolver
from ..forms.public.gadget import GadgetForm, gadget_form
from ..forms.public.subtree import PublicSubtree, chance_cut, extract_subtree, root_values
from ..policy import TabularPolicy
from ..run.engine import drive
from ..solvers.run import make_solver
from . import node_sweeps as SK
from .blueprint import VALUES
from .cut import parse_cut
from .everywhere import ResolvedEverywhere
from .methods import METHODS, Margins


@dataclass
class PublicResolved(Margins):
    """One public subgame re-solved for one player: the re-solver's ``sequences`` (the full
    public tree's) and ``probs``; per opponent root row ``alternative`` ``t(r)`` (per unit of
    weight, gifts included), ``margins`` ``t(r) - CBV'(r) / w(r)`` against the alternative
    without gifts, ``gifts`` per unit, ``set_weight`` ``w(r)``; seconds (extraction, gadget
    and margins), iterations and the gadget's solver."""

    method: str
    node: int
    player: int
    sequences: np.ndarray
    probs: np.ndarray
    alternative: np.ndarray
    margins: np.ndarray
    gifts: np.ndarray
    set_weight: np.ndarray
    seconds: float
    iterations: int
    algorithm: str = "cfr+"


@dataclass
class GadgetSolution:
    """The re-solver's average strategy in the subtree: ``sequences`` (the full tree's) and
    their behavioural ``probs``; ``iterations`` of ``algorithm`` run in ``seconds`` (CPU, the
    iterations alone); ``gadget`` (the compiled gadget) and ``strategy`` (both players' average
    strategy in it), so that ``rcfr.evaluate.evaluate(gadget, strategy)`` measures it."""

    sequences: np.ndarray
    probs: np.ndarray
    iterations: int
    seconds: float
    algorithm: str
    gadget: GadgetForm
    strategy: np.ndarray


def solve_gadget(sub: PublicSubtree, kind: str, player: int, reach, iterations: int = 1000,
                 alternative: np.ndarray | None = None, weight: np.ndarray | None = None, *,
                 algorithm: str = "cfr+", seconds: float | None = None,
                 **options) -> GadgetSolution:
    """Re-solve ``sub`` for ``player`` with the gadget ``kind`` (``"unsafe"``, ``"resolve"``,
    ``"maxmargin"``; :func:`rcfr.forms.public.gadget.gadget_form` says what ``reach``,
    ``alternative`` and ``weight`` are) by ``iterations`` of the full-width solver
    ``algorithm`` (``cfr``, ``cfr+``, ``lcfr``, ``dcfr``, ``pcfr+``, ``pdcfr+``; ``options``:
    its options, e.g. DCFR's ``alpha``, ``beta``, ``gamma``, ``averaging``, ``alternating``),
    or for ``seconds`` of CPU time in whole chunks (:func:`rcfr.run.engine.drive`)."""
    key = str(algorithm).strip().lower()
    if key not in ALGORITHMS:
        raise RcfrError(f"a public-form gadget is solved by a full-width solver "
                        f"({', '.join(ALGORITHMS)}), not {algorithm!r}")
    form = gadget_form(sub, kind, player, reach, alternative, weight)
    if seconds is not None and not float(seconds) > 0:
        raise RcfrError(f"a time budget is a positive number of seconds, got {seconds!r}")
    solver = make_solver(form, key, **options)
    solver.setup()  # (validation and kernel loading outside the timed iterations)
    run = drive(form, solver, int(iterations) if seconds is None else None,
                time_budget=None if seconds is None else float(seconds),
                clock=time.process_time, measure=False)
    strategy = run.policy.probs
    seqs, probs = form.resolver_probs(strategy)
    return GadgetSolution(seqs, probs, int(solver.iteration), run.seconds, key, form, strategy)


def blueprint_plan(tree, probs: np.ndarray) -> np.ndarray:
    """The padded realization plan of both players under the behavioural ``probs``."""
    return tree.realization_plans(probs)


def public_gifts(tree, probs: np.ndarray, subtrees: list[PublicSubtree], player: int,
                 plan: np.ndarray | None = None) -> list[np.ndarray]:
    """Reach-Maxmargin's gifts per unit of weight for the opponent's root rows of each of
    ``subtrees`` (the subgames re-solved together; :meth:`.Blueprint.gifts`'s definition): at
    each earlier opponent sequence ``s = (I', a')`` the gift ``g(s) = max_a CBV(I', a) -
    CBV(I', a')`` (counterfactual best-response values against the blueprint in the full
    game), shared among every root row below ``s`` in proportion to ``w(r)``."""
    opp = 1 - player
    plan = blueprint_plan(tree, probs) if plan is None else plan
    S = tree.num_sequences
    acc = np.zeros(S + 2)
    tree.terminal_values(opp, plan, acc)
    seqs = tree.player_sequences(opp)
    infos = tree.player_infosets(opp)
    K.best_response(opp, infos.start, infos.stop, tree.infoset_seq_start,
                    tree.infoset_num_actions, tree.infoset_parent_seq, acc, np.zeros(S))
    gift = np.zeros(S)
    starts = tree.infoset_seq_start[infos.start:infos.stop].astype(np.int64)
    na = tree.infoset_num_actions[infos.start:infos.stop].astype(np.int64)
    idx = np.repeat(np.arange(starts.size), na)
    best = np.full(starts.size, -np.inf)
    np.maximum.at(best, idx, acc[seqs.start:seqs.stop])
    gift[seqs.start:seqs.stop] = best[idx] - acc[seqs.start:seqs.stop]
    weights, paths = [], []
    total = np.zeros(S)
    for sub in subtrees:
        w = root_values(sub, player, sub.root_reach(plan, player), probs)[1]
        per = []
        for r, s in enumerate(sub.root_seq[opp]):
            path, s = [], int(s)
            while 0 <= s < S:
                path.append(s)
                s = int(tree.infoset_parent_seq[tree.seq_infoset[s]])
            per.append(path)
            total[path] += w[r]
        weights.append(w)
        paths.append(per)
    out = []
    for w, per in zip(weights, paths, strict=True):
        g = np.zeros(w.size)
        for r, path in enumerate(per):
            if w[r] > 0 and path:
                g[r] = float(np.sum(gift[path] / total[path]))
        out.append(g)
    return out


def resolve_public(tree, probs: np.ndarray, node: int | PublicSubtree, player: int,
                   method: str = "resolve", *, iterations: int = 1000,
                   values: str = "best-response", plan: np.ndarray | None = None,
                   gifts: np.ndarray | None = None,
                   alternative: np.ndarray | None = None, algorithm: str = "cfr+",
                   seconds: float | None = None, **options) -> PublicResolved:
    """Re-solve the public subgame at ``node`` (or an extracted subtree) of the public tree
    ``tree`` for ``player`` by ``method`` with ``iterations`` of ``algorithm`` (CFR+ by default;
    or for ``seconds`` of CPU time; ``algorithm`` and ``options``: any full-width solver,
    :func:`solve_gadget`), the blueprint being the behavioural ``probs``.  ``values``:
    ``"best-response"`` (``t(r) = CBV(r) / w(r)``) or
    ``"blueprint"`` (the estimated variants: the blueprint's own counterfactual values);
    ``alternative``: ``t(r)`` given.  ``gifts`` (Reach-Maxmargin; per unit of weight, as
    :func:`public_gifts` gives them; default: this subgame's alone)."""
    t0 = time.perf_counter()
    key = str(method).strip().lower().replace("_", "-")
    if key not in METHODS:
        raise RcfrError(f"unknown re-solving method {method!r}; use one of {', '.join(METHODS)}")
    if player not in (0, 1):
        raise RcfrError(f"the re-solver is player 0 or 1, got {player!r}")
    if values not in VALUES:
        raise RcfrError(f"values are {' or '.join(VALUES)}, got {values!r}")
    probs = np.asarray(probs, dtype=np.float64)
    plan = blueprint_plan(tree, probs) if plan is None else plan
    sub = node if isinstance(node, PublicSubtree) else extract_subtree(tree, int(node))
    reach = [sub.root_reach(plan, 0), sub.root_reach(plan, 1)]
    cbv, w = root_values(sub, player, reach[player], probs,
                         None if values == "best-response" else probs)
    safe_w = np.where(w > 0, w, 1.0)
    t = cbv / safe_w if alternative is None else np.asarray(alternative, dtype=np.float64)
    g = np.zeros(w.size)
    if key == "reach-maxmargin":
        g = public_gifts(tree, probs, [sub], player, plan)[0] if gifts is None else (
            np.asarray(gifts, dtype=np.float64))
    alt = t + g
    gadget = {"unsafe": "unsafe", "resolve": "resolve"}.get(key, "maxmargin")
    sol = solve_gadget(sub, gadget, player, reach, int(iterations),
                       alt * w if gadget == "resolve" else alt, w, algorithm=algorithm,
                       seconds=seconds, **options)
    mixed = probs.copy()
    mixed[sol.sequences] = sol.probs
    new = root_values(sub, player, reach[player], mixed)[0]
    margins = np.where(w > 0, t - new / safe_w, 0.0)
    return PublicResolved(key, int(sub.node), player, sol.sequences, sol.probs,
                          np.where(w > 0, alt, 0.0), margins, g, w,
                          time.perf_counter() - t0, sol.iterations, sol.algorithm)


def _resolve_nodes(tree, probs: np.ndarray, nodes, method: str, players=(0, 1), *,
                   iterations: int = 1000, values: str = "best-response",
                   algorithm: str = "cfr+", seconds: float | None = None,
                   **options) -> tuple[np.ndarray, list[PublicResolved]]:
    """Every public subgame at ``nodes`` re-solved for each of ``players``, spliced into the
    blueprint ``probs`` (Reach-Maxmargin shares its gifts among all the subgames)."""
    probs = np.asarray(probs, dtype=np.float64)
    plan = blueprint_plan(tree, probs)
    subs = [extract_subtree(tree, int(u)) for u in nodes]
    out = probs.copy()
    results = []
    for player in players:
        gifts = (public_gifts(tree, probs, subs, player, plan)
                 if str(method).lower().replace("_", "-") == "reach-maxmargin"
                 else [None] * len(subs))
        for sub, g in zip(subs, gifts, strict=True):
            r = resolve_public(tree, probs, sub, player, method, iterations=iterations,
                               values=values, plan=plan, gifts=g, algorithm=algorithm,
                               seconds=seconds, **options)
            out[r.sequences] = r.probs
            results.append(r)
    return out, results


def resolve_everywhere_public(tree, probs: np.ndarray, method: str, *, level: int = 1,
                              iterations: int = 1000, values: str = "best-response",
                              algorithm: str = "cfr+", seconds: float | None = None,
                              **options) -> tuple[np.ndarray, list[PublicResolved]]:
    """Every public subgame at chance level ``level`` (:func:`chance_cut`) re-solved for both
    players from the blueprint ``probs``; returns the spliced behavioural strategy and the
    results (Reach-Maxmargin shares its gifts among all the subgames); ``algorithm``,
    ``seconds`` and ``options`` as :func:`resolve_public` (``seconds``: per gadget)."""
    return _resolve_nodes(tree, probs, chance_cut(tree, level), method, iterations=iterations,
                          values=values, algorithm=algorithm, seconds=seconds, **options)


def _private_deals(tree) -> int:
    """The history form's chance events before the first player action that the public tree
    has no chance node for (the private deals, dealt at its root)."""
    state = tree.game.new_initial_state()
    events = 0
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
        events += 1
    u, public = 0, 0
    while int(tree.node_kind[u]) == KIND_CHANCE:
        u = int(tree.node_child_start[u])
        public += 1
    return events - public


def public_cut(tree, cut: str) -> np.ndarray:
    """The public nodes at ``cut`` as :func:`.cut.cut_roots` reads it on the history form:
    ``chance:K`` just after the K-th chance event of the histories (the private deals
    included), ``actions:N`` just after the N-th player action; each must be a decision node
    (a public subgame starts where a player acts)."""
    kind, count = parse_cut(cut)
    n = int(tree.num_public_nodes)
    counts = np.empty((2, n), dtype=np.int64)
    SK.edge_counts(tree.node_kind, tree.node_parent, counts)
    row = 0 if kind == "chance" else 1
    if row == 0:
        count -= _private_deals(tree)
    parent = np.maximum(tree.node_parent, 0)
    at = (counts[row] == count) & (counts[row][parent] == count - 1)
    at &= tree.node_kind != KIND_TERMINAL
    at[0] = False
    nodes = np.flatnonzero(at)
    if nodes.size == 0:
        raise RcfrError(f"no public node of {tree.game} is at the cut {cut}")
    if np.any(tree.node_kind[nodes] == KIND_CHANCE):
        raise RcfrError(f"the cut {cut} of {tree.game} ends at a chance node; on the public "
                        f"form a subgame starts where a player acts")
    return nodes


def resolve_everywhere_at(policy: TabularPolicy, cut: str, method: str = "reach-maxmargin",
                          *, players: tuple[int, ...] = (0, 1), **options
                          ) -> ResolvedEverywhere:
    """:func:`.everywhere.resolve_everywhere` for a policy on the public form: every public
    subgame at ``cut`` (:func:`public_cut`) re-solved for each of ``players`` (``options``:
    ``algorithm`` (a full-width solver), ``iterations`` or ``seconds``, ``values``, the
    solver's options), spliced and evaluated exactly in the full game."""
    if not players or any(p not in (0, 1) for p in players):
        raise RcfrError(f"players are 0 and/or 1, got {players!r}")
    key = str(method).strip().lower().replace("_", "-")
    if key not in METHODS:
        raise RcfrError(f"unknown re-solving method {method!r}; use one of {', '.join(METHODS)}")
    t0 = time.perf_counter()
    tree = policy.tree
    out, results = _resolve_nodes(tree, policy.probs, public_cut(tree, cut), key,
                                  tuple(players), **options)
    meta = dict(policy.metadata)
    meta["resolved"] = [key]
    spliced = TabularPolicy(tree, out, meta)
    seconds = time.perf_counter() - t0
    return ResolvedEverywhere(key, cut, spliced, evaluate(tree, spliced),
                              evaluate(tree, policy), results, seconds)


register_resolver("public", resolve_everywhere_at)

"""A re-solving gadget on a public subtree as a compiled game of its own (a
:class:`rcfr.forms.base.Form`), so that the one solver loop (:mod:`rcfr.solvers.loop`) and
every full-width update rule (CFR, CFR+, LCFR, DCFR, PCFR+, PDCFR+) solve it, and
:func:`rcfr.evaluate.evaluate` measures it exactly.

The gadgets (:mod:`rcfr.forms.public.subtree`, after Burch, Johanson & Bowling 2014, fig. 2,
and Moravcik et al. 2016, sec. 3) sit above the opponent's root rows of the subtree:

* ``unsafe``: the opponent's root rows keep their blueprint reach (Ganzfried & Sandholm 2015);
* ``resolve``: at each root row ``r`` of positive weight the opponent enters or takes ``T(r)``;
* ``maxmargin``: the opponent picks a root row ``r`` and gets ``v(r) / w(r) - t(r)``.

The re-solver's root rows keep their blueprint reach.  Sequences are laid out per player as
``[root rows | gadget sequences | subtree sequences]`` (player 0's block first); each root row
is a sequence of its own one-action information set (its reach is set by the pass, never by a
strategy), so every sequence belongs to an information set as the contract requires.  The
passes run the arithmetic and order of :func:`rcfr.forms.public.full_width.run_public`
(fused, regrets absorbed in the backward sweep for CFR and CFR+ with regret matching), with
the gadget's reach written into the opponent's root rows each time its plan is computed and
the gadget's values read from the root rows each time they are backed up."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...core import kernels as K
from ...core.errors import RcfrError
from ...core.links import POLYNOMIAL
from ...core.rules import CLIPPED, PLAIN
from ..base import SequenceIndex
from ..history.full_width import FullWork, absorb
from ..loop_state import Counters, LoopState
from ..threads import thread_args
from .full_width import _absorb_one, _plan
from .subtree import PublicSubtree, _layout
from .terminals import terminal_values

UNSAFE, RESOLVE, MAXMARGIN = 0, 1, 2
GADGET_KINDS = {"unsafe": UNSAFE, "resolve": RESOLVE, "maxmargin": MAXMARGIN}
ABSORB, REGRETS, BEST_RESPONSE = 0, 1, 2  # what a backward sweep computes


@njit(cache=True, inline="always")
def _gadget_reach(kind, r0, g0, kept, inv_w, plan):
    """The opponent's root-row reach from the gadget's plan: RESOLVE: the probability of
    entering; MAXMARGIN: the probability of picking the row over its weight."""
    for k in range(kept.shape[0]):
        if kind == RESOLVE:
            plan[r0 + kept[k]] = plan[g0 + 2 * k]
        else:
            plan[r0 + kept[k]] = plan[g0 + k] * inv_w[k]


@njit(cache=True, inline="always")
def _gadget_values(kind, r0, g0, kept, inv_w, alt, acc):
    """The gadget's action values from the root rows' counterfactual values."""
    for k in range(kept.shape[0]):
        if kind == RESOLVE:
            acc[g0 + 2 * k] = acc[r0 + kept[k]]
            acc[g0 + 2 * k + 1] = alt[k]
        else:
            acc[g0 + k] = acc[r0 + kept[k]] * inv_w[k] - alt[k]


@njit(cache=True)
def _terminals(p, plan, T, s_lo, s_hi, acc, threads=1):
    """The terminal sweep called with the full tree's argument types: numba compiles a
    callee once per literal argument, and the sweep is the costliest kernel to compile, so
    the player and ``dense`` go in as plain values (one compilation, shared with the tree's
    own sweeps, not one per call site)."""
    terminal_values(np.int64(p), plan, T, np.bool_(False), s_lo, s_hi, acc, threads)


@njit(cache=True)
def _fix_roots(player, kind, root, nrows, fixed, plan):
    """The root rows' reach that no strategy sets: the re-solver's always, both players'
    for UNSAFE."""
    for p in range(2):
        if p == player or kind == UNSAFE:
            for r in range(nrows[p]):
                plan[root[p] + r] = fixed[p, r]


@njit(cache=True)
def _player_plan(p, opp, kind, G, tree, root, gadget, kept, inv_w, strategy, plan, weight,
                 avg, average):
    """Player ``p``'s realization plan (adding ``weight`` times it to ``avg`` where
    ``average``), the opponent's root rows reached through the gadget."""
    lo, hi = tree.bounds[p], tree.bounds[p + 1]
    if p == opp and kind != UNSAFE:
        _plan(strategy, lo, lo + G, tree.seq_start, tree.num_actions, tree.parent_seq, plan,
              weight, avg, average)
        _gadget_reach(kind, root[opp], gadget, kept, inv_w, plan)
        lo += G
    _plan(strategy, lo, hi, tree.seq_start, tree.num_actions, tree.parent_seq, plan, weight,
          avg, average)


@njit(cache=True)
def _gadget_sweep(what, q, opp, kind, G, clipped, link_param, tree, root, gadget, kept,
                  inv_w, alt, strategy, acc, out):
    """Player ``q``'s backward sweep over ``acc`` (its terminal values): regrets absorbed by
    CFR / CFR+ with regret matching (``ABSORB``, :func:`_absorb_one`; ``out``: the regrets),
    instantaneous regrets (``REGRETS``) or a best response (``BEST_RESPONSE``); the gadget's
    values are set from the root rows' once the subtree is backed up."""
    lo, hi = tree.bounds[q], tree.bounds[q + 1]
    split = lo + G if (q == opp and kind != UNSAFE) else lo
    matching = link_param == 2.0
    for part in range(2):
        a, b = (split, hi) if part == 0 else (lo, split)
        if part == 1:
            if split == lo:
                break
            _gadget_values(kind, root[opp], gadget, kept, inv_w, alt, acc)
        if what == ABSORB:  # (one loop per kind: the branch stays out of the sweep)
            for i in range(b - 1, a - 1, -1):
                _absorb_one(i, clipped, matching, link_param, strategy, tree.seq_start,
                            tree.num_actions, tree.parent_seq, acc, out)
        elif what == REGRETS:
            for i in range(b - 1, a - 1, -1):
                K.regrets_at(i, strategy, tree.seq_start, tree.num_actions, tree.parent_seq,
                             acc, out)
        else:
            for i in range(b - 1, a - 1, -1):
                K.best_response_at(i, tree.seq_start, tree.num_actions, tree.parent_seq, acc,
                                   out)


@njit(cache=True)
def _update(q, t, opp, kind, G, rule, link_kind, link_param, tree, root, gadget, kept, inv_w,
            alt, strategy, acc, inst, regrets, prediction, values):
    """Player ``q``'s regrets at the current plans absorbed by ``rule`` and its strategy
    re-linked: in the backward sweep for CFR / CFR+ with regret matching
    (:func:`rcfr.forms.public.full_width._regrets_absorbed`), else instantaneous regrets then
    :func:`rcfr.forms.history.full_width.absorb`."""
    if (rule.kind == PLAIN or rule.kind == CLIPPED) and link_kind == POLYNOMIAL:
        _gadget_sweep(ABSORB, q, opp, kind, G, rule.kind == CLIPPED, link_param, tree, root,
                      gadget, kept, inv_w, alt, strategy, acc, regrets)
    else:
        _gadget_sweep(REGRETS, q, opp, kind, G, False, link_param, tree, root, gadget, kept,
                      inv_w, alt, strategy, acc, inst)
        absorb(q, t, rule, link_kind, link_param, tree, inst, regrets, prediction, values,
               strategy)


@njit(cache=True)
def run_gadget(n_iters, t0, alternating, avg_power, rule, link_kind, link_param, player, kind,
               tree, T, root, nrows, gadget, kept, inv_w, alt, fixed, regrets, prediction,
               values, strategy, avg, plan, acc, inst, threads=1):
    """``n_iters`` iterations of the loop with the tabular estimator and any update ``rule``
    on the gadget game, in the order of :func:`rcfr.forms.public.full_width.run_public`: a
    player's plan is recomputed only after its strategy changed, averaging rides on the plan.
    ``kept``: the opponent's root rows in the gadget; ``inv_w``: one over their weights
    (MAXMARGIN); ``alt``: their alternative value (RESOLVE: ``T(r)``; MAXMARGIN: per unit,
    ``t(r)``); ``fixed``: the root rows' reach where fixed."""
    opp = 1 - player
    G = kept.shape[0] if kind == RESOLVE else (1 if kind == MAXMARGIN else 0)
    _fix_roots(player, kind, root, nrows, fixed, plan)
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:
            if it == 0:
                _player_plan(0, opp, kind, G, tree, root, gadget, kept, inv_w, strategy, plan,
                             weight, avg, True)
            _player_plan(1, opp, kind, G, tree, root, gadget, kept, inv_w, strategy, plan,
                         weight, avg, True)
            _terminals(0, plan, T, tree.seq_bounds[0], tree.seq_bounds[1], acc, threads)
            _update(0, t, opp, kind, G, rule, link_kind, link_param, tree, root, gadget, kept,
                    inv_w, alt, strategy, acc, inst, regrets, prediction, values)
            nxt = float(t + 1) ** avg_power
            _player_plan(0, opp, kind, G, tree, root, gadget, kept, inv_w, strategy, plan, nxt,
                         avg, it + 1 < n_iters)
            _terminals(1, plan, T, tree.seq_bounds[1], tree.seq_bounds[2], acc, threads)
            _update(1, t, opp, kind, G, rule, link_kind, link_param, tree, root, gadget, kept,
                    inv_w, alt, strategy, acc, inst, regrets, prediction, values)
        else:
            for p in range(2):
                _player_plan(p, opp, kind, G, tree, root, gadget, kept, inv_w, strategy, plan,
                             weight, avg, True)
            for p in range(2):
                _terminals(p, plan, T, tree.seq_bounds[p], tree.seq_bounds[p + 1], acc, threads)
            for p in range(2):  # (both sweeps read the plans at the same strategies)
                _update(p, t, opp, kind, G, rule, link_kind, link_param, tree, root, gadget, kept,
                        inv_w, alt, strategy, acc, inst, regrets, prediction, values)


@njit(cache=True)
def gadget_pass(p_lo, p_hi, weight, player, kind, tree, T, root, nrows, gadget, kept, inv_w,
                alt, fixed, strategy, avg, plan, acc, inst, threads=1):
    """Players ``[p_lo, p_hi)`` at the same strategy: their instantaneous counterfactual
    regrets into ``inst`` and ``weight`` times their realization plans into ``avg`` (the
    :class:`rcfr.forms.base.TreePass` step of the Python loop)."""
    opp = 1 - player
    G = kept.shape[0] if kind == RESOLVE else (1 if kind == MAXMARGIN else 0)
    _fix_roots(player, kind, root, nrows, fixed, plan)
    for p in range(2):
        _player_plan(p, opp, kind, G, tree, root, gadget, kept, inv_w, strategy, plan, weight,
                     avg, p_lo <= p < p_hi)
    for p in range(p_lo, p_hi):
        _terminals(p, plan, T, tree.seq_bounds[p], tree.seq_bounds[p + 1], acc, threads)
        _gadget_sweep(REGRETS, p, opp, kind, G, False, 2.0, tree, root, gadget, kept, inv_w,
                      alt, strategy, acc, inst)


@njit(cache=True)
def evaluate_gadget(probs, player, kind, tree, T, root, nrows, gadget, kept, inv_w, alt, fixed,
                    plan, acc, br, threads=1):
    """Both players' values and best-response values of the behavioural profile ``probs`` in
    the gadget game.  A player's value is its root rows' counterfactual values times their
    reach, or, for the opponent above a gadget, the gadget's value (its alternatives, RESOLVE's
    ``T(r)`` and MAXMARGIN's ``-t(r)`` per unit, included); the re-solver pays the
    alternatives, a constant of the opponent's plan."""
    opp = 1 - player
    G = kept.shape[0] if kind == RESOLVE else (1 if kind == MAXMARGIN else 0)
    _fix_roots(player, kind, root, nrows, fixed, plan)
    for p in range(2):
        _player_plan(p, opp, kind, G, tree, root, gadget, kept, inv_w, probs, plan, 1.0, acc,
                     False)
    S = acc.shape[0] - 2
    const = 0.0  # the opponent's payoff from the gadget's alternatives
    for k in range(kept.shape[0]):
        if kind == RESOLVE:
            const += plan[gadget + 2 * k + 1] * alt[k]
        elif kind == MAXMARGIN:
            const -= plan[gadget + k] * alt[k]
    out = np.zeros((2, 2))  # [value, best-response value] per player
    for q in range(2):
        for j in range(2):
            _terminals(q, plan, T, tree.seq_bounds[q], tree.seq_bounds[q + 1], acc, threads)
            acc[S + q] = 0.0
            _gadget_sweep(REGRETS if j == 0 else BEST_RESPONSE, q, opp, kind, G, False, 2.0,
                          tree, root, gadget, kept, inv_w, alt, probs, acc, br)
            if q == opp and kind != UNSAFE:
                v = acc[S + q]
            else:
                v = 0.0
                for r in range(nrows[q]):
                    v += plan[root[q] + r] * acc[root[q] + r]
                if q == player:
                    v -= const
            out[q, j] = v
    return out


@dataclass(frozen=True)
class GadgetLabel:
    """What a gadget's ``game`` attribute says: its name, the poker big blind (mbb/g) and,
    as a :class:`rcfr.games.protocol.Game` declares it, a starting pot (none: a gadget's
    exploitability is not quoted as a share of a spot's pot)."""

    name: str
    big_blind: float | None = None
    starting_pot: float | None = None

    def __str__(self) -> str:
        return self.name


class GadgetForm(SequenceIndex):
    """A gadget on a public subtree as a compiled game (the :class:`rcfr.forms.base.Form`
    contract's sequence index, full-width pass and evaluation; no sampled pass).  Built by
    :func:`gadget_form`; :meth:`resolver_probs` reads the re-solver's subtree strategy off a
    profile of the gadget."""

    form = "gadget"  # (full-width passes only: no capability)

    def __init__(self, sub: PublicSubtree, kind: int, player: int, layout, kept: np.ndarray,
                 inv_w: np.ndarray, alt: np.ndarray, fixed: np.ndarray) -> None:
        self.sub, self.kind, self.player = sub, int(kind), int(player)
        self.layout, self.kept, self.inv_w, self.alt, self.fixed = layout, kept, inv_w, alt, fixed
        A = layout.arrays
        S = int(A.seq_bounds[2])
        rows = [int(r) for r in sub.num_rows]
        starts, nacts, parents, actions = [], [], [], np.zeros(S, dtype=np.int64)
        for p in (0, 1):  # each root row a one-action information set, then the kernel's
            lo, hi = int(A.bounds[p]), int(A.bounds[p + 1])
            starts += [layout.root[p] + np.arange(rows[p]), A.seq_start[lo:hi]]
            nacts += [np.ones(rows[p], dtype=np.int64), A.num_actions[lo:hi]]
            parents += [np.full(rows[p], S + p, dtype=np.int64), A.parent_seq[lo:hi]]
            b = int(layout.sub[p])
            n = len(sub.seq_full[p])
            actions[b:b + n] = sub.tree.seq_action[sub.seq_full[p]]
        self.infoset_seq_start = np.concatenate(starts).astype(np.int64)
        self.infoset_num_actions = np.concatenate(nacts).astype(np.int64)
        self.infoset_parent_seq = np.concatenate(parents).astype(np.int64)
        n0 = rows[0] + int(A.bounds[1])
        self.num_infosets_per_player = (n0, rows[1] + int(A.bounds[2] - A.bounds[1]))
        self.num_sequences_per_player = (int(A.seq_bounds[1]), int(A.seq_bounds[2]
                                                                   - A.seq_bounds[1]))
        self.infoset_player = np.repeat(np.array([0, 1], dtype=np.int64),
                                        self.num_infosets_per_player)
        self.seq_infoset = np.repeat(np.arange(self.infoset_seq_start.size, dtype=np.int64),
                                     self.infoset_num_actions)
        if layout.num_gadget_sets:
            g, na = int(layout.gadget), A.num_actions[int(A.bounds[1 - self.player]):][
                :layout.num_gadget_sets]
            actions[g:g + int(na.sum())] = np.concatenate([np.arange(k) for k in na])
        self.seq_action = actions
        name = {v: k for k, v in GADGET_KINDS.items()}[self.kind]
        game = sub.tree.game
        self.game = GadgetLabel(f"{name} gadget of {game} at public node {sub.node} for "
                               f"player {self.player}", getattr(game, "big_blind", None))
        self._work: tuple | None = None

    # -- the sequence index --------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        """Public nodes of the subtree: what one player's pass visits (in public nodes; the
        histories below them are not counted)."""
        return int(self.sub.num_public_nodes)

    @property
    def nbytes(self) -> int:
        return int(sum(a.nbytes for a in (self.infoset_seq_start, self.infoset_num_actions,
                                          self.infoset_parent_seq, self.seq_infoset,
                                          self.seq_action)))

    @property
    def infoset_keys(self) -> list[str]:
        """Names of the information sets: ``root p:r`` (root rows), ``gadget r`` (the
        opponent's gadget sets) and the subtree's information-state strings."""
        keys = []
        for p in (0, 1):
            keys += [f"root {p}:{r}" for r in range(int(self.sub.num_rows[p]))]
            if p == 1 - self.player:
                keys += [f"gadget {k}" for k in range(self.layout.num_gadget_sets)]
            keys += self.sub.infoset_keys(p)
        return keys

    def fingerprint(self) -> str:
        """A hash of the gadget's structure and its inputs (reach, weights, values)."""
        h = hashlib.sha256(str(self.game).encode())
        for a in (self.infoset_seq_start, self.infoset_num_actions, self.infoset_parent_seq,
                  self.seq_action, self.kept, self.inv_w, self.alt, self.fixed):
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()[:32]

    def sizes(self) -> dict:
        return {**self.sub.sizes(), "gadget_infosets": self.num_infosets,
                "gadget_sequences": self.num_sequences}

    def file_meta(self) -> dict:
        return {"form": self.form}

    # -- passes and evaluation -----------------------------------------------------------
    def _args(self) -> tuple:
        """The kernels' arguments.  (Asking for the thread count launches numba's threading
        layer, which the terminal sweep's parallel kernels need where the gadget kernels are
        loaded from the cache: without it the first call crashes.)"""
        thread_args()
        L = self.layout
        return (self.player, self.kind, L.arrays, L.T, L.root, self.sub.num_rows, L.gadget,
                self.kept, self.inv_w, self.alt, self.fixed)

    def full_width_pass(self) -> GadgetPass:
        return GadgetPass(self)

    def sampled_pass(self, scheme: int, epsilon: float, beta: float, tau: float,
                     seed: int | None):
        raise RcfrError("a re-solving gadget is solved by the full-width solvers "
                        "(cfr, cfr+, lcfr, dcfr, pcfr+, pdcfr+), not by sampling")

    def evaluate(self, probs: np.ndarray) -> tuple[float, float, float]:
        """Player 0's value and both best-response values of the behavioural ``probs`` in the
        gadget game (:func:`evaluate_gadget`)."""
        out = self.values(probs)
        return float(out[0, 0]), float(out[0, 1]), float(out[1, 1])

    def values(self, probs: np.ndarray) -> np.ndarray:
        """``[[value, best-response value] per player]`` of the behavioural ``probs``
        (:func:`evaluate_gadget`; the values sum to zero)."""
        S = self.num_sequences
        return evaluate_gadget(np.ascontiguousarray(probs, dtype=np.float64), *self._args(),
                               K.padded(S), np.zeros(S + 2), np.zeros(S),
                               *thread_args(always=self.layout.T.card_deal))

    def terminal_values(self, player: int, plan: np.ndarray, acc: np.ndarray) -> None:
        raise RcfrError("a gadget's terminal values come with its passes (evaluate it whole)")

    def expected_value(self, plan: np.ndarray) -> float:
        raise RcfrError("a gadget's values come from behavioural profiles: use evaluate")

    def resolver_probs(self, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The re-solver's subtree strategy in a profile ``probs`` of the gadget: the full
        tree's sequences and their probabilities."""
        b = int(self.layout.sub[self.player])
        n = len(self.sub.seq_full[self.player])
        return self.sub.seq_full[self.player], np.asarray(probs)[b:b + n].copy()


class GadgetPass:
    """The exact pass over a gadget (a :class:`rcfr.forms.base.TreePass`): the Python loop's
    step (:func:`gadget_pass`) and the fused loop of every full-width rule
    (:func:`run_gadget`)."""

    def __init__(self, form: GadgetForm) -> None:
        self.form = form
        S = form.num_sequences
        self.work = FullWork(K.padded(S), np.zeros(S + 2), np.zeros(S))

    def run(self, players, strategy, weight, avg, inst) -> int:
        gadget_pass(players[0], players[-1] + 1, weight, *self.form._args(), strategy, avg,
                    self.work.plan, self.work.acc, inst,
                    *thread_args(always=self.form.layout.T.card_deal))
        return len(players) * self.form.num_nodes

    def fuses(self, rule) -> bool:
        return True

    def run_fused(self, state: LoopState, max_iters: int, node_budget: int) -> Counters:
        per = 2 * self.form.num_nodes
        iterations = min(max_iters, max(1, -(-node_budget // per)))
        if state.compact is not None:
            raise RcfrError("a re-solving gadget keeps float tables (no --storage int16)")
        run_gadget(iterations, state.iteration, state.alternating, state.avg_power, state.rule,
                   state.link_kind, state.link_param, *self.form._args(), state.regrets,
                   state.prediction, state.values, state.strategy, state.avg_weights,
                   self.work.plan, self.work.acc, self.work.inst,
                   *thread_args(always=self.form.layout.T.card_deal))
        return state.advanced(iterations, iterations * per)


def gadget_form(sub: PublicSubtree, kind: str, player: int, reach, alternative=None,
                weight=None) -> GadgetForm:
    """The gadget ``kind`` (``"unsafe"``, ``"resolve"``, ``"maxmargin"``) on ``sub`` for the
    re-solver ``player``, as a compiled game.  ``reach[p]``: each player's reach of its root
    rows (the re-solver's is kept; the opponent's only for ``unsafe``); ``alternative``: per
    opponent root row, ``resolve``: its alternative counterfactual value ``T(r)`` (full-game
    units), ``maxmargin``: per unit of weight, ``t(r)``; ``weight``: the opponent root rows'
    weights ``w(r)`` (:func:`rcfr.forms.public.subtree.root_values`): rows of weight 0 stay
    out of the gadget."""
    if kind not in GADGET_KINDS:
        raise RcfrError(f"unknown gadget {kind!r}; use one of {', '.join(GADGET_KINDS)}")
    if player not in (0, 1):
        raise RcfrError(f"the re-solver is player 0 or 1, got {player!r}")
    k = GADGET_KINDS[kind]
    opp = 1 - player
    if k == UNSAFE:
        kept = np.zeros(0, dtype=np.int64)
        acts: list[int] = []
    else:
        if weight is None or alternative is None:
            raise RcfrError(f"the {kind} gadget needs the root rows' weights and values")
        kept = np.flatnonzero(np.asarray(weight) > 0).astype(np.int64)
        acts = [2] * kept.size if k == RESOLVE else ([int(kept.size)] if kept.size else [])
    layout = _layout(sub, opp, acts)
    fixed = np.zeros((2, max(int(sub.num_rows.max()), 1)))
    for p in (0, 1):
        r = np.asarray(reach[p], dtype=np.float64)
        if r.shape != (int(sub.num_rows[p]),):
            raise RcfrError(f"player {p}'s root reach needs {int(sub.num_rows[p])} values, "
                            f"got shape {r.shape}")
        fixed[p, : sub.num_rows[p]] = r
    if k != UNSAFE and kept.size == 0:
        fixed[opp] = 0.0
    inv_w = np.zeros(kept.size)
    alt = np.zeros(kept.size)
    if kept.size:
        inv_w = 1.0 / np.asarray(weight, dtype=np.float64)[kept]
        alt = np.asarray(alternative, dtype=np.float64)[kept]
    return GadgetForm(sub, k, player, layout, kept, inv_w, alt, fixed)

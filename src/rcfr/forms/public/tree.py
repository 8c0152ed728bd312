"""The public tree: the second compiled form (ARCHITECTURE.md, "Two compiled forms").

For games whose actions are all public and whose private information is dealt by chance
(poker, liar's dice), a node is a *public* state (betting or bidding history, board cards) and
each player has a vector of private states (cards, dice).  Chance over the private states is a
joint weight ``W[x0, x1]`` per *chance context* (the public chance outcomes so far, e.g. the
board), which carries card removal.  Terminals are structured rules (Johanson et al. 2011,
"Accelerating best response calculation in large extensive games", sec. 4):

* ``FOLD_RULE``: a payoff that does not depend on the private states (a scalar times the joint
  reach);
* ``SHOWDOWN_RULE``: the higher rank wins the stake, evaluated with sorted ranks and running sums
  in O(n0 + n1) per terminal (ranks are sorted once, at compile time);
* ``COUNT_RULE`` (liar's dice): the bid holds if both players' matching dice reach its quantity,
  evaluated by bucketing the opponent's reach by its count in O(n0 + n1);
* ``MATRIX_RULE``: the stake times a per-context matrix ``M[x0, x1]`` (e.g. a card abstraction's
  expected showdown payoff between two bucket sequences), a matrix-vector product.

Where the joint weight factors as ``w0[x0] * w1[x1]`` (dice) or ``w0[x0] * w1[x1] * [x0 != x1]``
(one card each from one deck) the rules use the factors; otherwise (``pairing="dense"``, e.g.
Leduc with ranks for cards) the n0 x n1 matrix.

A player may observe only a class of its private state (:meth:`PublicState.observation`, e.g.
the preflop bucket of a bucket sequence dealt at the root): ``row_of[p, c, x]`` is then
many-to-one, and an information set is a (public decision node, observed class) pair.

An information set is a (public decision node, private row) pair; its actions are a contiguous
slice of sequences (the history form's contract, :mod:`rcfr.forms.history.tree`): at public node
``u`` the
sequence of private row ``k`` and action ``a`` is ``node_seq_base[u] + k * A[u] + a``.  Player
0's information sets and sequences come first, in breadth-first order of their public nodes,
so realization plans, regrets, links, best responses and policies run unchanged on this form;
:func:`convert_policy` maps a strategy between the forms exactly.

Sizes are counted in *histories* as the history form counts them, so that curves stay
comparable: a public node in chance context ``c`` stands for as many histories as there are
deals of nonzero probability that reach it (pairs of observed classes, where players observe
classes).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import namedtuple
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ...core.budget import check_public
from ...core.errors import RcfrError
from ...core.kernels import padded
from ...games.holdem.combos import disjoint_mass
from ...games.protocol import CHANCE, TERMINAL, Game
from ...games.public import (
    MATRIX_RULE,
    PAIRINGS,
    SHOWDOWN_RULE,
    PublicNodes,
    PublicState,
    PublicStructure,
)
from ...games.registry import load_game
from ..base import KIND_CHANCE, KIND_TERMINAL, Capability, SequenceIndex, StringTable
from ..history.full_width import FullTree
from ..threads import thread_args
from .build import fill_infosets, first_of_each, last_decisions, node_bases
from .deal_values import deal_values, sample_deals
from .evaluate import evaluate_layout, evaluate_public
from .full_width import PublicFullWidthPass
from .layout import build_layout, uses_layout
from .levels import build_levels
from .sampled import PublicSampledPass
from .terminals import terminal_groups
from .terminals import terminal_values as _terminal_values

# what the numba passes read (rcfr.forms.public.full_width)
PublicArrays = namedtuple("PublicArrays", [
    "num_private",  # int64 [2]
    "exclusive",  # bool: W = outer(w0, w1) * [x0 != x1]
    "dense_deal",  # bool: W is given as a matrix (no factors; ``weight`` is 0)
    "node_ctx", "node_seq_base", "node_num_actions",  # per public node
    "term_ctx", "term_rule", "term_value", "term_q", "term_face",  # per public terminal
    "term_miss",  # COUNT_RULE: player 0's payoff if the bid fails (term_value: if it holds)
    "term_last", "term_last_act",  # int32 [2, Z]: each player's last public decision node
    # ... and, from it, the player's sequence at terminal z holding x:
    # term_seq_base[p, z] + row_of[p, term_row_ctx[p, z], x] * term_stride[p, z] (-1: empty)
    "term_seq_base", "term_stride", "term_row_ctx",
    # int32 [2, Z], [2, Z + 1], int64 [2]: the terminals grouped by the player's sequence
    # vector, for the threaded sweep (rcfr.forms.public.terminals.terminal_groups; 0 groups:
    # one thread)
    "term_order", "term_group", "term_groups",
    "weight",  # float64 [2, C, nmax]: factored weights (0 where impossible)
    "valid",  # float64 [2, C, nmax]: 1 where the private state is possible
    "row_of",  # int32 [2, C, nmax]: row of the private state at nodes of context C (-1)
    "full",  # bool [2, C]: row_of[p, c, x] == x for every x (every state possible and seen)
    "rank", "rank_order", "num_valid",  # showdown ranks, valid states sorted by rank, counts
    "rank_lt", "rank_le",  # int64 [2, C, nmax]: the opponent's valid states ranked below
    # (not above) each state
    "joint",  # float64 [C, n0, n1]: the joint weights
    "counts",  # int64 [2, faces, nmax]: dice of each private state counting for a face
    "max_count",  # int64 [2]
    "matrix",  # float64 [C, n0, n1]: MATRIX_RULE's payoffs per unit of stake ([1, 1, 1]: none)
    "pay",  # float64 [C, n0, n1]: matrix times the joint weights (dense deal) or [x0 != x1]
    "card_deal",  # bool: pairing "cards" (hold'em combos; ``joint`` is not kept)
    "cards",  # int64 [nmax, 2]: the private states' two cards (pairing "cards"; else [0, 2])
])


@dataclass(eq=False)
class PublicTree(SequenceIndex):
    """A game compiled to its public tree.  Build it with :func:`compile_public` (or
    ``compile_game(game, form="public")``)."""

    game: Game
    structure: PublicStructure = field(repr=False)
    # public nodes (breadth-first)
    node_kind: np.ndarray  # int8: 0/1 player to act, 2 chance, 3 terminal
    node_parent: np.ndarray  # int32
    node_child_start: np.ndarray  # int32 [n + 1]
    node_action: np.ndarray  # int32, action or chance outcome on the edge in (-1 at the root)
    node_ctx: np.ndarray  # int32, chance context
    node_num_actions: np.ndarray  # int32 (decision nodes)
    node_seq_base: np.ndarray  # int64, first sequence of a decision node (global index)
    node_info_base: np.ndarray  # int64, first information set of a decision node
    terminal_nodes: np.ndarray  # int32
    # chance contexts
    ctx_histories: np.ndarray  # int64, history-form histories per public node of the context
    ctx_joint_states: np.ndarray  # int64, (x0, x1) pairs of nonzero weight
    # information sets and sequences (the history form's contract)
    infoset_player: np.ndarray
    infoset_seq_start: np.ndarray
    infoset_num_actions: np.ndarray
    infoset_parent_seq: np.ndarray
    infoset_public_node: np.ndarray  # int32
    infoset_private: np.ndarray  # int32, the private state
    seq_infoset: np.ndarray
    seq_action: np.ndarray
    num_infosets_per_player: tuple[int, int]
    num_sequences_per_player: tuple[int, int]
    arrays: PublicArrays = field(repr=False)
    pairing: str = "dense"
    form: str = "public"
    _eval_scratch: tuple | None = field(default=None, repr=False)
    # a skeleton (:func:`compile_skeleton`): no per-information-set or per-sequence arrays, but
    # what they are computed from: (rep [2, C, nmax], num_rows [2, C], last [2, N],
    # last_act [2, N]) of :mod:`rcfr.forms.public.build`
    skeleton: tuple | None = field(default=None, repr=False)
    _fingerprint_tag = "|public"

    # -- sizes ---------------------------------------------------------------------------
    @property
    def num_sequences(self) -> int:
        return int(sum(self.num_sequences_per_player))  # (a skeleton has no seq_infoset)

    @property
    def num_infosets(self) -> int:
        return int(sum(self.num_infosets_per_player))

    @property
    def num_public_nodes(self) -> int:
        return int(self.node_kind.shape[0])

    @property
    def num_nodes(self) -> int:
        """Histories (as the history form counts them): what a full-width pass visits."""
        return int(self.structure.prefix_histories
                   + self.ctx_histories[self.node_ctx].sum())

    @property
    def num_terminals(self) -> int:
        return int(self.ctx_histories[self.node_ctx[self.terminal_nodes]].sum())

    @property
    def nbytes(self) -> int:
        """Memory held by the compiled arrays, in bytes."""
        own = sum(v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray))
        return int(own + sum(v.nbytes for v in self.arrays if isinstance(v, np.ndarray)))

    def fingerprint(self) -> str:
        """A hash of the public tree's structure (public nodes and their actions, each
        information set's public node and private state, the private states' labels), which
        fixes the information sets and their actions as the history form's key-by-key hash
        does, in seconds where that takes minutes (2-NL Hold'em(36): 67 million information
        sets).  Computed once."""
        cached = self.__dict__.get("_fingerprint")
        if cached is None:
            tag = self._fingerprint_tag + ("|skeleton" if self.skeleton is not None else "")
            h = hashlib.sha256(f"{self.game}{tag}|arrays".encode())
            h.update("\n".join(self.structure.labels[0] + ["|"] + self.structure.labels[1])
                     .encode())
            for a in (self.node_kind, self.node_child_start, self.node_action,
                      self.infoset_player, self.infoset_public_node, self.infoset_private,
                      self.infoset_num_actions, self.seq_action):
                h.update(np.ascontiguousarray(a).data)
            cached = self.__dict__["_fingerprint"] = h.hexdigest()[:32]
        return cached

    def sizes(self) -> dict:
        """The history form's sizes (histories, terminals, information sets, sequences) plus the
        public tree's own (public nodes, deals, memory)."""
        kind = self.node_kind
        per_node = self.ctx_histories[self.node_ctx]
        decision = int(per_node[kind < 2].sum())
        chance = int(per_node[kind == KIND_CHANCE].sum()) + self.structure.prefix_histories
        n0, n1 = (len(x) for x in self.structure.labels)
        return {
            "histories": self.num_nodes,
            "terminals": self.num_terminals,
            "chance_nodes": chance,
            "decision_nodes": decision,
            "infosets": self.num_infosets,
            "sequences": self.num_sequences,
            "infosets_per_player": list(self.num_infosets_per_player),
            "sequences_per_player": list(self.num_sequences_per_player),
            "public_nodes": self.num_public_nodes,
            "private_states": [n0, n1],
            # public nodes times the joint private states they hold (the papers' count)
            "joint_histories": int(self.ctx_joint_states[self.node_ctx].sum()),
        }

    # -- lookup --------------------------------------------------------------------------
    @cached_property
    def _states(self) -> list:
        """The public states, by node (rebuilt on demand: only names and keys need them)."""
        states = [self.structure.root]
        for u in range(self.num_public_nodes):
            lo, hi = self.node_child_start[u], self.node_child_start[u + 1]
            states.extend(states[u].child(int(a)) for a in self.node_action[lo:hi])
        return states

    @cached_property
    def infoset_keys(self) -> StringTable:
        """Information-state strings (the history form's), player 0's then player 1's; built on
        first use."""
        states = self._states
        keys = [states[u].information_state_string(int(p), int(x)) for u, p, x in
                zip(self.infoset_public_node, self.infoset_player, self.infoset_private,
                    strict=True)]
        n0 = self.num_infosets_per_player[0]
        return StringTable(keys, [(0, n0), (n0, self.num_infosets)])

    @cached_property
    def seq_action_names(self) -> StringTable:
        states = self._states
        return StringTable([
            states[self.infoset_public_node[i]].action_to_string(int(self.infoset_player[i]),
                                                                 int(self.seq_action[s]))
            for s, i in enumerate(self.seq_infoset)])

    # -- the Form contract (rcfr.forms.base.Form) -----------------------------------------
    @property
    def capabilities(self) -> frozenset[Capability]:
        """Sampled passes, on one thread or several, except on real-card hold'em (whose deal
        :meth:`sampled_pass` would draw from is never formed)."""
        if self.arrays.card_deal:
            return frozenset({Capability.DEAL_VALUES})
        return frozenset({Capability.SAMPLED_PASSES, Capability.THREADED_SAMPLING})

    def sample_deals(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` pairs of hands drawn from a spot's deal (:mod:`.deal_values`)."""
        return sample_deals(self, n, rng)

    def deal_values(self, plan0: np.ndarray, plan1: np.ndarray,
                    deals: np.ndarray) -> np.ndarray:
        """Player 0's exact expected payoff of each deal (:mod:`.deal_values`)."""
        return deal_values(self, plan0, plan1, deals)

    @property
    def infoset_node(self) -> np.ndarray:
        """The node of each information set in this form's node arrays (``node_kind``,
        ``node_parent``): its public node (the history form's is its first history)."""
        return self.infoset_public_node

    def file_meta(self) -> dict:
        """What files written on this form record about it: the form (their sequence order
        is the public tree's)."""
        return {"form": "public"}

    def full_width_pass(self) -> PublicFullWidthPass:
        """Vector-form CFR's exact pass (:mod:`rcfr.forms.public.full_width`)."""
        return PublicFullWidthPass(self)

    def sampled_pass(self, scheme: int, epsilon: float, beta: float, tau: float,
                     seed: int | None) -> PublicSampledPass:
        """A Monte Carlo pass of ``scheme`` over the public nodes of a sampled deal
        (:mod:`rcfr.forms.public.sampled`)."""
        if self.arrays.card_deal:
            raise RcfrError("Monte Carlo sampling is not offered on real-card hold'em (its "
                            "deal over 1,326 x 1,326 hands is never formed); use a full-width "
                            "algorithm: cfr, cfr+, lcfr, dcfr, pcfr+ or pdcfr+")
        return PublicSampledPass(self, scheme, epsilon, beta, tau, seed)

    def terminal_values(self, player: int, plan: np.ndarray, acc: np.ndarray,
                        dense: bool = False) -> None:
        """``acc[s]``: the counterfactual value to ``player`` of the terminals whose last
        ``player`` sequence is ``s`` (``plan``: padded realization plans; see
        :func:`rcfr.core.kernels.terminal_values`).  ``dense`` uses the n0 x n1 matrices."""
        seqs = self.player_sequences(player)
        _terminal_values(player, plan, self.arrays, dense, seqs.start, seqs.stop, acc,
                         *thread_args(always=self.arrays.card_deal))

    def evaluate(self, probs: np.ndarray) -> tuple[float, float, float]:
        """Player 0's value and both best-response values of the behavioural profile
        ``probs`` (float64, or float32 read without a copy; one numba call,
        :func:`rcfr.forms.public.evaluate.evaluate_layout`, or
        :func:`rcfr.forms.public.evaluate.evaluate_public` where the tree keeps the contract's
        order: one sequence vector and one over player 0's information sets)."""
        S = self.num_sequences
        layout = uses_layout(self)
        scratch = self._eval_scratch
        if scratch is None or scratch[0].shape[0] != S + 2 or scratch[2] != layout:
            scratch = (  # (the second: the values, or the parents' reach)
                padded(S), np.empty(S + 2 if layout else self.num_infosets_per_player[0]),
                layout)
            if S <= KEEP_SCRATCH:  # (a large tree's would stay resident beside the next run)
                self._eval_scratch = scratch
        plan, second, _ = scratch
        if not (isinstance(probs, np.ndarray) and probs.dtype == np.float32):
            probs = np.asarray(probs, dtype=np.float64)  # (float32 is read as it is)
        probs = np.ascontiguousarray(probs)
        extra = thread_args(always=self.arrays.card_deal)  # (the levels: built on first use)
        if layout:
            v, b0, b1 = evaluate_layout(probs, self._full_arrays, self.arrays, self._layout,
                                        plan, second, np.empty(self._layout.max_rows), *extra)
        else:
            v, b0, b1 = evaluate_public(probs, self._full_arrays, self.arrays, False, plan,
                                        second, *(extra and (*extra, self._levels)))
        return float(v), float(b0), float(b1)

    @cached_property
    def _layout(self):
        """The actions-major layout of the full-width kernels (:mod:`rcfr.forms.public.layout`)."""
        return build_layout(self)

    @cached_property
    def _levels(self):
        """The information sets by public depth, for the threaded plans and backward sweeps
        (:mod:`rcfr.forms.public.levels`)."""
        return build_levels(self)

    @cached_property
    def _full_arrays(self):
        return FullTree(
            np.array([0, self.num_infosets_per_player[0], self.num_infosets], dtype=np.int64),
            np.array([0, self.num_sequences_per_player[0], self.num_sequences], dtype=np.int64),
            self.infoset_seq_start, self.infoset_num_actions, self.infoset_parent_seq,
            np.zeros((2, 0), dtype=np.int32), np.zeros(0))

    def with_terminal_payoffs(self, value: np.ndarray, miss: np.ndarray) -> PublicTree:
        """This tree with other terminal payoffs: player 0's ``value[z]`` at terminal ``z``
        (liar's dice calls: if the bid holds) and ``miss[z]`` (if it fails)."""
        T = self.arrays._replace(term_value=np.ascontiguousarray(value, dtype=np.float64),
                                 term_miss=np.ascontiguousarray(miss, dtype=np.float64))
        return dataclasses.replace(self, arrays=T, _eval_scratch=None)

    def with_thread_groups(self, min_work: int, min_infosets: int | None = None) -> PublicTree:
        """This tree with its terminal sweeps threaded from ``min_work`` (public terminals times
        private states) on (:func:`rcfr.forms.public.terminals.terminal_groups`) and its plans
        and backward sweeps from levels of ``min_infosets`` information sets on
        (:func:`rcfr.forms.public.levels.build_levels`): tests thread small games this way."""
        groups = terminal_groups(self.arrays.term_seq_base, self.arrays.num_private, min_work)
        T = self.arrays._replace(term_order=groups[0], term_group=groups[1],
                                 term_groups=groups[2])
        tree = dataclasses.replace(self, arrays=T, _eval_scratch=None)
        if min_infosets is not None:
            tree.__dict__["_levels"] = build_levels(tree, min_infosets)
        return tree

    def expected_value(self, plan: np.ndarray) -> float:
        """Player 0's expected payoff under the padded realization plans."""
        acc = np.zeros(self.num_sequences + 2)
        self.terminal_values(0, plan, acc)
        s0 = self.num_sequences_per_player[0]
        S = self.num_sequences
        return float(np.sum(acc[:s0] * plan[:s0]) + acc[S] * plan[S])  # (no BLAS threads)


PUBLIC_NODE_BUDGET = 4_000_000  # public nodes; Bluff(2,1) has 524,287 (about 1 GB to solve)
# Sequences up to which the evaluation keeps its scratch vectors on the tree between calls
# (small games evaluated often); a larger tree allocates them per call (at 2-NL Hold'em(38),
# 2.5 GiB that a sweep's next run on the kept tree would otherwise hold beside its tables).
KEEP_SCRATCH = 1 << 23


def offers_public_form(game: Game) -> bool:
    return callable(getattr(game, "public_structure", None))


def compile_public(game: Game | str, max_memory: str | float | int | None = None,
                   dtype: str | None = None) -> PublicTree:
    """Walk ``game``'s public states breadth-first into a :class:`PublicTree` (cached on the
    game object).  A game whose public form has a closed-form size is refused above the memory
    budget (:func:`rcfr.core.budget.check_public`, which counts the sampled solvers' ``dtype``),
    any other above ``PUBLIC_NODE_BUDGET`` nodes."""
    if isinstance(game, PublicTree):
        return game
    game = load_game(game)
    cached = getattr(game, "_compiled_public", None)
    if cached is not None:
        return cached
    if not offers_public_form(game):
        raise RcfrError(f"{game} has no public form (its private information is not dealt by "
                        "chance alone, or it does not describe it); use the history form")
    sized = check_public(game, max_memory, dtype)
    estimate = getattr(game, "num_public_nodes", None)
    if not sized and callable(estimate) and estimate() > PUBLIC_NODE_BUDGET:
        raise RcfrError(f"{game} is too large for the public form: {estimate():,} public nodes "
                        f"(the budget is {PUBLIC_NODE_BUDGET:,})")
    tree = _compile(game, game.public_structure(), None if sized else PUBLIC_NODE_BUDGET)
    game._compiled_public = tree
    return tree


def compile_skeleton(game: Game | str) -> PublicTree:
    """``game``'s public tree without its per-information-set and per-sequence arrays (a few
    bytes a public node and terminal, where the whole tree takes about 21 a sequence: 2-NL
    Hold'em(36)'s 3.8 GiB), from which any part of them follows in closed form
    (:mod:`rcfr.forms.public.build`): the distributed solver's driver and actors build their
    own parts of the tree from it (:func:`rcfr.forms.public.split.split_skeleton`).  Not
    cached; no memory guard (each actor holds a part)."""
    game = load_game(game)
    if not offers_public_form(game):
        raise RcfrError(f"{game} has no public form (its private information is not dealt by "
                        "chance alone, or it does not describe it); use the history form")
    from ...core.budget import public_sequences
    budget = None if public_sequences(game) is not None else PUBLIC_NODE_BUDGET
    return _compile(game, game.public_structure(), budget, sequences=False)


def _contexts_root(spec: PublicStructure, n: tuple[int, int]):
    if spec.pairing not in PAIRINGS:
        raise RcfrError(f"unknown pairing {spec.pairing!r}")
    if spec.pairing == "dense":
        return None, np.asarray(spec.deal, dtype=np.float64)
    w0, w1 = (np.asarray(w, dtype=np.float64) for w in spec.weights)
    return (w0, w1), _joint(w0, w1, spec.pairing)


def _joint(w0: np.ndarray, w1: np.ndarray, pairing: str) -> np.ndarray | None:
    """The joint weights of factored ones (``None`` for hold'em combos: 14 MB a context,
    never formed; :func:`_card_contexts` gives what the compile needs of them)."""
    if pairing == "cards":
        return None
    W = np.outer(w0, w1)
    if pairing == "exclusive":
        np.fill_diagonal(W, 0.0)
    return W


class _Contexts:
    """The chance contexts met so far: each one's factored weights (``None``: a dense deal),
    joint weights, parent context and observations, and the showdown ranks and payoff matrices
    asked at its first terminal of those rules."""

    def __init__(self, game: Game, spec: PublicStructure, n: tuple[int, int]) -> None:
        self.game, self.spec, self.n = game, spec, n
        factors, W = _contexts_root(spec, n)
        self.factors, self.joint, self.parent = [factors], [W], [-1]
        self.obs = [_observations(spec.root, n)]
        self.ranks: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.matrix: dict[int, np.ndarray] = {}

    def add(self, c: int, f, obs: tuple) -> int:
        """A new context below context ``c``, reweighed by the chance factor ``f``."""
        if isinstance(f, tuple):
            if self.factors[c] is None:
                raise RcfrError("factored chance in a dense deal")
            w0, w1 = self.factors[c]
            nw = (w0 * np.asarray(f[0]), w1 * np.asarray(f[1]))
            self.factors.append(nw)
            self.joint.append(_joint(nw[0], nw[1], self.spec.pairing))
        else:
            if self.spec.pairing == "cards":
                raise RcfrError("a hold'em deal reweighs by factors, not a matrix")
            self.factors.append(None)
            self.joint.append(self.joint[c] * np.asarray(f, dtype=np.float64))
        self.parent.append(c)
        self.obs.append(obs)
        return len(self.joint) - 1

    def ask(self, c: int, rule: int, state: PublicState) -> None:
        """Ask terminal ``state`` of context ``c`` for what its ``rule`` needs, once a context."""
        if rule == SHOWDOWN_RULE and c not in self.ranks:
            self.ranks[c] = (np.asarray(state.ranks(0)), np.asarray(state.ranks(1)))
        if rule == MATRIX_RULE and c not in self.matrix:
            m = np.asarray(state.payoff_matrix(), dtype=np.float64)
            if m.shape != self.n:
                raise RcfrError(f"a payoff matrix of {self.game} has shape {m.shape}, not "
                                f"{self.n}")
            self.matrix[c] = m


def _walk(game: Game, spec: PublicStructure, n: tuple[int, int], node_budget: int | None):
    """Walk the public states breadth-first into the node table (:data:`PublicNodes`) and
    their chance contexts."""
    ctxs = _Contexts(game, spec, n)
    ctx_of: dict[tuple, int] = {}
    states = [spec.root]
    kind, parent, action_in, ctx = [], [-1], [-1], [0]
    child_start, nact = [], []
    rules: list[tuple[int, float, int, int]] = []
    i = 0
    while i < len(states):
        state = states[i]
        states[i] = None
        player = state.current_player()
        child_start.append(len(states))
        c = ctx[i]
        if node_budget is not None and len(states) > node_budget:
            raise RcfrError(f"{game} is too large for the public form: more than "
                            f"{node_budget:,} public nodes")
        if player == TERMINAL:
            kind.append(KIND_TERMINAL)
            nact.append(0)
            rule = state.terminal()
            rules.append(rule)
            ctxs.ask(c, rule[0], state)
        elif player == CHANCE:
            kind.append(KIND_CHANCE)
            nact.append(0)
            for o in state.legal_actions():
                f = state.chance_factor(o)
                child = state.child(o)
                obs = _observations(child, n)
                # the same outcome from one context, reweighing and observed alike (the same
                # board after any betting), leads to one shared context (whose showdown ranks
                # and payoff matrices are asked once)
                key = (c, o, _key(f), *(None if x is None else x.tobytes() for x in obs))
                cc = ctx_of.get(key)
                if cc is None:
                    cc = ctx_of[key] = ctxs.add(c, f, obs)
                states.append(child)
                parent.append(i)
                action_in.append(o)
                ctx.append(cc)
        else:
            kind.append(player)
            acts = state.legal_actions()
            k = len(acts)
            nact.append(k)
            states.extend([state.child(a) for a in acts])
            parent.extend([i] * k)
            action_in.extend(acts)
            ctx.extend([c] * k)
        i += 1
    child_start.append(len(states))
    del states
    rule_arr = np.asarray(rules, dtype=np.float64).reshape(-1, 4)
    nodes = PublicNodes(
        kind=np.asarray(kind, dtype=np.int8), parent=np.asarray(parent, dtype=np.int32),
        action=np.asarray(action_in, dtype=np.int32),
        child_start=np.asarray(child_start, dtype=np.int32),
        num_actions=np.asarray(nact, dtype=np.int32), ctx=np.asarray(ctx, dtype=np.int32),
        term_rule=rule_arr[:, 0].astype(np.int8), term_value=np.ascontiguousarray(rule_arr[:, 1]),
        term_q=rule_arr[:, 2].astype(np.int64), term_face=rule_arr[:, 3].astype(np.int64))
    return nodes, ctxs


def _state_at(spec: PublicStructure, nodes: PublicNodes, u: int) -> PublicState:
    """The public state of node ``u``, replayed from the root along its path."""
    path = []
    while u > 0:
        path.append(int(nodes.action[u]))
        u = int(nodes.parent[u])
    state = spec.root
    for a in reversed(path):
        state = state.child(a)
    return state


def _given_contexts(game: Game, spec: PublicStructure, n: tuple[int, int], nodes: PublicNodes,
                    terminal_nodes: np.ndarray) -> _Contexts:
    """The chance contexts of a node table the game gave (``spec.nodes``), asked of the public
    states at each context's first node (its chance edge) and at its first terminal of each
    rule, as the walk asks them."""
    ctxs = _Contexts(game, spec, n)
    C = int(nodes.ctx.max()) + 1 if nodes.ctx.size else 1
    first = first_of_each(nodes.ctx, C)
    for c in range(1, C):
        w = int(first[c])
        up = int(nodes.parent[w])
        o = int(nodes.action[w])
        state = _state_at(spec, nodes, up)
        cc = ctxs.add(int(nodes.ctx[up]), state.chance_factor(o),
                      _observations(state.child(o), n))
        if cc != c:  # pragma: no cover (a game's table numbers contexts as the walk does)
            raise RcfrError(f"{game}'s public nodes number their chance contexts out of order")
    term_ctx = nodes.ctx[terminal_nodes]
    for rule in (SHOWDOWN_RULE, MATRIX_RULE):
        where = np.flatnonzero(nodes.term_rule == rule)
        firsts = first_of_each(term_ctx[where], C)
        for c in range(C):
            if firsts[c] >= 0:
                u = int(terminal_nodes[where[firsts[c]]])
                ctxs.ask(c, rule, _state_at(spec, nodes, u))
    return ctxs


def _compile(game: Game, spec: PublicStructure, node_budget: int | None,
             sequences: bool = True) -> PublicTree:
    n = (len(spec.labels[0]), len(spec.labels[1]))
    if spec.pairing in ("exclusive", "cards") and n[0] != n[1]:
        raise RcfrError(f"an {spec.pairing} deal needs the same private states for both "
                        "players")
    if spec.nodes is not None:  # the game gives its public nodes in closed form
        nodes = spec.nodes()
        terminal_nodes = np.flatnonzero(nodes.kind == KIND_TERMINAL).astype(np.int32)
        ctxs = _given_contexts(game, spec, n, nodes, terminal_nodes)
    else:
        nodes, ctxs = _walk(game, spec, n, node_budget)
        terminal_nodes = np.flatnonzero(nodes.kind == KIND_TERMINAL).astype(np.int32)
    node_kind, node_ctx, node_nact = nodes.kind, nodes.ctx, nodes.num_actions
    C = len(ctxs.joint)
    nmax = max(n)
    cards = spec.pairing == "cards"
    if cards:
        valid, pairs, mass = _card_contexts(spec, ctxs, nmax)
        joint = np.zeros((1, 1, 1))
    else:
        joint = np.stack(ctxs.joint)  # [C, n0, n1]
        mass = joint[0].sum()
        valid = np.zeros((2, C, nmax))
        valid[0, :, : n[0]] = joint.sum(axis=2) > 0
        valid[1, :, : n[1]] = joint.sum(axis=1) > 0
    if (np.any(joint < 0) or any(np.any(f < 0) for fs in ctxs.factors if fs for f in fs)
            or abs(mass - 1.0) > 1e-9):
        raise RcfrError(f"the deal of {game} is not a probability distribution")

    # private states possible in each context, their rows, weights and ranks
    num_valid = valid.sum(axis=2).astype(np.int64)
    row_of, num_rows, rep_of = _rows(valid, ctxs.obs, ctxs.parent, n, game)
    full = np.zeros((2, C), dtype=np.bool_)
    for p in (0, 1):
        full[p] = np.all(row_of[p, :, : n[p]] == np.arange(n[p]), axis=1)
    weight = np.zeros((2, C, nmax))
    if spec.pairing != "dense":
        for c, (w0, w1) in enumerate(ctxs.factors):
            weight[0, c, : n[0]] = w0
            weight[1, c, : n[1]] = w1
    weight *= valid
    rank = np.zeros((2, C, nmax), dtype=np.int64)
    rank_order = np.zeros((2, C, nmax), dtype=np.int32)
    for c in range(C):
        for p in (0, 1):
            if c in ctxs.ranks:
                rank[p, c, : n[p]] = ctxs.ranks[c][p]
            # hold'em combos: both players' sweeps walk the states possible for either
            ok = np.flatnonzero(valid[:, c].any(axis=0) if cards else valid[p, c])
            rank_order[p, c, : ok.size] = ok[np.argsort(rank[p, c, ok], kind="stable")]
            if cards:
                num_valid[p, c] = ok.size
    rank_lt = np.zeros((2, 1, 1) if cards else (2, C, nmax), dtype=np.int64)
    rank_le = np.zeros_like(rank_lt)
    for c in () if cards else ctxs.ranks:
        for p in (0, 1):
            theirs = np.sort(rank[1 - p, c, np.flatnonzero(valid[1 - p, c])])
            rank_lt[p, c, : n[p]] = np.searchsorted(theirs, rank[p, c, : n[p]], side="left")
            rank_le[p, c, : n[p]] = np.searchsorted(theirs, rank[p, c, : n[p]], side="right")
    if cards:  # every pair of disjoint possible combos, each its own row
        per_deal = int(np.asarray(spec.deal_histories).ravel()[0])
        ctx_joint_states = pairs
        observed = [c for c, obs in enumerate(ctxs.obs) if any(x is not None for x in obs)]
        for c in observed:  # pairs of observed classes
            ctx_joint_states[c] = _class_pairs(spec.cards, valid[:, c], row_of[:, c],
                                               num_rows[:, c])
        ctx_histories = ctx_joint_states * per_deal
        unobserved = ()
    else:
        H = np.asarray(spec.deal_histories, dtype=np.int64) * (joint > 0)
        ctx_histories = H.reshape(C, -1).sum(axis=1)
        ctx_joint_states = (joint > 0).reshape(C, -1).sum(axis=1)
        unobserved = np.flatnonzero(~(full[0] & full[1]))
    for c in unobserved:  # pairs of observed classes
        r0, r1 = row_of[0, c, : n[0]], row_of[1, c, : n[1]]
        key = np.maximum(r0, 0)[:, None] * num_rows[1, c] + np.maximum(r1, 0)[None, :]
        most = np.zeros(num_rows[0, c] * num_rows[1, c], dtype=np.int64)
        np.maximum.at(most, key.ravel(), H[c].ravel())
        ctx_histories[c] = most.sum()
        ctx_joint_states[c] = np.count_nonzero(most)

    # information sets: (decision node, valid private state), player 0's first, written node
    # by node into arrays allocated once at their final sizes (rcfr.forms.public.build)
    last_node, last_k = last_decisions(node_kind, nodes.parent, nodes.child_start)
    node_info_base, node_seq_base, n_info, n_seq = node_bases(node_kind, node_ctx, node_nact,
                                                              num_rows)
    I, S = int(n_info.sum()), int(n_seq.sum())  # noqa: E741 (the papers' I)
    skeleton = None
    if not sequences:  # (compile_skeleton: the arrays below stay empty)
        skeleton = (np.stack(rep_of), num_rows, last_node, last_k)
        I = S = 0  # noqa: E741
    infoset_player = np.empty(I, dtype=np.int8)
    infoset_seq_start = np.empty(I, dtype=np.int32)
    infoset_num_actions = np.empty(I, dtype=np.int32)
    infoset_parent_seq = np.empty(I, dtype=np.int32)
    infoset_public_node = np.empty(I, dtype=np.int32)
    infoset_private = np.empty(I, dtype=np.int32)
    seq_infoset = np.empty(S, dtype=np.int32)
    seq_action = np.empty(S, dtype=np.int32)
    if sequences:
        fill_infosets(node_kind, node_ctx, node_nact, nodes.action, nodes.child_start,
                      node_info_base, node_seq_base, last_node, last_k, num_rows,
                      np.stack(rep_of), row_of, S, infoset_player, infoset_seq_start,
                      infoset_num_actions, infoset_parent_seq, infoset_public_node,
                      infoset_private, seq_infoset, seq_action)

    counts = np.zeros((2, 1, nmax), dtype=np.int64)
    max_count = np.zeros(2, dtype=np.int64)
    if spec.counts is not None:
        faces = spec.counts[0].shape[1]
        counts = np.zeros((2, faces, nmax), dtype=np.int64)
        for p in (0, 1):
            counts[p, :, : n[p]] = np.asarray(spec.counts[p]).T
            max_count[p] = int(spec.counts[p].max())
    matrix = np.zeros((1, 1, 1))
    pay = np.zeros((1, 1, 1))
    if ctxs.matrix:
        if cards:
            raise RcfrError("payoff-matrix terminals are not offered with hold'em combos")
        matrix = np.zeros((C, n[0], n[1]))
        for c, m in ctxs.matrix.items():
            matrix[c] = m
        pay = matrix * (joint if spec.pairing == "dense" else _joint(
            np.ones(n[0]), np.ones(n[1]), spec.pairing))
    tl = last_node[:, terminal_nodes]
    tk = last_k[:, terminal_nodes]
    del last_node, last_k
    tls = np.maximum(tl, 0)
    term_seq_base = np.where(tl < 0, -1, node_seq_base[tls] + tk)
    term_order, term_group, term_groups = terminal_groups(term_seq_base, n)
    arrays = PublicArrays(
        num_private=np.asarray(n, dtype=np.int64),
        exclusive=spec.pairing == "exclusive",
        dense_deal=spec.pairing == "dense",
        node_ctx=node_ctx,
        node_seq_base=node_seq_base,
        node_num_actions=node_nact,
        term_ctx=np.ascontiguousarray(node_ctx[terminal_nodes]),
        term_rule=nodes.term_rule,
        term_value=nodes.term_value,
        term_q=nodes.term_q,
        term_face=nodes.term_face,
        term_miss=-nodes.term_value,
        term_last=np.ascontiguousarray(tl),
        term_last_act=np.ascontiguousarray(tk),
        # (C order, as a subtree's and a split part's: fancy indexing on the second axis
        # gives Fortran order, a second compilation of every terminal kernel)
        term_seq_base=np.ascontiguousarray(term_seq_base),
        term_stride=np.ascontiguousarray(np.where(tl < 0, 0, node_nact[tls]), dtype=np.int64),
        term_row_ctx=np.ascontiguousarray(np.where(tl < 0, 0, node_ctx[tls]), dtype=np.int64),
        term_order=term_order,
        term_group=term_group,
        term_groups=term_groups,
        weight=weight,
        valid=valid,
        row_of=row_of,
        full=full,
        rank=rank,
        rank_order=rank_order,
        rank_lt=rank_lt,
        rank_le=rank_le,
        num_valid=num_valid,
        joint=joint,
        counts=counts,
        max_count=max_count,
        matrix=matrix,
        pay=pay,
        card_deal=cards,
        cards=(np.ascontiguousarray(spec.cards, dtype=np.int64) if cards
               else np.zeros((0, 2), dtype=np.int64)),
    )
    return PublicTree(
        game=game,
        structure=spec,
        node_kind=node_kind,
        node_parent=nodes.parent,
        node_child_start=nodes.child_start,
        node_action=nodes.action,
        node_ctx=node_ctx,
        node_num_actions=node_nact,
        node_seq_base=node_seq_base,
        node_info_base=node_info_base,
        terminal_nodes=terminal_nodes,
        ctx_histories=ctx_histories,
        ctx_joint_states=ctx_joint_states,
        infoset_player=infoset_player,
        infoset_seq_start=infoset_seq_start,
        infoset_num_actions=infoset_num_actions,
        infoset_parent_seq=infoset_parent_seq,
        infoset_public_node=infoset_public_node,
        infoset_private=infoset_private,
        seq_infoset=seq_infoset,
        seq_action=seq_action,
        num_infosets_per_player=(int(n_info[0]), int(n_info[1])),
        num_sequences_per_player=(int(n_seq[0]), int(n_seq[1])),
        arrays=arrays,
        pairing=spec.pairing,
        skeleton=skeleton,
    )


def _card_contexts(spec: PublicStructure, ctxs: _Contexts, nmax: int):
    """For hold'em combos (pairing ``"cards"``), what the compile needs of each context's
    joint weights without forming them: which combos are possible for each player (a weight
    and some opponent weight on combos disjoint from it), how many pairs of possible combos are
    disjoint, and the root deal's total (1 for a probability distribution).  Players may
    observe classes of their combos (a card abstraction): :func:`_class_pairs` counts the
    pairs of classes that meet."""
    if spec.cards is None or np.asarray(spec.cards).shape != (nmax, 2):
        raise RcfrError(f"a hold'em deal gives each of its {nmax} private states' two cards")
    cards = np.asarray(spec.cards, dtype=np.int64)
    C = len(ctxs.factors)
    valid = np.zeros((2, C, nmax))
    pairs = np.zeros(C, dtype=np.int64)
    mass = 0.0
    for c, (w0, w1) in enumerate(ctxs.factors):
        m0, m1 = disjoint_mass(w0, cards), disjoint_mass(w1, cards)  # the other's mass per combo
        valid[0, c] = (w0 > 0) & (m1 > 0)
        valid[1, c] = (w1 > 0) & (m0 > 0)
        pairs[c] = round(valid[0, c] @ disjoint_mass(valid[1, c], cards))
        if c == 0:
            mass = float(w0 @ m1)
    return valid, pairs, mass


def _class_pairs(cards, valid: np.ndarray, rows: np.ndarray, num_rows: np.ndarray) -> int:
    """The pairs of observed classes (rows) of one context that hold a pair of disjoint
    possible combos, without the n x n matrix: the disjoint pairs between class ``k0`` of
    player 0 and ``k1`` of player 1 are ``n0[k0] n1[k1]`` less those sharing a card, counted by
    card (``sum_c m0[k0, c] m1[k1, c]``), plus the combos in both classes (counted twice
    there: they share both cards)."""
    cards = np.asarray(cards, dtype=np.int64)
    n = cards.shape[0]
    ok = [np.flatnonzero(valid[p, :n]) for p in (0, 1)]
    size, per_card = [], []
    for p in (0, 1):
        r = rows[p, ok[p]].astype(np.int64)
        k = int(num_rows[p])
        size.append(np.bincount(r, minlength=k).astype(np.float64))
        m = np.zeros((k, int(cards.max()) + 1))
        np.add.at(m, (np.repeat(r, 2), cards[ok[p]].ravel()), 1.0)
        per_card.append(m)
    both = np.flatnonzero(valid[0, :n] * valid[1, :n])
    same = np.zeros((int(num_rows[0]), int(num_rows[1])))
    np.add.at(same, (rows[0, both], rows[1, both]), 1.0)
    meet = np.outer(size[0], size[1]) - per_card[0] @ per_card[1].T + same
    return int(np.count_nonzero(np.round(meet) > 0))


def _key(f) -> tuple:
    """A chance factor as a dictionary key."""
    if isinstance(f, tuple):
        return tuple(np.asarray(x, dtype=np.float64).tobytes() for x in f)
    return (np.asarray(f, dtype=np.float64).tobytes(),)


def _observations(state: PublicState, n: tuple[int, int]) -> tuple:
    out = []
    for p in (0, 1):
        obs = state.observation(p)
        if obs is not None:
            obs = np.asarray(obs)
            if obs.shape != (n[p],) or obs.dtype.kind not in "iu":
                raise RcfrError(f"an observation map gives an integer class for each of the "
                                f"{n[p]} private states of player {p}")
        out.append(obs)
    return tuple(out)


def _rows(valid: np.ndarray, ctx_obs: list, ctx_parent: list, n: tuple[int, int], game):
    """Rows of the private states per player and context: the observed classes of the
    possible states, numbered in order of their first state (``row_of``, -1 where impossible),
    how many (``num_rows``) and each row's first state (``rep_of[p][c, k]``)."""
    C, nmax = valid.shape[1], valid.shape[2]
    row_of = np.full((2, C, nmax), -1, dtype=np.int32)
    num_rows = np.zeros((2, C), dtype=np.int64)
    rep_of = [np.zeros((C, nmax), dtype=np.int64) for _ in (0, 1)]
    for p in (0, 1):
        for c in range(C):
            ok = np.flatnonzero(valid[p, c])
            obs = ctx_obs[c][p]
            if obs is None:
                rows = np.arange(ok.size)
                first = ok
            else:
                _, first_pos, rows = np.unique(obs[ok], return_index=True, return_inverse=True)
                order = np.argsort(first_pos, kind="stable")  # number by first state
                renum = np.empty_like(order)
                renum[order] = np.arange(order.size)
                rows = renum[rows]
                first = ok[np.sort(first_pos)]
            row_of[p, c, ok] = rows
            num_rows[p, c] = first.size
            rep_of[p][c, : first.size] = first
            up = ctx_parent[c]
            if up >= 0:  # perfect recall: each class lies within one class of the parent
                above = np.full(first.size, -1, dtype=np.int64)
                above[rows] = row_of[p, up, ok]
                if np.any(above[rows] != row_of[p, up, ok]):
                    raise RcfrError(f"the observations of {game} forget what player {p} "
                                    "observed before a chance event (no perfect recall)")
    return row_of, num_rows, rep_of



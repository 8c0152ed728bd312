"""What both compiled forms share (ARCHITECTURE.md, "The universal index: sequences"): node
kinds, the string table, the sequence index and its fingerprint, and the :class:`Form` contract
that a compiled tree offers the solvers, evaluation and policy I/O.

A sequence is an (information set, action) pair; the actions of information set ``I`` are the
sequences ``[infoset_seq_start[I], infoset_seq_start[I] + infoset_num_actions[I])``.  The empty
sequence of player ``p`` has index ``num_sequences + p``, so arrays over sequences that kernels
use carry two extra slots and need no branch for it.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from typing import Any, Protocol

import numpy as np

from ..core.errors import RcfrError
from ..games.public import KIND_CHANCE as KIND_CHANCE  # the node kinds (declared once)
from ..games.public import KIND_TERMINAL as KIND_TERMINAL
from .loop_state import Counters, LoopState


class StringTable(Sequence):
    """Strings stored as one UTF-8 byte array (compact for large games), with a sorted index
    for lookups within a range of positions."""

    def __init__(self, strings: list[str], ranges: Sequence[tuple[int, int]] = ()) -> None:
        self._data = np.array([x.encode() for x in strings], dtype=bytes)
        if self._data.dtype.itemsize == 0:  # numpy needs a width of at least 1
            self._data = self._data.astype("S1")
        self._ranges = list(ranges)
        self._order = np.concatenate(
            [lo + np.argsort(self._data[lo:hi], kind="stable") for lo, hi in self._ranges]
            or [np.zeros(0, dtype=np.int64)]
        ).astype(np.int32)

    def __len__(self) -> int:
        return int(self._data.shape[0])

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self._data[i].decode()

    def __iter__(self) -> Iterator[str]:
        return (x.decode() for x in self._data)

    def find(self, text: str, which: int) -> int:
        """Position of ``text`` within the ``which``-th range, or -1."""
        lo, hi = self._ranges[which]
        key = np.array(text.encode(), dtype=self._data.dtype)
        if len(text.encode()) > self._data.dtype.itemsize:
            return -1
        order, data = self._order[lo:hi], self._data
        # (a binary search through the order: O(log n), where sorting a copy was O(n) a call)
        k = bisect.bisect_left(range(hi - lo), key, key=lambda j: data[order[j]])
        return int(order[k]) if k < hi - lo and data[order[k]] == key else -1

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes + self._order.nbytes)


class Capability(StrEnum):
    """What a compiled form may offer beyond the :class:`Form` contract, asked of it through
    :meth:`Form.supports` (never by probing its attributes or its class)."""

    HISTORY_NODES = "history nodes"
    """One node per history (``node_kind``, ``node_child_start``, ``node_infoset``,
    ``node_chance_prob``, ``terminal_nodes``, ``terminal_utility``): what walks of histories
    read (history features, DREAM's baselines, batched play, OpenSpiel's best-response order)."""
    SAMPLED_PASSES = "sampled passes"
    """:meth:`Form.sampled_pass`: Monte Carlo CFR (Lanctot et al. 2009; Gibson et al. 2012)."""
    THREADED_SAMPLING = "threaded sampling"
    """Sampled passes that run a batch of passes on several threads (``set_threads``)."""
    REGRET_PRUNING = "regret pruning"
    """Regret-based pruning in the full-width pass (``prune="regret"``; Brown & Sandholm
    2015)."""
    RESOLVING = "re-solving"
    """Re-solving every subgame at a cut (a re-solver registered for the form,
    :func:`register_resolver`)."""
    DEAL_VALUES = "deal values"
    """``sample_deals(n, rng)`` and ``deal_values(plan0, plan1, deals)``: pairs of hands drawn
    from the deal and each one's exact expected payoff under a profile (a hold'em spot's
    public form; :mod:`rcfr.forms.public.deal_values`)."""


class SequenceIndex:
    """What both compiled forms share (the history form here, the public form in
    :mod:`rcfr.forms.public.tree`): information sets and sequences by player, lookups by
    information-state string, and the fingerprint that files are checked against."""

    _fingerprint_tag = ""  # tells the forms' fingerprints apart (their orders differ)
    capabilities: frozenset[Capability] = frozenset()  # what the form offers (each form's own)

    def supports(self, capability: Capability | str) -> bool:
        """Whether this form offers ``capability`` (a :class:`Capability` or its value)."""
        try:
            capability = Capability(capability)
        except ValueError:
            raise RcfrError(f"unknown capability {capability!r}; use one of "
                            f"{', '.join(c.value for c in Capability)}") from None
        if capability is Capability.RESOLVING:
            return self.form in _RESOLVERS
        return capability in self.capabilities

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def num_sequences(self) -> int:
        return int(self.seq_infoset.shape[0])

    def empty_seq(self, player: int) -> int:
        """Index of ``player``'s empty sequence in padded sequence arrays."""
        return self.num_sequences + player

    def player_infosets(self, player: int) -> range:
        n0 = self.num_infosets_per_player[0]
        return range(0, n0) if player == 0 else range(n0, self.num_infosets)

    def player_sequences(self, player: int) -> range:
        s0 = self.num_sequences_per_player[0]
        return range(0, s0) if player == 0 else range(s0, self.num_sequences)

    def realization_plans(self, probs: np.ndarray) -> np.ndarray:
        """Both players' padded realization plans under the behavioural ``probs`` (Koller et
        al. 1994)."""
        from ..core import kernels as K  # (numba: loaded when a plan is first needed)

        plan = K.padded(self.num_sequences)
        K.realization_plan(np.asarray(probs, dtype=np.float64), 0, self.num_infosets,
                           self.infoset_seq_start, self.infoset_num_actions,
                           self.infoset_parent_seq, plan)
        return plan

    # -- lookup --------------------------------------------------------------------------
    def infoset_index(self, key: str, player: int | None = None) -> int:
        """The information set with this information-state string (searching both players
        unless ``player`` is given)."""
        players = (0, 1) if player is None else (player,)
        for p in players:
            idx = self.infoset_keys.find(key, p)
            if idx >= 0:
                return idx
        raise RcfrError(f"no information state {key!r} in {self.game}")

    def infoset_actions(self, infoset: int) -> np.ndarray:
        start = self.infoset_seq_start[infoset]
        return self.seq_action[start : start + self.infoset_num_actions[infoset]]

    def fingerprint(self) -> str:
        """A hash of the information sets and their actions, to check files against a game."""
        h = hashlib.sha256(f"{self.game}{self._fingerprint_tag}".encode())
        for i, key in enumerate(self.infoset_keys):
            h.update(f"{self.infoset_player[i]}|{key}|".encode())
            h.update(self.infoset_actions(i).tobytes())
        return h.hexdigest()[:32]


class TreePass(Protocol):
    """A tree pass of the loop (ARCHITECTURE.md): full width or sampled."""

    def run(self, players: tuple[int, ...], strategy: np.ndarray, weight: float,
            avg: np.ndarray, inst: np.ndarray) -> int:
        """Write the instantaneous regrets of ``players`` (updated at the same ``strategy``)
        into ``inst``, add ``weight`` times their average-strategy increments to ``avg`` and
        return the number of histories visited."""

    def fuses(self, rule: Any) -> bool:
        """Whether :meth:`run_fused` runs this rule with the tabular estimator."""

    def run_fused(self, state: LoopState, max_iters: int, node_budget: int) -> Counters:
        """Iterations of the loop with the tabular estimator in one numba kernel, on the
        tables of ``state`` (:class:`~rcfr.forms.loop_state.LoopState`, changed in place),
        until ``max_iters`` iterations or ``node_budget`` histories (whole iterations); returns
        the state's new counters."""


class Form(Protocol):
    """What a compiled tree offers (ARCHITECTURE.md, "Two compiled forms"): the contract that
    :class:`~rcfr.forms.history.tree.GameTree` and :class:`~rcfr.forms.public.tree.PublicTree`
    both keep, so that solvers, evaluation, policy I/O, features and the command line call the
    tree and never ask which form it is.

    * the sequence index (:class:`SequenceIndex`): information sets and sequences by player,
      ``infoset_seq_start``, ``infoset_num_actions``, ``infoset_parent_seq``, lookups by
      information-state string, :meth:`fingerprint`;
    * sizes: :meth:`sizes` (histories as the history form counts them, so curves compare),
      ``num_nodes`` (histories a full-width pass visits per player) and ``nbytes``;
    * passes: :meth:`full_width_pass` and :meth:`sampled_pass`, each a :class:`TreePass`;
    * evaluation: :meth:`terminal_values`, :meth:`expected_value` and :meth:`evaluate` (value
      and both best-response values in one call);
    * files: ``form`` (the name files record) and :meth:`file_meta`;
    * nodes (the history and public forms; a re-solving gadget has none): ``node_kind`` and
      ``node_parent`` over the form's own nodes (histories or public nodes) and
      ``infoset_node``, a node of each information set (what walks from an information set up
      to the root read, e.g. the chance events before it);
    * what it offers beyond the contract: :meth:`supports` (a :class:`Capability`).
    """

    game: Any
    form: str
    num_infosets_per_player: tuple[int, int]
    num_sequences_per_player: tuple[int, int]
    infoset_seq_start: np.ndarray
    infoset_num_actions: np.ndarray
    infoset_parent_seq: np.ndarray
    infoset_player: np.ndarray
    seq_infoset: np.ndarray
    seq_action: np.ndarray
    node_kind: np.ndarray
    node_parent: np.ndarray
    infoset_node: np.ndarray

    @property
    def num_infosets(self) -> int: ...

    @property
    def num_sequences(self) -> int: ...

    @property
    def num_nodes(self) -> int: ...

    @property
    def nbytes(self) -> int: ...

    def player_infosets(self, player: int) -> range: ...

    def player_sequences(self, player: int) -> range: ...

    def fingerprint(self) -> str: ...

    def sizes(self) -> dict: ...

    def supports(self, capability: Capability | str) -> bool:
        """Whether this form offers ``capability`` (one node per history, sampled passes,
        threaded sampling, re-solving)."""

    def file_meta(self) -> dict:
        """Header entries that files written on this form add (the form's name where it is
        not the default)."""

    def full_width_pass(self) -> TreePass:
        """The exact pass (Zinkevich et al. 2007, eq. 7) over this form."""

    def sampled_pass(self, scheme: int, epsilon: float, beta: float, tau: float,
                     seed: int | None) -> TreePass:
        """A Monte Carlo pass (scheme code from :data:`rcfr.forms.sampling.SCHEMES`) with its
        own generator ``rng`` (one SplitMix64 word) seeded by ``seed``, which its Python step
        draws from and which a solver hands its fused runs in the loop state (and checkpoints);
        it also offers ``sample_regrets`` and, where the form keeps histories,
        ``visit_counts``."""

    def terminal_values(self, player: int, plan: np.ndarray, acc: np.ndarray) -> None:
        """``acc[s]``: the counterfactual value to ``player`` of the terminals whose last
        ``player`` sequence is ``s`` (``plan``: padded realization plans)."""

    def expected_value(self, plan: np.ndarray) -> float:
        """Player 0's expected payoff under the padded realization plans."""

    def evaluate(self, probs: np.ndarray) -> tuple[float, float, float]:
        """Player 0's value and both best-response values of the behavioural profile."""


# The subgame layer's "re-solve every subgame at a cut" per compiled form (rcfr.subgame registers
# one for each form: the forms sit below it and never import it), so that callers hand a
# policy to :func:`resolver_for` and never ask which form its tree has.
_RESOLVERS: dict[str, Callable[..., Any]] = {}


def register_resolver(form: str, resolver: Callable[..., Any]) -> None:
    """Register ``resolver(policy, cut, method, **options)`` for trees of ``form``."""
    _RESOLVERS[form] = resolver


def resolver_for(tree: Form) -> Callable[..., Any]:
    """The registered re-solver for ``tree``'s form (:func:`register_resolver`)."""
    if not tree.supports(Capability.RESOLVING):
        raise RcfrError(f"no subgame re-solving on the {tree.form} form of {tree.game}")
    return _RESOLVERS[tree.form]

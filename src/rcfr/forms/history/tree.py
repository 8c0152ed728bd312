"""Compile a game once into flat numpy arrays (ARCHITECTURE.md: sequences as the universal index).

Nodes are numbered breadth-first, so a node's children are contiguous and come after it.
Information sets are numbered player 0 first, then player 1, each player's in the order they are
first reached, so an information set always comes after the one holding its parent sequence.
A sequence is an (information set, action) pair; the actions of information set ``I`` are the
sequences ``[infoset_seq_start[I], infoset_seq_start[I] + infoset_num_actions[I])``.

The empty sequence of player ``p`` has index ``num_sequences + p``, so arrays over sequences that
kernels use carry two extra slots and need no branch for it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from ...core.budget import (
    check_game,
    parse_memory,
    resident_bytes,
    time_limit,
    walk_exceeded,
    walk_out_of_memory,
    walk_out_of_time,
)
from ...core.errors import RcfrError
from ...games.protocol import CHANCE, TERMINAL, Game
from ..base import KIND_CHANCE, KIND_TERMINAL, Capability, SequenceIndex, StringTable
from . import evaluate as _evaluate
from .full_width import FullWidthPass
from .sampled import SampledPass


@dataclass(eq=False)
class GameTree(SequenceIndex):
    """A game compiled to arrays.  Build it with :func:`compile_game`."""

    game: Game
    # nodes (breadth-first)
    node_kind: np.ndarray  # int8: 0 or 1 = player to act, 2 = chance, 3 = terminal
    node_parent: np.ndarray  # int32, -1 at the root
    node_child_start: np.ndarray  # int32 [n + 1]: children of n are child_start[n:n+2] (CSR)
    node_action: np.ndarray  # int32, game action on the edge into the node (-1 at the root)
    node_infoset: np.ndarray  # int32, information set of a decision node, else -1
    node_seq: np.ndarray  # int32 [2, n]: each player's last sequence above the node
    node_chance_prob: np.ndarray  # float64, chance probability of the edge into the node
    # terminals
    terminal_nodes: np.ndarray  # int32
    terminal_seq: np.ndarray  # int32 [2, Z]: each player's last sequence before the terminal
    terminal_utility: np.ndarray  # float64: payoff to player 0
    terminal_coef: np.ndarray  # float64: chance reach * payoff to player 0
    # information sets
    infoset_player: np.ndarray  # int8
    infoset_seq_start: np.ndarray  # int32
    infoset_num_actions: np.ndarray  # int32
    infoset_parent_seq: np.ndarray  # int32: own sequence leading here (num_sequences + p if empty)
    infoset_node: np.ndarray  # int32: the first node reached in the information set
    infoset_keys: StringTable  # information-state strings, player 0's then player 1's
    # sequences
    seq_infoset: np.ndarray  # int32
    seq_action: np.ndarray  # int32, the game's action id
    seq_action_names: StringTable  # the action's name at its information set
    num_infosets_per_player: tuple[int, int]
    num_sequences_per_player: tuple[int, int]

    # -- sizes ---------------------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        return int(self.node_kind.shape[0])

    @property
    def num_terminals(self) -> int:
        return int(self.terminal_nodes.shape[0])

    @property
    def node_num_children(self) -> np.ndarray:
        """Number of children of each node (computed from ``node_child_start``)."""
        return np.diff(self.node_child_start)

    @property
    def nbytes(self) -> int:
        """Memory held by the compiled arrays and string tables, in bytes."""
        return sum(getattr(v, "nbytes", 0) for v in vars(self).values()
                   if isinstance(v, (np.ndarray, StringTable)))

    def sizes(self) -> dict:
        """Histories, terminals, information sets and sequences (in all and per player)."""
        kinds = np.bincount(self.node_kind, minlength=4)
        return {
            "histories": self.num_nodes,
            "terminals": self.num_terminals,
            "chance_nodes": int(kinds[KIND_CHANCE]),
            "decision_nodes": int(kinds[0] + kinds[1]),
            "infosets": self.num_infosets,
            "sequences": self.num_sequences,
            "infosets_per_player": list(self.num_infosets_per_player),
            "sequences_per_player": list(self.num_sequences_per_player),
        }

    # -- the Form contract (rcfr.forms.base.Form) -----------------------------------------
    form = "history"
    capabilities = frozenset({Capability.HISTORY_NODES, Capability.SAMPLED_PASSES,
                              Capability.REGRET_PRUNING})

    def file_meta(self) -> dict:
        """What files written on this form record about it (nothing: the default form)."""
        return {}

    def full_width_pass(self) -> FullWidthPass:
        """The exact pass over every history (:mod:`rcfr.forms.history.full_width`)."""
        return FullWidthPass(self)

    def sampled_pass(self, scheme: int, epsilon: float, beta: float, tau: float,
                     seed: int | None) -> SampledPass:
        """A Monte Carlo pass of ``scheme`` (:mod:`rcfr.forms.history.sampled`)."""
        return SampledPass(self, scheme, epsilon, beta, tau, seed)

    def terminal_values(self, player: int, plan: np.ndarray, acc: np.ndarray) -> None:
        """``acc[s]``: the counterfactual value to ``player`` of the terminals whose last
        ``player`` sequence is ``s`` (``plan``: padded realization plans)."""
        _evaluate.terminal_values(self, player, plan, acc)

    def expected_value(self, plan: np.ndarray) -> float:
        """Player 0's expected payoff under the padded realization plans."""
        return _evaluate.expected_value(self, plan)

    def evaluate(self, probs: np.ndarray) -> tuple[float, float, float]:
        """Player 0's value and both best-response values of the behavioural profile
        ``probs``."""
        return _evaluate.evaluate(self, np.ascontiguousarray(probs, dtype=np.float64))


def compile_history(game: Game, max_memory: str | float | int | None = None) -> GameTree:
    """The history form of ``game`` (cached on the game object), refused before it is built
    when its closed-form size exceeds the memory budget, or as soon as the walk passes it."""
    cached = getattr(game, "_compiled_tree", None)
    if cached is not None:
        return cached
    limit = check_game(game, max_memory)
    seconds = time_limit()
    try:
        tree = _compile(game, limit, parse_memory(max_memory), seconds)
    except _OutOfMemory as exc:
        raise walk_out_of_memory(game, exc.args[0], max_memory) from None
    except _OutOfTime as exc:
        raise walk_out_of_time(game, exc.args[0], seconds) from None
    except (_WalkLimit, MemoryError):
        raise walk_exceeded(game, limit, max_memory) from None
    game._compiled_tree = tree
    return tree


class _WalkLimit(Exception):
    """The walk reached more histories than the memory budget allows."""


class _OutOfMemory(Exception):
    """The process passed the memory budget during the walk (its argument: the histories
    reached)."""


class _OutOfTime(Exception):
    """The walk ran past its time bound (its argument: the histories reached)."""


WALK_CHECK = 4096  # histories between two looks at the process's memory and the clock


def _compile(game: Game, max_histories: int = sys.maxsize, max_bytes: int | None = None,
             max_seconds: float | None = None) -> GameTree:
    """The walk (breadth first); it stops once it passes ``max_histories`` or, looking every
    :data:`WALK_CHECK` histories, once the process has grown by more than ``max_bytes`` since
    the walk began (the states in the frontier cost far more than the arrays: a deep game's
    walk passed 4 GB before the history count did) or ``max_seconds`` have passed."""
    base = resident_bytes() if max_bytes is not None else 0
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    look = WALK_CHECK
    states = [game.new_initial_state()]
    kind, parent, child_start, action_in = [], [-1], [], [-1]
    infoset_of, chance_prob, chance_reach, utility = [], [1.0], [1.0], []
    seqs = ([-1], [-1])  # per player, local sequence ids
    info_index: list[dict[str, int]] = [{}, {}]
    info_actions: list[list[tuple[int, ...]]] = [[], []]
    info_parent: list[list[int]] = [[], []]
    info_node: list[list[int]] = [[], []]
    info_seq_start: list[list[int]] = [[], []]
    action_names: list[list[int]] = [[], []]  # per sequence, an index into name_index
    name_index: dict[str, int] = {}
    n_seq = [0, 0]

    i = 0
    while i < len(states):
        state = states[i]
        states[i] = None  # free memory as we go
        player = state.current_player()
        child_start.append(len(states))
        if len(states) > max_histories:
            raise _WalkLimit
        if len(states) + i >= look:  # every WALK_CHECK histories expanded or reached
            look = len(states) + i + WALK_CHECK
            if max_bytes is not None and resident_bytes() - base > max_bytes:
                raise _OutOfMemory(len(states))
            if deadline is not None and time.monotonic() > deadline:
                raise _OutOfTime(len(states))
        if player == TERMINAL:
            kind.append(KIND_TERMINAL)
            ret = state.returns()
            if abs(ret[0] + ret[1]) > 1e-9:
                raise RcfrError(f"{game} is not zero-sum: returns {ret}")
            utility.append(float(ret[0]))
            infoset_of.append(-1)
        elif player == CHANCE:
            kind.append(KIND_CHANCE)
            infoset_of.append(-1)
            outcomes = state.chance_outcomes()
            total = sum(p for _, p in outcomes)
            if abs(total - 1.0) > 1e-9:
                raise RcfrError(f"chance probabilities in {game} sum to {total}, not 1")
            for a, p in outcomes:
                states.append(state.child(a))
                parent.append(i)
                action_in.append(a)
                chance_prob.append(p)
                chance_reach.append(chance_reach[i] * p)
                seqs[0].append(seqs[0][i])
                seqs[1].append(seqs[1][i])
        else:
            if player not in (0, 1):
                raise RcfrError(f"{game} has a player {player}; only two players are supported")
            kind.append(player)
            key = state.information_state_string(player)
            actions = tuple(state.legal_actions())
            own_parent = seqs[player][i]
            idx = info_index[player].get(key)
            if idx is None:
                idx = len(info_actions[player])
                info_index[player][key] = idx
                info_actions[player].append(actions)
                info_parent[player].append(own_parent)
                info_node[player].append(i)
                info_seq_start[player].append(n_seq[player])
                n_seq[player] += len(actions)
                for a in actions:
                    name = state.action_to_string(player, a)
                    action_names[player].append(name_index.setdefault(name, len(name_index)))
            else:
                if info_actions[player][idx] != actions:
                    raise RcfrError(f"information set {key!r} has different legal actions")
                if info_parent[player][idx] != own_parent:
                    raise RcfrError(f"{game} lacks perfect recall at information set {key!r}")
            infoset_of.append(idx)
            start = info_seq_start[player][idx]
            for k, a in enumerate(actions):
                states.append(state.child(a))
                parent.append(i)
                action_in.append(a)
                chance_prob.append(1.0)
                chance_reach.append(chance_reach[i])
                seqs[player].append(start + k)
                seqs[1 - player].append(seqs[1 - player][i])
        i += 1
    child_start.append(len(states))

    n_info = (len(info_actions[0]), len(info_actions[1]))
    S0, S1 = n_seq
    S = S0 + S1
    node_kind = np.asarray(kind, dtype=np.int8)
    # globalize: player 1's information sets and sequences follow player 0's
    node_infoset = np.asarray(infoset_of, dtype=np.int32)
    node_infoset[node_kind == 1] += n_info[0]
    node_seq = np.empty((2, len(kind)), dtype=np.int32)
    for p, offset in ((0, 0), (1, S0)):
        local = np.asarray(seqs[p], dtype=np.int32)
        node_seq[p] = np.where(local < 0, S + p, local + offset)

    infoset_player = np.repeat(np.array([0, 1], dtype=np.int8), n_info)
    infoset_num_actions = np.array(
        [len(a) for p in (0, 1) for a in info_actions[p]], dtype=np.int32
    )
    infoset_seq_start = np.array(
        [s + (S0 if p else 0) for p in (0, 1) for s in info_seq_start[p]], dtype=np.int32
    )
    infoset_parent_seq = np.array(
        [S + p if s < 0 else s + (S0 if p else 0) for p in (0, 1) for s in info_parent[p]],
        dtype=np.int32,
    )
    infoset_keys = StringTable([k for p in (0, 1) for k in info_index[p]],  # insertion order
                               [(0, n_info[0]), (n_info[0], sum(n_info))])
    del info_index
    names = list(name_index)
    seq_action_names = StringTable([names[j] for p in (0, 1) for j in action_names[p]])
    seq_infoset = np.repeat(np.arange(sum(n_info), dtype=np.int32), infoset_num_actions)
    seq_action = np.array(
        [a for p in (0, 1) for acts in info_actions[p] for a in acts], dtype=np.int32
    )
    terminal_nodes = np.flatnonzero(node_kind == KIND_TERMINAL).astype(np.int32)
    terminal_utility = np.asarray(utility, dtype=np.float64)
    terminal_reach = np.asarray(chance_reach, dtype=np.float64)[terminal_nodes]
    return GameTree(
        game=game,
        node_kind=node_kind,
        node_parent=np.asarray(parent, dtype=np.int32),
        node_child_start=np.asarray(child_start, dtype=np.int32),
        node_action=np.asarray(action_in, dtype=np.int32),
        node_infoset=node_infoset,
        node_seq=node_seq,
        node_chance_prob=np.asarray(chance_prob, dtype=np.float64),
        terminal_nodes=terminal_nodes,
        terminal_seq=np.ascontiguousarray(node_seq[:, terminal_nodes]),
        terminal_utility=terminal_utility,
        terminal_coef=terminal_reach * terminal_utility,
        infoset_player=infoset_player,
        infoset_seq_start=infoset_seq_start,
        infoset_num_actions=infoset_num_actions,
        infoset_parent_seq=infoset_parent_seq,
        infoset_node=np.array(info_node[0] + info_node[1], dtype=np.int32),
        infoset_keys=infoset_keys,
        seq_infoset=seq_infoset,
        seq_action=seq_action,
        seq_action_names=seq_action_names,
        num_infosets_per_player=n_info,
        num_sequences_per_player=(S0, S1),
    )

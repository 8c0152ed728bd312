"""Expected values, exact best responses, NashConv and exploitability.

Everything is computed in sequence form in O(terminals + sequences): one realization plan per
player, one pass over the terminals and one backward pass over the best responder's information
sets.  Exploitability is the mean of the two best-response values and NashConv their sum
(OpenSpiel's convention; Ceraolo 2021, sec. 2.4).

In a node-locked game (:mod:`rcfr.forms.lock`) a player may deviate only at its free
information sets: its best response keeps the lock where it is locked, and the exploitability
is the sum of what the players can still gain by deviating (with one player locked throughout,
the other's gain alone).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import kernels as K
from .core.errors import RcfrError
from .forms.base import Form
from .forms.compile import compile_game
from .forms.lock import NodeLock, locked_best_value
from .policy import TabularPolicy


@dataclass(frozen=True)
class Evaluation:
    """Value of a profile to player 0, each player's best-response value, NashConv and
    exploitability, in game units (``big_blind`` converts to mbb/g for poker games, ``pot``
    to a share of a hold'em spot's starting pot).  ``locked``: measured in a node-locked game
    (module docstring: the best responses deviate only at free information sets, and the
    exploitability is the players' gains summed)."""

    value: float
    best_response_values: tuple[float, float]
    nash_conv: float
    exploitability: float
    big_blind: float | None = None
    pot: float | None = None
    locked: bool = False

    @property
    def gains(self) -> tuple[float, float]:
        """What each player gains by its best response over the profile's value."""
        br0, br1 = self.best_response_values
        return br0 - self.value, br1 + self.value

    @property
    def exploitability_pot(self) -> float | None:
        """Exploitability as a percentage of the starting pot (hold'em spots only), as
        postflop solvers quote it."""
        return None if not self.pot else 100.0 * self.exploitability / self.pot

    @property
    def exploitability_mbb(self) -> float | None:
        """Exploitability in milli-big-blinds per game (poker games only)."""
        return None if self.big_blind is None else 1000.0 * self.exploitability / self.big_blind

    def to_dict(self) -> dict:
        out = {
            "value": self.value,
            "best_response_values": list(self.best_response_values),
            "exploitability": self.exploitability,
            "nash_conv": self.nash_conv,
        }
        if self.big_blind is not None:
            out["exploitability_mbb"] = self.exploitability_mbb
        if self.pot:
            out["exploitability_pot_pct"] = self.exploitability_pot
        if self.locked:
            out["locked"] = True
            out["gains"] = list(self.gains)
        return out


def _probs(tree: Form, policy) -> np.ndarray:
    if isinstance(policy, TabularPolicy):
        if policy.tree is not tree and policy.tree.fingerprint() != tree.fingerprint():
            raise RcfrError(f"the policy is for {policy.game}, not for {tree.game}")
        return policy.probs
    dtype = np.float32 if getattr(policy, "dtype", None) == np.float32 else np.float64
    try:  # (a float32 profile is read as it is)
        probs = np.ascontiguousarray(policy, dtype=dtype)
    except (TypeError, ValueError):
        probs = None
    if probs is None or probs.shape != (tree.num_sequences,):
        got = f"shape {probs.shape}" if probs is not None else type(policy).__name__
        raise RcfrError(f"a strategy of {tree.game} is a TabularPolicy or {tree.num_sequences} "
                        f"probabilities (one a sequence), got {got}")
    return probs


def _tree_of(game, policy) -> Form:
    if game is None:
        tree = getattr(policy, "tree", None)
        if tree is None:
            raise RcfrError(f"evaluate(policy) needs a TabularPolicy (or evaluate(game, "
                            f"strategy)), got {type(policy).__name__}")
        return tree
    return compile_game(game)


def realization_plans(tree: Form, probs: np.ndarray) -> np.ndarray:
    """Padded realization plans of both players (Koller et al. 1994)."""
    return tree.realization_plans(probs)


def _best_response(tree: Form, plan: np.ndarray, player: int) -> tuple[float, np.ndarray]:
    acc = np.empty(tree.num_sequences + 2)
    infos = tree.player_infosets(player)
    tree.terminal_values(player, plan, acc)
    br = np.zeros(tree.num_sequences)
    value = K.best_response(player, infos.start, infos.stop, tree.infoset_seq_start,
                            tree.infoset_num_actions, tree.infoset_parent_seq, acc, br)
    return float(value), br


def best_response(game, policy, player: int = 0) -> tuple[float, TabularPolicy]:
    """``player``'s best-response value against ``policy`` and a pure best response (the
    returned profile keeps the opponent's part of ``policy``)."""
    tree = _tree_of(game, policy)
    probs = _probs(tree, policy)
    value, br = _best_response(tree, realization_plans(tree, probs), player)
    mixed = probs.copy()
    seqs = tree.player_sequences(player)
    mixed[seqs.start : seqs.stop] = br[seqs.start : seqs.stop]
    return value, TabularPolicy(tree, mixed)


def expected_value(game, policy=None) -> float:
    """Player 0's expected payoff under ``policy``."""
    if policy is None:
        game, policy = None, game
    tree = _tree_of(game, policy)
    return _expected_value(tree, realization_plans(tree, _probs(tree, policy)))


def _expected_value(tree, plan: np.ndarray) -> float:
    return tree.expected_value(plan)


def evaluate(game, policy=None, *, lock: NodeLock | None = None) -> Evaluation:
    """Value, best-response values, NashConv and exploitability of ``policy`` in ``game``;
    with a ``lock`` (:class:`~rcfr.forms.lock.NodeLock`) in the locked game (module
    docstring; the profile held to the lock first).

    Call as ``evaluate(tree, policy)`` or ``evaluate(policy)``."""
    if policy is None:
        game, policy = None, game
    tree = _tree_of(game, policy)
    if lock is not None and lock.size:
        probs = lock.force(np.array(_probs(tree, policy), dtype=np.float64))
        return _evaluate_locked(tree, probs, lock)
    value, br0, br1 = tree.evaluate(_probs(tree, policy))  # the form's evaluator
    nash_conv = br0 + br1
    return Evaluation(value, (br0, br1), nash_conv, nash_conv / 2.0, tree.game.big_blind,
                      tree.game.starting_pot)


def _evaluate_locked(tree: Form, probs: np.ndarray, lock: NodeLock) -> Evaluation:
    """:func:`evaluate` in the game ``lock`` restricts: each player's best response keeps the
    lock at its locked information sets (:func:`rcfr.forms.lock.locked_best_value`)."""
    if lock.infoset_mask.shape != (tree.num_infosets,):
        raise RcfrError("the lock was made for another game")
    plan = realization_plans(tree, probs)
    value = float(tree.expected_value(plan))
    brs = []
    for p in (0, 1):
        acc = np.zeros(tree.num_sequences + 2)
        tree.terminal_values(p, plan, acc)
        infos = tree.player_infosets(p)
        brs.append(float(locked_best_value(p, infos.start, infos.stop, tree.infoset_seq_start,
                                           tree.infoset_num_actions, tree.infoset_parent_seq,
                                           acc, lock.infoset_mask, probs)))
    nash_conv = brs[0] + brs[1]
    return Evaluation(value, (brs[0], brs[1]), nash_conv, nash_conv, tree.game.big_blind,
                      tree.game.starting_pot, locked=True)


def exploitability(game, policy=None) -> float:
    """Mean of the two best-response values against ``policy`` (zero at an equilibrium)."""
    return evaluate(game, policy).exploitability


def nash_conv(game, policy=None) -> float:
    """Sum of the two best-response values against ``policy``."""
    return evaluate(game, policy).nash_conv

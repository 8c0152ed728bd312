"""Multi-round Bluff (Gibson et al. 2012, sec. 5): the loser of a round loses a die and a new
round is rolled and played until one player has no dice (utility -1 for that player, +1 for the
other).

A round is one compiled public tree per dice state and opener: ``liars_dice(dice=a,dice2=b)``
with the opener as its player 0.  Later rounds do not depend on the earlier rounds' private dice
(every round is rolled afresh), so a profile that plays each round by the same strategy whatever
happened before is evaluated round by round, last rounds first: a round's terminals pay the
continuation value of the dice state it leads to.  The best responder gains nothing by
remembering earlier rounds against such a profile (the fresh roll makes its beliefs in a later
round the same whatever happened before), so these are the exact best-response values.

Who opens the next round is a rule the paper does not state; ``opener`` is ``"first"`` (player
0 always), ``"loser"`` or ``"winner"`` (of the previous round).
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .errors import RcfrError
from .games.liars_dice import LiarsDice
from .policy import TabularPolicy
from .public_tree import PublicTree, compile_public

OPENERS = ("first", "loser", "winner")


def _round_tree(cache: dict, dice: tuple[int, int], opener: int, faces: int) -> PublicTree:
    own, other = (dice[0], dice[1]) if opener == 0 else (dice[1], dice[0])
    key = (own, other)
    if key not in cache:
        cache[key] = compile_public(LiarsDice(dice=own, faces=faces, dice2=other))
    return cache[key]


def best_response_value(tree: PublicTree, probs: np.ndarray, player: int,
                        hit: np.ndarray, miss: np.ndarray) -> float:
    """``player``'s best-response value against ``probs`` on a liar's dice round whose calls pay
    player 0 ``hit[z]`` if the bid holds and ``miss[z]`` if not."""
    plan = K.padded(tree.num_sequences)
    K.realization_plan(probs, 0, tree.num_infosets, tree.infoset_seq_start,
                       tree.infoset_num_actions, tree.infoset_parent_seq, plan)
    arrays = tree.arrays._replace(term_value=np.ascontiguousarray(hit, dtype=np.float64),
                                  term_miss=np.ascontiguousarray(miss, dtype=np.float64))
    from .public_passes import terminal_values

    acc = np.empty(tree.num_sequences + 2)
    seqs = tree.player_sequences(player)
    terminal_values(player, plan, arrays, False, seqs.start, seqs.stop, acc)
    infos = tree.player_infosets(player)
    br = np.zeros(tree.num_sequences)
    return float(K.best_response(player, infos.start, infos.stop, tree.infoset_seq_start,
                                 tree.infoset_num_actions, tree.infoset_parent_seq, acc, br))


def multi_round_best_responses(dice: int = 2, dice2: int = 1, opener: str = "loser",
                               faces: int = 6, policies: dict | None = None
                               ) -> tuple[float, float]:
    """Both players' best-response values in Bluff(dice, dice2) played over rounds, against a
    profile that plays uniformly at random (or ``policies[(d0, d1, o)]``: a probability vector
    on the round tree of dice state ``(d0, d1)`` opened by player ``o``)."""
    if opener not in OPENERS:
        raise RcfrError(f"unknown opener rule {opener!r}; use one of {', '.join(OPENERS)}")
    cache: dict = {}
    value: dict = {}  # (P, d0, d1, o) -> P's best-response value from that round on
    openers = (0,) if opener == "first" else (0, 1)
    states = sorted(((d0, d1, o) for d0 in range(1, dice + 1) for d1 in range(1, dice2 + 1)
                     for o in openers), key=lambda s: s[0] + s[1])
    for d0, d1, o in states:
        tree = _round_tree(cache, (d0, d1), o, faces)
        arrays = tree.arrays
        probs = (policies or {}).get((d0, d1, o))
        if probs is None:
            probs = TabularPolicy.uniform(tree).probs
        bidder = np.where(arrays.term_value > 0, o, 1 - o)  # the real player who bid last
        for P in (0, 1):
            after = [_continuation(value, P, d0, d1, loser, opener) for loser in (0, 1)]
            pay = [np.where(1 - bidder == 0, after[0], after[1]),  # the bid holds: caller loses
                   np.where(bidder == 0, after[0], after[1])]  # it fails: the bidder loses
            sign = 1.0 if P == o else -1.0  # payoffs to the round's player 0
            value[(P, d0, d1, o)] = best_response_value(tree, probs, 0 if P == o else 1,
                                                        sign * pay[0], sign * pay[1])
    return value[(0, dice, dice2, 0)], value[(1, dice, dice2, 0)]


def _continuation(value: dict, P: int, d0: int, d1: int, loser: int, opener: str) -> float:
    left = [d0, d1]
    left[loser] -= 1
    if left[loser] == 0:
        return -1.0 if P == loser else 1.0
    nxt = 0 if opener == "first" else (loser if opener == "loser" else 1 - loser)
    return value[(P, left[0], left[1], nxt)]


def multi_round_exploitability(dice: int = 2, dice2: int = 1, opener: str = "loser",
                               faces: int = 6) -> float:
    """Exploitability (mean best-response value) of the uniform profile in multi-round
    Bluff(dice, dice2)."""
    br0, br1 = multi_round_best_responses(dice, dice2, opener, faces)
    return (br0 + br1) / 2.0

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

:func:`solve_multi_round` solves the game by the same decomposition, last rounds first: each
round is solved by any public-form solver as a one-round game whose calls pay the continuation
value of the state they lead to under the strategies already found for the later rounds (a
round won pays one value, a round lost another).  Played by the round strategies whatever
happened before, the combination is an equilibrium when each round's strategy is one (the
later rounds are subgames of every state they follow: backward induction); its exact
multi-round exploitability is :func:`multi_round_best_responses`'s.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..core import kernels as K
from ..core.errors import RcfrError
from ..forms import PublicTree
from ..forms.public.tree import compile_public
from ..games.liars_dice import LiarsDice
from ..policy import TabularPolicy

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
    acc = np.empty(tree.num_sequences + 2)
    tree.with_terminal_payoffs(hit, miss).terminal_values(player, plan, acc)
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
    cache: dict = {}
    value: dict = {}  # (P, d0, d1, o) -> P's best-response value from that round on
    for d0, d1, o in round_states(dice, dice2, opener):
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


def multi_round_game(game: Any) -> tuple[int, int, int]:
    """``(dice, dice2, faces)`` of a liar's dice game (a spec string or object), the first
    round of the multi-round game."""
    from ..games.registry import load_game

    g = load_game(game)
    if not isinstance(g, LiarsDice):
        raise RcfrError(f"the multi-round game is liar's dice (Bluff) over rounds; {g} is not "
                        "liars_dice")
    return g.dice, g.dice2, g.faces


def with_round_payoffs(tree: PublicTree, win: float, lose: float) -> PublicTree:
    """The liar's dice round ``tree`` whose terminals pay its player 0 ``win`` where it wins
    the round and ``lose`` where it loses it (the continuation values of the two dice states
    the round can lead to), instead of +-1."""
    T = tree.arrays
    hit = np.where(T.term_value > 0, win, lose).astype(np.float64)
    miss = np.where(T.term_miss > 0, win, lose).astype(np.float64)
    return tree.with_terminal_payoffs(hit, miss)


@dataclasses.dataclass
class MultiRoundSolution:
    """Round strategies of multi-round Bluff(dice, dice2) found last rounds first.

    ``policies[(d0, d1, o)]``: the average strategy on the round of dice state ``(d0, d1)``
    opened by player ``o`` (a policy of the round tree, whose player 0 is the opener);
    ``values[(d0, d1, o)]``: player 0's value of the combined profile from that round on;
    ``round_exploitability[(d0, d1, o)]``: the round strategy's exploitability in the round
    game with the continuation payoffs; ``best_responses``: both players' best-response values
    against the combination in the whole game, ``exploitability`` their mean."""

    dice: int
    dice2: int
    opener: str
    faces: int
    algorithm: str
    policies: dict
    values: dict
    round_exploitability: dict
    best_responses: tuple[float, float]
    nodes_visited: int
    seconds: float

    @property
    def value(self) -> float:
        """Player 0's value of the combined profile in the whole game."""
        return self.values[(self.dice, self.dice2, 0)]

    @property
    def exploitability(self) -> float:
        return (self.best_responses[0] + self.best_responses[1]) / 2.0

    def save(self, path) -> Any:
        """Write the round strategies (:func:`save_multi_round`)."""
        return save_multi_round(path, self.dice, self.dice2, self.opener, self.faces,
                                {k: p.probs for k, p in self.policies.items()},
                                {"algorithm": self.algorithm,
                                 "nodes_visited": self.nodes_visited})

    def to_dict(self) -> dict[str, Any]:
        key = "{}-{}-{}".format
        return {"game": f"liars_dice(dice={self.dice},dice2={self.dice2},faces={self.faces})",
                "rounds": self.opener, "algorithm": self.algorithm, "value": self.value,
                "best_response_values": list(self.best_responses),
                "exploitability": self.exploitability, "nodes_visited": self.nodes_visited,
                "seconds": self.seconds,
                "round_values": {key(*k): v for k, v in self.values.items()},
                "round_exploitability": {key(*k): v
                                         for k, v in self.round_exploitability.items()}}


def _round_game(cache: dict, values: dict, d0: int, d1: int, o: int, opener: str,
                faces: int) -> tuple[PublicTree, float]:
    """The round of dice state ``(d0, d1)`` opened by player ``o`` as a one-round game whose
    calls pay the continuation values ``values[(0, ...)]`` of the later rounds (player 0's), and
    the sign of the round's player 0 (the opener) in the real players' terms."""
    # player 0's continuation value when player `loser` loses this round
    after = [_continuation(values, 0, d0, d1, loser, opener) for loser in (0, 1)]
    sign = 1.0 if o == 0 else -1.0  # the round's player 0 is the opener
    return with_round_payoffs(_round_tree(cache, (d0, d1), o, faces), sign * after[1 - o],
                              sign * after[o]), sign


def evaluate_multi_round(dice: int, dice2: int, opener: str, faces: int,
                         policies: dict | None = None) -> dict[str, Any]:
    """Player 0's value of the profile that plays round ``(d0, d1, o)`` by ``policies[(d0, d1,
    o)]`` (probability vectors on the round trees; ``None``: uniformly at random), both
    best-response values and the exploitability, in multi-round Bluff(dice, dice2)."""
    from ..evaluate import evaluate

    cache: dict = {}
    values: dict = {}
    for d0, d1, o in round_states(dice, dice2, opener):
        tree, sign = _round_game(cache, values, d0, d1, o, opener, faces)
        probs = (policies or {}).get((d0, d1, o))
        policy = TabularPolicy.uniform(tree) if probs is None else TabularPolicy(tree, probs)
        values[(0, d0, d1, o)] = sign * evaluate(tree, policy).value
    br = multi_round_best_responses(dice, dice2, opener, faces, policies)
    return {"value": values[(0, dice, dice2, 0)], "best_response_values": list(br),
            "exploitability": (br[0] + br[1]) / 2.0}


def _game_name(dice: int, dice2: int, faces: int) -> str:
    return str(LiarsDice(dice=dice, faces=faces, dice2=dice2))


def save_multi_round(path, dice: int, dice2: int, opener: str, faces: int, policies: dict,
                     metadata: dict | None = None):
    """Write a multi-round strategy (one probability vector per round) as ``.npz`` with a JSON
    header naming the game, the opener rule and each round tree's fingerprint; atomic."""
    from ..core.fileio import FORMAT_VERSION, MULTI_ROUND_FORMAT, write_npz

    cache: dict = {}
    rounds = {}
    arrays = {}
    for d0, d1, o in round_states(dice, dice2, opener):
        key = f"round_{d0}_{d1}_{o}"
        tree = _round_tree(cache, (d0, d1), o, faces)
        rounds[key] = {"fingerprint": tree.fingerprint(), "num_sequences": tree.num_sequences}
        arrays[key] = np.asarray(policies[(d0, d1, o)], dtype=np.float64)
    meta = {"format": MULTI_ROUND_FORMAT, "version": FORMAT_VERSION,
            "game": _game_name(dice, dice2, faces), "rounds": opener, "round_trees": rounds,
            "metadata": metadata or {}}
    return write_npz(path, arrays, meta)


def load_multi_round(path, game: Any, opener: str) -> dict:
    """The round strategies of a file written by :func:`save_multi_round`, checked against the
    multi-round ``game`` and ``opener`` rule: ``{(d0, d1, o): probabilities}``."""
    from ..core.fileio import MULTI_ROUND_FORMAT, read_npz, shown

    dice, dice2, faces = multi_round_game(game)
    states = round_states(dice, dice2, opener)
    arrays, meta = read_npz(path, MULTI_ROUND_FORMAT)
    file = shown(path)
    name = _game_name(dice, dice2, faces)
    if meta.get("game") != name or meta.get("rounds") != opener:
        raise RcfrError(f"{file} holds a strategy for {meta.get('game')!r} with --rounds "
                        f"{meta.get('rounds')}, not for {name!r} with --rounds {opener}")
    trees = meta.get("round_trees")
    keys = {f"round_{d0}_{d1}_{o}": (d0, d1, o) for d0, d1, o in states}
    if not isinstance(trees, dict) or set(trees) != set(keys) or set(arrays) != set(keys):
        raise RcfrError(f"{file} is corrupted: its rounds are not those of {name}")
    cache: dict = {}
    out = {}
    for key, (d0, d1, o) in keys.items():
        tree = _round_tree(cache, (d0, d1), o, faces)
        if not isinstance(trees[key], dict) or trees[key].get("fingerprint") != tree.fingerprint():
            raise RcfrError(f"{file}: round {key} was written for another version of the rules")
        probs = arrays[key]
        if probs.dtype != np.float64 or probs.shape != (tree.num_sequences,):
            raise RcfrError(f"{file} is corrupted: round {key} is not a float64 vector of "
                            f"{tree.num_sequences:,} probabilities")
        try:
            out[(d0, d1, o)] = TabularPolicy(tree, probs).probs
        except RcfrError as exc:
            raise RcfrError(f"{file} is corrupted: round {key}: {exc}") from None
    return out


def round_states(dice: int, dice2: int, opener: str) -> list[tuple[int, int, int]]:
    """The rounds ``(d0, d1, o)`` of multi-round Bluff(dice, dice2), fewest dice first."""
    if opener not in OPENERS:
        raise RcfrError(f"unknown opener rule {opener!r}; use one of {', '.join(OPENERS)}")
    openers = (0,) if opener == "first" else (0, 1)
    return sorted(((d0, d1, o) for d0 in range(1, dice + 1) for d1 in range(1, dice2 + 1)
                   for o in openers), key=lambda s: s[0] + s[1])


def solve_multi_round(dice: int = 2, dice2: int = 1, opener: str = "loser", faces: int = 6,
                      algorithm: str = "cfr+", iterations: int | None = 1000,
                      nodes: int | None = None, **options: Any) -> MultiRoundSolution:
    """Solve multi-round Bluff(dice, dice2) by backward induction over its rounds: each round,
    fewest dice first, by ``algorithm`` (any public-form solver of
    :func:`rcfr.solvers.run.make_solver`, with ``options``) for ``iterations``
    iterations or ``nodes`` histories, on the round game whose calls pay the continuation
    values of the strategies found for the later rounds; then the exact multi-round
    exploitability of the combination (:func:`multi_round_best_responses`)."""
    import time

    from ..evaluate import evaluate
    from ..solvers.run import make_solver

    states = round_states(dice, dice2, opener)
    cache: dict = {}
    values: dict = {}
    policies: dict = {}
    round_expl: dict = {}
    visited = 0
    t0 = time.perf_counter()
    for d0, d1, o in states:
        tree, sign = _round_game(cache, values, d0, d1, o, opener, faces)
        solver = make_solver(tree, algorithm, **options)
        if nodes is not None:
            solver.run_nodes(nodes)
        else:
            solver.run(iterations)
        visited += solver.nodes_visited
        policy = solver.average_policy()
        ev = evaluate(tree, policy)
        policies[(d0, d1, o)] = policy
        values[(0, d0, d1, o)] = sign * ev.value
        round_expl[(d0, d1, o)] = ev.exploitability
    seconds = time.perf_counter() - t0
    br = multi_round_best_responses(dice, dice2, opener, faces,
                                    {k: p.probs for k, p in policies.items()})
    return MultiRoundSolution(dice, dice2, opener, faces, str(algorithm), policies,
                              {k[1:]: v for k, v in values.items()}, round_expl, br, visited,
                              seconds)

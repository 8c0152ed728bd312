"""2-NL Hold'em(k) with a bucketed card abstraction (Gibson et al. 2012, sec. 5).

The rules, as the paper states them: two players with stacks of ``k`` chips; the dealer posts a
small blind of 1 and the other player a big blind of 2; each is dealt two private cards; a
preflop betting round, a three-card flop, a second and final betting round; a player may fold,
call, or raise by any number of chips up to the stack as long as the raise is at least as big as
the previous bet; a player with no chips left is all-in; the best five-card hand wins the pot.

How this module reads what the paper leaves open (the ACPC server's no-limit rules, which the
paper's experiments ran under):

* **Player 0 is the dealer** (small blind).  The dealer acts first preflop and the big blind
  acts first on the flop: the heads-up convention of the ACPC ``holdem.nolimit.2p`` games
  (``firstPlayer = 2 1``) and of casino heads-up play.
* **Previous bet.**  A raise's size is what it adds over the bet it faces; the smallest raise
  is the size of the previous bet or raise of the same round, and never less than the big
  blind.  Preflop the big blind counts as the previous bet, so the smallest raise is to 4
  chips; the first bet on the flop is at least 2 chips (the big blind).  A player may always
  go all-in, even for less than the smallest raise.  Stacks are equal, so after an all-in
  the opponent may only fold or call.
* Folding is allowed only when facing a bet.  A round ends when a player calls (checks) after
  the other has acted in the round; preflop the big blind's forced bet is not an action, so the
  dealer's call (a limp) leaves the big blind to check or raise.  When both players are all-in
  before the flop, the flop is dealt and the hand goes to showdown without betting.

Actions: ``0`` fold, ``1`` check/call, ``r >= 4`` raise to ``r`` chips in all (the player's
whole contribution to the pot), as in ACPC's "raise to".  Payoffs are in chips: a fold loses
what the folder has put in, a showdown wins or loses the common stake.

The card abstraction (five E[HS²] buckets per round with perfect recall, Zinkevich et al. 2007)
comes from :func:`rcfr.games.holdem.abstraction.holdem_abstraction`: each player's private state is
the sequence ``i = preflop_bucket * B + flop_bucket``; ``joint[i, j]`` is the probability of the
two players' sequences and ``showdown[i, j]`` player 0's expected showdown result (+1 win,
-1 loss, 0 tie) given them.  The history form deals, as in the paper ("the branching factor at
each chance node down to five"), player 0's preflop bucket, then player 1's, and after the
preflop betting player 0's flop bucket, then player 1's, each from the conditional of the joint.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

import numpy as np

from ..core.budget import SizeEstimate
from ..core.errors import RcfrError
from .holdem.betting_rules import (
    BIG_BLIND,
    CALL,
    FLOP,
    FOLD,
    PREFLOP,
    SHOWDOWN,
    SMALL_BLIND,
)
from .protocol import CHANCE, TERMINAL, Game, State
from .public import (
    FOLD_RULE,
    KIND_TERMINAL,
    MATRIX_RULE,
    PublicNodes,
    PublicState,
    PublicStructure,
)

MIN_STACK = 4  # the smallest stack that allows a raise (to 4)
# the largest stack whose betting tree is counted (betting_counts: O(stack^3) Python work, about
# 8 s and 5e18 public nodes at 200 -- far beyond any memory; 1000 overflowed the recursion)
MAX_STACK = 200


class Betting:
    """The public betting state: round, both players' chips in the pot, the size of the last
    bet or raise of the round, actions in the round, the player to act, a fold, and the
    actions so far as a string (``key``: rounds separated by ``/``).  Immutable."""

    __slots__ = ("stack", "round", "spent", "inc", "acted", "player", "folder", "key")

    def __init__(self, stack: int) -> None:
        self.stack = stack
        self.round = PREFLOP
        self.spent = (SMALL_BLIND, BIG_BLIND)
        self.inc = BIG_BLIND  # the big blind counts as the previous bet
        self.acted = 0
        self.player = 0  # the dealer acts first preflop
        self.folder = -1
        self.key = ""

    @property
    def over(self) -> bool:
        """No more betting: a fold, the end of the flop round, or both all-in."""
        return (self.folder >= 0 or self.round == SHOWDOWN
                or self.spent[0] == self.spent[1] == self.stack)

    def legal_actions(self) -> list[int]:
        mine, other = self.spent[self.player], self.spent[1 - self.player]
        actions = [FOLD, CALL] if other > mine else [CALL]
        if other < self.stack:
            lowest = min(other + max(self.inc, BIG_BLIND), self.stack)
            actions.extend(range(lowest, self.stack + 1))
        return actions

    def child(self, action: int) -> Betting:
        b = Betting.__new__(Betting)
        b.stack, b.round, b.inc, b.folder = self.stack, self.round, self.inc, self.folder
        b.key = self.key + _token(action)
        p = self.player
        other = self.spent[1 - p]
        b.acted, b.player = self.acted + 1, 1 - p
        if action == FOLD:
            b.folder = p
            b.spent = self.spent
        elif action == CALL:
            b.spent = (other, other)
            if self.acted >= 1:  # the round closes
                b.round = self.round + 1
                b.inc, b.acted, b.player = 0, 0, 1  # the big blind acts first on the flop
                if b.round == FLOP:
                    b.key += "/"
        else:
            b.inc = action - other
            b.spent = (action, other) if p == 0 else (other, action)
        return b

    def fold_payoff(self) -> float:
        """Player 0's payoff after a fold: the folder loses her chips."""
        lost = float(self.spent[self.folder])
        return -lost if self.folder == 0 else lost


_TOKEN = re.compile(r"f|c|r\d+")  # the actions of a betting key: fold, call, raise to N


def _nearest_raise(legal: list[int], amount: float) -> int | None:
    """The legal raise nearest to ``amount`` chips (the smaller of two as near), or None."""
    raises = [a for a in legal if a not in (FOLD, CALL)]
    return min(raises, key=lambda a: (abs(a - amount), a)) if raises else None


def _token(action: int) -> str:
    return "f" if action == FOLD else "c" if action == CALL else f"r{action}"


def action_name(action: int) -> str:
    return "fold" if action == FOLD else "call" if action == CALL else f"raise to {action}"


class NLHoldem2State(State):
    """A history: the buckets dealt so far (player 0's preflop, player 1's preflop, player 0's
    flop, player 1's flop) and the betting."""

    __slots__ = ("game", "deal", "betting")

    def __init__(self, game: NLHoldem2) -> None:
        self.game = game
        self.deal: tuple[int, ...] = ()
        self.betting = Betting(game.stack)

    def current_player(self) -> int:
        b = self.betting
        if len(self.deal) < 2:
            return CHANCE
        if b.folder >= 0:
            return TERMINAL
        if b.round >= FLOP and len(self.deal) < 4:
            return CHANCE
        return TERMINAL if b.over else b.player

    def chance_outcomes(self) -> list[tuple[int, float]]:
        probs = self.game.chance_probabilities(self.deal)
        return [(int(o), float(p)) for o, p in enumerate(probs) if p > 0.0]

    def player_actions(self, player: int) -> list[int]:
        return self.betting.legal_actions()

    def apply_action(self, action: int) -> None:
        if self.current_player() == CHANCE:
            self.deal = self.deal + (action,)
        else:
            self.betting = self.betting.child(action)

    def returns(self) -> list[float]:
        b = self.betting
        if b.folder >= 0:
            v = b.fold_payoff()
        else:
            B = self.game.buckets
            i = self.deal[0] * B + self.deal[2]
            j = self.deal[1] * B + self.deal[3]
            v = float(b.spent[0]) * float(self.game.showdown[i, j])
        return [v, -v]

    def information_state_string(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        own = [self.deal[k] for k in (p, p + 2) if k < len(self.deal)]
        return f"{p}:{'.'.join(map(str, own))}|{self.betting.key}"

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            who = len(self.deal) % 2
            street = "preflop" if len(self.deal) < 2 else "flop"
            return f"player {who} {street} bucket {action}"
        return action_name(action)

    def clone(self) -> NLHoldem2State:
        s = NLHoldem2State.__new__(NLHoldem2State)
        s.game, s.deal, s.betting = self.game, self.deal, self.betting
        return s


class NLHoldem2(Game):
    """2-NL Hold'em(k) abstracted by ``buckets`` E[HS²] buckets per round (Gibson et al. 2012);
    ``ranks`` and ``suits`` shrink the deck (the paper's game: 13 x 4).  Blinds are 1 and 2
    chips; payoffs are in chips, so mbb/g = 1000 x chips / 2."""

    short_name = "nl_holdem2"
    big_blind = float(BIG_BLIND)

    def __init__(self, stack: int = 36, buckets: int = 5, ranks: int = 13, suits: int = 4,
                 *, abstraction=None) -> None:
        for name, value in (("stack", stack), ("buckets", buckets), ("ranks", ranks),
                            ("suits", suits)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RcfrError(f"nl_holdem2's {name} must be a whole number, got {value!r}")
        if stack < MIN_STACK:
            raise RcfrError(f"nl_holdem2's stack must be at least {MIN_STACK} chips (the "
                            f"blinds are 1 and 2), got {stack}")
        if stack > MAX_STACK:
            raise RcfrError(f"nl_holdem2's stack must be at most {MAX_STACK} chips (its sizes "
                            f"are counted up to there; stack {MAX_STACK} already has ~5e18 "
                            f"public nodes), got {stack}")
        if buckets < 1:
            raise RcfrError(f"nl_holdem2 needs at least 1 bucket per round, got {buckets}")
        if isinstance(abstraction, str):
            raise RcfrError("nl_holdem2's abstraction is given in code, not by name")
        params = dict(stack=stack, buckets=buckets, ranks=ranks, suits=suits)
        if abstraction is not None:
            params["abstraction"] = "custom"  # not loadable by name: never mistaken for ours
        super().__init__(**params)
        self.stack, self.buckets, self.ranks, self.suits = stack, buckets, ranks, suits
        self._abstraction = abstraction
        n = buckets * buckets
        self.preflop_bucket = np.arange(n) // buckets  # of each bucket sequence
        self.ones = np.ones((n, n))
        self.preflop_bucket.flags.writeable = self.ones.flags.writeable = False

    def defaults(self) -> dict:
        return {"stack": 36, "buckets": 5, "ranks": 13, "suits": 4}

    def translate_infoset(self, key: str, actions, source: Game):
        """Another stack's reading of a history, scaled by the ratio of the stacks: the
        betting is replayed in ``source`` with each raise read as ``source``'s legal raise
        nearest to the amount times ``source.stack / stack`` (an all-in as an all-in), and
        each of ``actions`` read the same way; ``None`` for another game, one of other
        buckets or cards, or a history ``source`` cannot replay."""
        if not isinstance(source, NLHoldem2) or source.stack == self.stack or (
                source.buckets, source.ranks, source.suits) != (
                self.buckets, self.ranks, self.suits):
            return None
        head, _, betting = key.partition("|")
        scale = source.stack / self.stack
        b = Betting(source.stack)
        for token in _TOKEN.findall(betting):  # (the round's "/" is the replay's own)
            if b.over:
                return None
            legal = b.legal_actions()
            act = (FOLD if token == "f" else CALL if token == "c"
                   else _nearest_raise(legal, int(token[1:]) * scale))
            if act is None or act not in legal:
                return None
            b = b.child(act)
        if b.over:
            return None
        legal = b.legal_actions()
        read = [a if a in (FOLD, CALL) and a in legal else
                None if a in (FOLD, CALL) else _nearest_raise(legal, a * scale)
                for a in (int(x) for x in actions)]
        return f"{head}|{b.key}", read

    # -- the card abstraction ------------------------------------------------------------
    @property
    def abstraction(self):
        """The bucket abstraction (built or loaded from the cache on first use)."""
        if self._abstraction is None:
            from .holdem.abstraction import holdem_abstraction

            self._abstraction = holdem_abstraction(buckets=self.buckets, ranks=self.ranks,
                                                   suits=self.suits)
        self._check_abstraction(self._abstraction)
        return self._abstraction

    def _check_abstraction(self, a) -> None:
        if getattr(self, "_checked", None) is a:
            return
        B = self.buckets
        joint = np.asarray(a.joint, dtype=np.float64)
        show = np.asarray(a.showdown, dtype=np.float64)
        if int(a.buckets) != B or joint.shape != (B * B, B * B) or show.shape != joint.shape:
            raise RcfrError(f"the card abstraction does not have {B} buckets per round")
        if np.any(joint < 0) or abs(joint.sum() - 1.0) > 1e-9:
            raise RcfrError("the card abstraction's joint is not a probability distribution")
        if np.any(np.abs(show) > 1.0 + 1e-12):
            raise RcfrError("the card abstraction's showdown values are not in [-1, 1]")
        self._checked = a

    @property
    def joint(self) -> np.ndarray:
        """``[B*B, B*B]``: P(player 0's bucket sequence i, player 1's j)."""
        return np.asarray(self.abstraction.joint, dtype=np.float64)

    @property
    def showdown(self) -> np.ndarray:
        return np.asarray(self.abstraction.showdown, dtype=np.float64)

    @property
    def preflop_joint(self) -> np.ndarray:
        """``[B, B]``: P(preflop buckets), the joint summed over the flop buckets."""
        B = self.buckets
        return self.joint.reshape(B, B, B, B).sum(axis=(1, 3))

    def chance_probabilities(self, deal: tuple[int, ...]) -> np.ndarray:
        """The next bucket's distribution given the buckets dealt so far (player 0's preflop,
        player 1's preflop, player 0's flop, player 1's flop)."""
        B = self.buckets
        J = self.joint.reshape(B, B, B, B)  # [b0, f0, b1, f1]
        if len(deal) == 0:
            w = J.sum(axis=(1, 2, 3))
        elif len(deal) == 1:
            w = J[deal[0]].sum(axis=(0, 2))
        elif len(deal) == 2:
            w = J[deal[0], :, deal[1], :].sum(axis=1)
        else:
            w = J[deal[0], deal[2], deal[1], :]
        total = w.sum()
        return w / total if total > 0 else w

    # -- protocol ------------------------------------------------------------------------
    def new_initial_state(self) -> NLHoldem2State:
        return NLHoldem2State(self)

    def num_distinct_actions(self) -> int:
        return self.stack + 1

    # -- sizes (closed form) ---------------------------------------------------------------
    def betting_counts(self) -> dict:
        """The betting tree's counts (:func:`betting_counts`)."""
        return betting_counts(self.stack)

    def closed_form_sizes(self, support: bool = True) -> dict:
        """Histories, information sets and sequences of the history form, and public nodes,
        from the betting tree's counts (no tree is built).  ``support=True`` counts only the
        bucket deals of positive probability (this builds or loads the abstraction);
        ``False`` assumes every deal possible (an upper bound, at no cost)."""
        B = self.buckets
        if support:
            J = self.joint.reshape(B, B, B, B)  # [b0, f0, b1, f1]
            pre = J.sum(axis=(1, 3))
            seqs = J.sum(axis=(2, 3)).ravel(), J.sum(axis=(0, 1)).ravel()
            deals = (int((pre.sum(axis=1) > 0).sum()), int((pre > 0).sum()),
                     int((J.sum(axis=3) > 0).sum()), int((J > 0).sum()))
            own = [(int((pre.sum(axis=1 - p) > 0).sum()), int((seqs[p] > 0).sum()))
                   for p in (0, 1)]
        else:
            deals = (B, B**2, B**3, B**4)
            own = [(B, B * B)] * 2
        return sizes_from_counts(betting_counts(self.stack), deals, own)

    def public_structure(self) -> PublicStructure:
        """The public form (:mod:`rcfr.forms.public.tree`): each player's private state is the whole
        bucket sequence ``i = preflop * B + flop``, dealt at the root by the joint (a dense
        deal); before the flop a player observes only the preflop bucket
        (:meth:`NLHoldem2PublicState.observation`).  The flop is two public chance nodes of one
        outcome each (player 0's flop bucket, then player 1's, as the history form deals
        them) that change only what the players observe; a showdown pays the stake times the
        abstraction's showdown matrix (``MATRIX_RULE``)."""
        B = self.buckets
        n = B * B
        joint = self.joint
        labels = [f"{i // B}.{i % B}" for i in range(n)]
        first = int((joint.reshape(B, n * B).sum(axis=1) > 0).sum())
        return PublicStructure(root=NLHoldem2PublicState(self, Betting(self.stack), 0),
                               labels=(labels, list(labels)), pairing="dense", deal=joint,
                               deal_histories=np.ones((n, n), dtype=np.int64),
                               prefix_histories=1 + first,
                               nodes=lambda: public_nodes(self.stack))

    def num_histories(self) -> int:
        """Histories of the history form if every bucket deal is possible (an upper bound)."""
        return self.closed_form_sizes(support=False)["histories"]

    def num_public_nodes(self) -> int:
        return betting_counts(self.stack)["public_nodes"]

    def size_estimate(self) -> SizeEstimate:
        """Histories and sequences from the betting tree's closed form, every bucket deal
        possible (:mod:`rcfr.core.budget`'s memory guard)."""
        sizes = self.closed_form_sizes(support=False)
        return SizeEstimate(float(sizes["histories"]), float(sizes["sequences"]))



class NLHoldem2PublicState(PublicState):
    """A public state: the betting, and how much of the flop has been dealt (0: nothing, 1:
    player 0's flop bucket, 2: both)."""

    __slots__ = ("game", "betting", "dealt", "player")

    def __init__(self, game: NLHoldem2, betting: Betting, dealt: int) -> None:
        self.game, self.betting, self.dealt = game, betting, dealt
        if betting.folder >= 0:
            self.player = TERMINAL
        elif betting.round >= FLOP and dealt < 2:
            self.player = CHANCE
        else:
            self.player = TERMINAL if betting.over else betting.player

    def current_player(self) -> int:
        return self.player

    def legal_actions(self) -> list[int]:
        if self.player == CHANCE:
            return [0]
        return self.betting.legal_actions()

    def child(self, action: int) -> NLHoldem2PublicState:
        if self.player == CHANCE:
            return NLHoldem2PublicState(self.game, self.betting, self.dealt + 1)
        return NLHoldem2PublicState(self.game, self.betting.child(action), self.dealt)

    def chance_factor(self, outcome: int) -> np.ndarray:
        return self.game.ones  # the deal is already complete: only observations change

    def observation(self, player: int) -> np.ndarray | None:
        """Before the flop a player sees the preflop bucket (``i // B``); player 0 sees her
        flop bucket at the first flop chance node, player 1 his at the second."""
        if self.dealt > player:
            return None
        return self.game.preflop_bucket

    def terminal(self) -> tuple[int, float, int, int]:
        b = self.betting
        if b.folder >= 0:
            return FOLD_RULE, b.fold_payoff(), 0, 0
        return MATRIX_RULE, float(b.spent[0]), 0, 0

    def payoff_matrix(self) -> np.ndarray:
        return self.game.showdown

    def information_state_string(self, player: int, private: int) -> str:
        B = self.game.buckets
        own = f"{private // B}.{private % B}" if self.betting.round >= FLOP else private // B
        return f"{player}:{own}|{self.betting.key}"

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return f"player {self.dealt} flop bucket"
        return action_name(action)


@lru_cache(maxsize=64)
def betting_counts(stack: int) -> dict:
    """Counts of the betting tree by dynamic programming over a round's states ``(chips of the
    player to act, chips of the other, last raise size, whether the round has an action)``:
    per round, decision nodes and actions of each player, folds, and the lines that close the
    preflop round (reaching the flop with chips left, or all-in)."""

    @cache
    def walk(me: int, other: int, inc: int, acted: bool):
        # (decisions by the player to act, by the other, actions of each, folds, showdowns
        # per final stake) -- "to act" alternates, so children swap the per-player entries
        dec, act, folds, close = [1, 0], [0, 0], 0, {}
        n_act = 1
        subs = []
        if other > me:
            n_act += 1
            folds += 1
        if acted:
            close[other] = close.get(other, 0) + 1
        else:
            subs.append(walk(other, other, inc, True))  # a limp or a check
        if other < stack:
            lowest = min(other + max(inc, BIG_BLIND), stack)
            n_act += stack + 1 - lowest
            subs.extend(walk(other, r, r - other, True) for r in range(lowest, stack + 1))
        act[0] = n_act
        for sd, sa, sf, sc in subs:
            dec[0] += sd[1]
            dec[1] += sd[0]
            act[0] += sa[1]
            act[1] += sa[0]
            folds += sf
            for s, n in sc:
                close[s] = close.get(s, 0) + n
        return (dec[0], dec[1]), (act[0], act[1]), folds, tuple(sorted(close.items()))

    pd, pa, pf, pc = walk(SMALL_BLIND, BIG_BLIND, BIG_BLIND, False)
    flop_lines = sum(n for s, n in pc if s < stack)
    allin = sum(n for s, n in pc if s == stack)
    fi, fa = [0, 0], [0, 0]
    flop_nodes = 0
    for s, n in pc:
        if s == stack:
            continue
        d, a, f, c = walk(s, s, 0, False)  # player 1 (the big blind) acts first
        fi[1] += n * d[0]
        fi[0] += n * d[1]
        fa[1] += n * a[0]
        fa[0] += n * a[1]
        flop_nodes += n * (d[0] + d[1] + f + sum(m for _, m in c))
    preflop_dec = pd[0] + pd[1]
    return {"preflop_decisions": preflop_dec, "preflop_folds": pf,
            "preflop_infos": (pd[0], pd[1]), "preflop_actions": (pa[0], pa[1]),
            "flop_lines": flop_lines, "allin_lines": allin,
            "flop_infos": (fi[0], fi[1]), "flop_actions": (fa[0], fa[1]),
            "flop_nodes": flop_nodes,
            # two public chance nodes per line (player 0's flop bucket, then player 1's, as
            # the history form deals them), then the flop betting or the all-in showdown
            "public_nodes": preflop_dec + pf + 2 * (flop_lines + allin) + allin + flop_nodes}


def sizes_from_counts(c: dict, deals: tuple[int, int, int, int],
                      own: list[tuple[int, int]]) -> dict:
    """The game's sizes from the betting tree's counts ``c``, the numbers of possible deals
    ``(player 0's preflop buckets, preflop pairs, (pair, player 0's flop bucket) triples, pairs
    of bucket sequences)`` and each player's possible ``(preflop buckets, sequences)``: the
    history form deals one bucket per chance node (player 0's, then player 1's)."""
    first, pre_pairs, triples, flop_pairs = deals
    lines = c["flop_lines"] + c["allin_lines"]
    flop_decisions = sum(c["flop_infos"])
    decisions = pre_pairs * c["preflop_decisions"] + flop_pairs * flop_decisions
    chance = 1 + first + (pre_pairs + triples) * lines
    terminals = (pre_pairs * c["preflop_folds"]
                 + flop_pairs * (c["flop_nodes"] - flop_decisions + c["allin_lines"]))
    infosets = [own[p][0] * c["preflop_infos"][p] + own[p][1] * c["flop_infos"][p]
                for p in (0, 1)]
    sequences = [own[p][0] * c["preflop_actions"][p] + own[p][1] * c["flop_actions"][p]
                 for p in (0, 1)]
    return {"histories": decisions + chance + terminals, "terminals": terminals,
            "chance_nodes": chance, "decision_nodes": decisions, "infosets": sum(infosets),
            "sequences": sum(sequences), "infosets_per_player": infosets,
            "sequences_per_player": sequences, "public_nodes": c["public_nodes"]}


# -- the public tree in closed form ------------------------------------------------------------

def public_nodes(stack: int) -> PublicNodes:
    """The public tree of 2-NL Hold'em(``stack``) (:data:`rcfr.games.public.PublicNodes`): the
    nodes :class:`NLHoldem2PublicState` gives, in the compiler's breadth-first order, built by
    one numba pass over the betting states
    (:func:`rcfr.games.holdem.betting_tree.betting_tree`) into arrays sized by
    :func:`betting_counts` (k = 40: 23 million public nodes in seconds, where walking the
    public states takes minutes and a Python object per node)."""
    N = betting_counts(stack)["public_nodes"]
    kind = np.empty(N, dtype=np.int8)
    parent = np.empty(N, dtype=np.int32)
    action = np.empty(N, dtype=np.int32)
    child_start = np.empty(N + 1, dtype=np.int32)
    num_actions = np.empty(N, dtype=np.int32)
    ctx = np.empty(N, dtype=np.int32)
    spent = np.empty((2, N), dtype=np.int16)  # the betting state per node (freed on return)
    inc = np.empty(N, dtype=np.int16)
    small = np.empty((4, N), dtype=np.int8)  # round, actions in the round, player, folder
    from .holdem.betting_tree import betting_tree, terminal_rules  # numba: loaded on use

    made = betting_tree(stack, kind, parent, action, child_start, num_actions, ctx, spent, inc,
                         small)
    if made != N:  # pragma: no cover (betting_counts and the pass count the same tree)
        raise RcfrError(f"nl_holdem2(stack={stack}): the betting tree has {made} public "
                        f"nodes, its closed form {N}")
    Z = int(np.count_nonzero(kind == KIND_TERMINAL))
    term_rule = np.empty(Z, dtype=np.int8)
    term_value = np.empty(Z)
    terminal_rules(kind, spent, small, term_rule, term_value)
    return PublicNodes(kind, parent, action, child_start, num_actions, ctx, term_rule,
                       term_value, np.zeros(Z, dtype=np.int64), np.zeros(Z, dtype=np.int64))

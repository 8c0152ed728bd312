"""Action abstractions of real-card hold'em spots: the same spot with fewer bet sizes
(``holdem_spot(spot=NAME,bets=60% a)``, ``--abstraction actions:60%,a``, composable with
``buckets:K`` as ``buckets:8+actions:60%,a``), and the lift of its strategies to the real spot
with soft pseudo-harmonic translation of the sizes it lacks.

The translated agent (Schnizlein, Bowling & Szafron 2009) keeps an abstract betting line beside
the real one.  An opponent's real bet or raise of pot fraction ``x`` (chips beyond the call,
over the pot after the call) goes to the neighbouring abstract sizes ``A < x < B`` with the
pseudo-harmonic mapping of Ganzfried & Sandholm 2013 (eq. 2),

    P(A) = (B - x)(1 + A) / ((B - A)(1 + x)),    P(B) = 1 - P(A),

(below the smallest size to it, above the largest to the largest; an all-in to the all-in);
a real size that the abstraction has is kept.  The agent's own abstract bet of fraction ``g``
is played as the real bet nearest to ``g`` in ratio (all-in as all-in).  Where the abstract
line has no betting left while the real one goes on (a real raise read as a call), the agent
checks or calls until the lines meet again, as :mod:`rcfr.abstraction.lift` does.  The lifted
behaviour at a real information set is the mixture over the abstract lines the agent may hold
there, each weighted by the translation's probabilities and the agent's own abstract action
probabilities (marginalised exactly, not sampled), so the lifted strategy's exploitability is
exact.  The walk is over the betting and the dealt cards, vector-wise over the 1,326 combos;
information sets are matched by their strings, so either form of either game works.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import RcfrError
from ..forms.base import Form
from ..forms.compile import compile_game
from ..games.holdem.action_tree import ALL_IN, BET, CALL, CHECK, DECISION, FOLD, RAISE, Node
from ..games.holdem.cards import card_str
from ..games.holdem.combos import NUM_CARDS, NUM_COMBOS, combo_from_str
from ..games.holdem.spot_game import SpotGame
from ..games.protocol import Game
from ..games.transforms.actions import pseudo_harmonic
from ..policy import TabularPolicy
from .spot import is_sized, spot_abstraction_name, unabstracted

AGGRESSIVE = (BET, RAISE, ALL_IN)


def fraction(pot: int, node: Node, put: tuple[int, int], action) -> float:
    """Pot fraction of the bet or raise ``action`` at ``node`` of a spot whose starting pot is
    ``pot``; ``put``: each player's chips in this street so far.  A raise's fraction is the
    chips beyond the call over the pot after the call (postflop-solver's % for raises)."""
    q = node.player
    facing = put[1 - q]
    after_call = pot + 2 * (node.amount + facing - put[q])
    return (action.amount - facing) / after_call


def after(put: tuple[int, int], player: int, action) -> tuple[int, int]:
    """The street's chips per player after ``player`` takes ``action``."""
    out = list(put)
    if action.kind in AGGRESSIVE:
        out[player] = action.amount
    elif action.kind == CALL:
        out[player] = out[1 - player]
    return out[0], out[1]


def _passive(node: Node) -> int:
    return next(i for i, a in enumerate(node.actions) if a.kind in (CHECK, CALL))


def translate(pot: int, real: Node, put, abstract: Node, aput, j: int
              ) -> list[tuple[int, float]]:
    """The abstract actions (indices at ``abstract``) that the opponent's real action ``j``
    at ``real`` is read as, with their probabilities (the module's translation)."""
    a = real.actions[j]
    names = [str(b) for b in abstract.actions]
    if str(a) in names:
        return [(names.index(str(a)), 1.0)]
    if a.kind == FOLD:
        return [(next((i for i, b in enumerate(abstract.actions) if b.kind == FOLD),
                      _passive(abstract)), 1.0)]
    if a.kind in (CHECK, CALL):
        return [(_passive(abstract), 1.0)]
    options = [i for i, b in enumerate(abstract.actions) if b.kind in AGGRESSIVE]
    if not options:  # no abstract bet left: the bet is read as a check or call
        return [(_passive(abstract), 1.0)]
    if a.kind == ALL_IN:
        allin = [i for i in options if abstract.actions[i].kind == ALL_IN]
        if allin:
            return [(allin[0], 1.0)]
    sizes = [fraction(pot, abstract, aput, abstract.actions[i]) for i in options]
    x = fraction(pot, real, put, a)
    order = np.argsort(sizes, kind="stable")
    return [(options[int(order[k])], p)
            for k, p in pseudo_harmonic(x, [sizes[int(i)] for i in order])]


def back(pot: int, real: Node, put, abstract: Node, aput, i: int) -> int:
    """The real action (an index at ``real``) that the agent's abstract action ``i`` at
    ``abstract`` is played as: the same action where the real node has it, else the real bet
    nearest in pot fraction (ratio), all-in as all-in."""
    b = abstract.actions[i]
    names = [str(a) for a in real.actions]
    if str(b) in names:
        return names.index(str(b))
    if b.kind == FOLD:
        return next((j for j, a in enumerate(real.actions) if a.kind == FOLD), _passive(real))
    if b.kind in (CHECK, CALL):
        return _passive(real)
    options = [j for j, a in enumerate(real.actions) if a.kind in AGGRESSIVE]
    if not options:
        return _passive(real)
    allin = [j for j in options if real.actions[j].kind == ALL_IN]
    if b.kind == ALL_IN and allin:
        return allin[0]
    g = max(fraction(pot, abstract, aput, b), 1e-12)
    dist = [abs(math.log(max(fraction(pot, real, put, real.actions[j]), 1e-12) / g))
            for j in options]
    return options[int(np.argmin(dist))]


def line_suffix(board: str, line: tuple) -> str:
    """What an information-state string holds after the hand: ``|board|actions|card|...``
    (:meth:`rcfr.games.holdem.spot_game.SpotGame.info_key`)."""
    text = f"|{board}|"
    for i, token in enumerate(line):
        if isinstance(token, int):
            text += f"|{card_str(token)}|"
        else:
            text += token if i == 0 or isinstance(line[i - 1], int) else "," + token
    return text


class _Index:
    """A form's information sets of one player, grouped by public line: ``real`` gives the
    combos and information sets at a line, ``per_combo`` each combo's information set at a
    line of an abstract game (its hand label read on the board)."""

    def __init__(self, form: Form, player: int) -> None:
        self.form = form
        self.groups: dict[str, list] = {}
        keys = form.infoset_keys
        for i in form.player_infosets(player):
            label, bar, rest = keys[i].partition("|")
            self.groups.setdefault(bar + rest, []).append((label, i))
        self.memo: dict[str, np.ndarray] = {}

    def real(self, suffix: str) -> tuple[np.ndarray, np.ndarray]:
        group = self.groups.get(suffix, [])
        combos = np.array([combo_from_str(label) for label, _ in group], dtype=np.int64)
        return combos, np.array([i for _, i in group], dtype=np.int64)

    def per_combo(self, suffix: str, board: tuple) -> np.ndarray:
        out = self.memo.get(suffix)
        if out is None:
            found = dict(self.groups.get(suffix, []))
            labels = self.form.game.hand_labels(board)
            out = np.fromiter((found.get(x, -1) for x in labels), dtype=np.int64,
                              count=NUM_COMBOS)
            self.memo[suffix] = out
        return out


def _add(beliefs: dict, key: tuple, node: Node, put, w: np.ndarray, wc: np.ndarray) -> None:
    old = beliefs.get(key)
    if old is None:
        beliefs[key] = [node, put, w, wc]
    else:
        old[2] = old[2] + w
        old[3] = old[3] + wc


def lift_actions(full: Form | Game | str, abstract: Form | Game | str,
                 probs: np.ndarray | TabularPolicy, metadata: dict | None = None
                 ) -> TabularPolicy:
    """The real spot's strategy of the translated agents (both players) playing ``probs``, a
    strategy of ``abstract`` (the real spot with fewer bet sizes, and maybe buckets): the
    module's translation, marginalised exactly."""
    full, abstract = compile_game(full), compile_game(abstract)
    if not is_sized(abstract.game):
        raise RcfrError(f"{abstract.game} is not an action abstraction of a spot "
                        f"(bets=... or raises=...)")
    if unabstracted(abstract.game) != str(full.game):
        raise RcfrError(f"{abstract.game} does not abstract {full.game}")
    if isinstance(probs, TabularPolicy):
        metadata = {**dict(probs.metadata or {}), **(metadata or {})}
        probs = probs.probs
    aprobs = np.asarray(probs, dtype=np.float64)
    if aprobs.shape != (abstract.num_sequences,):
        raise RcfrError(f"a strategy of {abstract.game} has {abstract.num_sequences} "
                        f"sequences, not {aprobs.shape}")
    out = np.zeros(full.num_sequences)
    for p in (0, 1):
        _lift_player(p, full, abstract, aprobs, out)
    meta = dict(metadata or {})
    meta["abstraction"] = spot_abstraction_name(abstract.game)
    return TabularPolicy(full, out, meta)


def _lift_player(p: int, full: Form, abstract: Form, aprobs: np.ndarray,
                 out: np.ndarray) -> None:
    game: SpotGame = full.game
    agame: SpotGame = abstract.game
    pot, board = game.pot, "".join(card_str(c) for c in game.board)
    real_index, abs_index = _Index(full, p), _Index(abstract, p)
    ones = np.ones(NUM_COMBOS)
    stack = [(game.root, (), (0, 0), {(): [agame.root, (0, 0), ones, ones]})]
    while stack:
        node, line, put, beliefs = stack.pop()
        if node.kind == DECISION and node.player == p:
            children = _own(p, pot, board, game, agame, node, line, put, beliefs, aprobs,
                            real_index, abs_index, full, abstract, out)
            for j, a in enumerate(node.actions):
                stack.append((node.children[j], (*line, str(a)), after(put, p, a),
                              children[j]))
        elif node.kind == DECISION:
            for j, a in enumerate(node.actions):
                moved: dict = {}
                for aline, (m, aput, w, wc) in beliefs.items():
                    if m.kind != DECISION:  # the abstract line bets no more: it waits
                        _add(moved, aline, m, aput, w, wc)
                        continue
                    if m.player != node.player:
                        raise RcfrError(f"the abstract line {aline} of {agame} has "
                                        f"player {m.player} to act where {line} has "
                                        f"player {node.player}")
                    for i, q in translate(pot, node, put, m, aput, j):
                        b = m.actions[i]
                        _add(moved, (*aline, str(b)), m.children[i],
                             after(aput, node.player, b), w * q, wc * q)
                stack.append((node.children[j], (*line, str(a)), after(put, node.player, a),
                              moved))
        elif node.children:  # a deal: the abstract line follows where it waits for one
            dealt = set(game.board) | {t for t in line if isinstance(t, int)}
            for c in range(NUM_CARDS):
                if c in dealt:
                    continue
                moved = {}
                for aline, (m, aput, w, wc) in beliefs.items():
                    if m.kind == DECISION:
                        raise RcfrError(f"the abstract line {aline} of {agame} bets on "
                                        f"where {line} deals a card")
                    if m.children:
                        _add(moved, (*aline, c), m.children[0], (0, 0), w, wc)
                    else:
                        _add(moved, aline, m, aput, w, wc)
                stack.append((node.children[0], (*line, c), (0, 0), moved))


def _own(p, pot, board, game, agame, node, line, put, beliefs, aprobs, real_index,
         abs_index, full, abstract, out):
    """The agent acts at a real public node: mix the abstract strategies of the abstract
    lines it may hold, write its behaviour, and pass the beliefs on to the children."""
    k = len(node.actions)
    combos, infos = real_index.real(line_suffix(board, line))
    mass = np.zeros((NUM_COMBOS, k))
    cond = np.zeros((NUM_COMBOS, k))
    children: list[dict] = [{} for _ in range(k)]
    cards = game.board + tuple(t for t in line if isinstance(t, int))
    for aline, (m, aput, w, wc) in beliefs.items():
        if m.kind != DECISION:  # no abstract betting left: check or call, and wait
            r = _passive(node)
            mass[:, r] += w
            cond[:, r] += wc
            _add(children[r], aline, m, aput, w, wc)
            continue
        if m.player != p:
            raise RcfrError(f"the abstract line {aline} of {agame} has player {m.player} to "
                            f"act where {line} has player {p}")
        ak = len(m.actions)
        where = abs_index.per_combo(line_suffix(board, aline), cards)[combos]
        live = w[combos] + wc[combos] > 0
        if np.any(where[live] < 0):
            raise RcfrError(f"no information set of {agame} at {line_suffix(board, aline)!r} "
                            f"for some combos of {game}")
        pi = np.zeros((NUM_COMBOS, ak))
        starts = abstract.infoset_seq_start[np.maximum(where, 0)].astype(np.int64)
        pi[combos] = np.where(where[:, None] >= 0,
                              aprobs[starts[:, None] + np.arange(ak)[None, :]], 0.0)
        images = [back(pot, node, put, m, aput, i) for i in range(ak)]
        per_real = np.zeros((NUM_COMBOS, k))
        for i, r in enumerate(images):
            per_real[:, r] += pi[:, i]
        for i, r in enumerate(images):
            same = images.count(r)
            share = np.divide(pi[:, i], per_real[:, r], out=np.full(NUM_COMBOS, 1.0 / same),
                              where=per_real[:, r] > 0)
            b = m.actions[i]
            _add(children[r], (*aline, str(b)), m.children[i], after(aput, p, b),
                 w * pi[:, i], wc * share)
        mass += w[:, None] * per_real
        cond += wc[:, None] * per_real
    if combos.size:
        m_, c_ = mass[combos], cond[combos]
        total, ctot = m_.sum(1, keepdims=True), c_.sum(1, keepdims=True)
        beta = np.where(total > 0, m_ / np.where(total > 0, total, 1.0),
                        np.where(ctot > 0, c_ / np.where(ctot > 0, ctot, 1.0), 1.0 / k))
        starts = full.infoset_seq_start[infos].astype(np.int64)
        out[starts[:, None] + np.arange(k)[None, :]] = beta
    return children

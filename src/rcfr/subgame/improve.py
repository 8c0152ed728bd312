"""The self-improver of Libratus (Brown & Sandholm 2017, sec. 7; Brown & Sandholm 2018, "Superhuman
AI for heads-up no-limit poker", the third module) on a real-card spot: from a record of the
opponents' bets, find the sizes off the blueprint's action abstraction that they use most, add
them to the abstraction, and solve the new branches with the rest of the blueprint fixed: each
public subgame that such a bet starts is re-solved with real hands from the lifted
blueprint's beliefs, safely (:func:`rcfr.subgame.offtree.nested_resolve_spot`), and kept.

The record is a list of betting lines as information-state strings write them after the board
(``check,bet 100|2c|bet 50``: a dealt card between bars), or hand histories in the Poker Hand
History format (:mod:`rcfr.games.holdem.phh`).  A size is the bet's pot fraction in whole
percent (a raise's: chips beyond the call over the pot after the call).  What changed is
measured exactly: the exploitability against an opponent restricted to the improved
abstraction's bets (:func:`rcfr.subgame.offtree.restricted_value`), before and after, the
full exploitability before and after, and the seconds the new branches took.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass

from ..abstraction.actions import after, fraction
from ..core.errors import RcfrError
from ..evaluate import Evaluation, evaluate
from ..games.holdem import phh
from ..games.holdem.action_tree import ALL_IN, CHANCE, DECISION, RAISE
from ..games.holdem.spot_game import SpotGame, holdem_spot
from ..policy import TabularPolicy
from .offtree import nested_resolve_spot, nodes_by_line, off_tree_lines, restricted_value

__all__ = ["Improved", "improve", "observed_sizes", "parse_line", "read_record"]

_HAND = re.compile(r"^([2-9TJQKA][cdhs]){2}$|^b[0-9.]+$")


def parse_line(game: SpotGame, text: str) -> tuple:
    """A betting line of ``game`` from its text (``check,bet 100|2c|bet 50``, or a whole
    information-state string ``AhAd|Td9d6hQc|check,bet 100``): action strings, ``"deal"`` for
    each dealt card; each action checked against the spot's tree."""
    parts = text.strip().split("|")
    if len(parts) >= 3 and _HAND.match(parts[0].strip()):
        parts = parts[2:]  # an information-state string: hand and board first
    line: list[str] = []
    node = game.root
    for i, part in enumerate(parts):
        if i % 2:
            if node.kind != CHANCE:
                raise RcfrError(f"{text.strip()!r}: a card where {','.join(line)} deals none")
            line.append("deal")
            node = node.children[0]
            continue
        for token in (t.strip() for t in part.split(",") if t.strip()):
            names = [str(a) for a in node.actions] if node.kind == DECISION else []
            if token not in names:
                raise RcfrError(f"{text.strip()!r}: {token!r} is not an action of "
                                f"{game} after {','.join(line) or 'the start'}"
                                + (f" (there: {', '.join(names)})" if names else ""))
            line.append(token)
            node = node.children[names.index(token)]
    return tuple(line)


def read_record(path, game: SpotGame) -> list[tuple]:
    """The betting lines of a record file: one line of text per hand (:func:`parse_line`;
    ``#`` starts a comment), or hands in the Poker Hand History format
    (:mod:`rcfr.games.holdem.phh`, as ``rcfr play --histories`` writes them)."""
    from pathlib import Path

    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise RcfrError(f"cannot read the record {str(path)!r}: "
                        f"{getattr(e, 'strerror', None) or e}") from None
    try:
        hands = phh.loads(text, str(path))
    except RcfrError:
        hands = None
    if hands is not None:
        return [phh.betting_line(game, h, f"{path}, hand {i + 1}") for i, h in enumerate(hands)]
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            lines.append(parse_line(game, body))
        except RcfrError as e:
            raise RcfrError(f"{path}, line {number}: {e}") from None
    if not lines:
        raise RcfrError(f"the record {str(path)!r} holds no betting line")
    return lines


def _size(game: SpotGame, line: tuple) -> str:
    """The size of the bet or raise that ends ``line``: ``bet 50%``, ``raise 33%``,
    ``allin``."""
    node, put = game.root, (0, 0)
    for token in line[:-1]:
        if token == "deal":
            node, put = node.children[0], (0, 0)
            continue
        a = node.actions[[str(b) for b in node.actions].index(token)]
        put = after(put, node.player, a)
        node = node.children[node.actions.index(a)]
    a = node.actions[[str(b) for b in node.actions].index(line[-1])]
    if a.kind == ALL_IN:
        return "allin"
    kind = "raise" if a.kind == RAISE else "bet"
    return f"{kind} {round(100 * fraction(game.pot, node, put, a))}%"


def observed_sizes(game: SpotGame, abstract: SpotGame, lines: list[tuple]) -> Counter:
    """How often each off-tree size (``bet 50%``) appears in the betting ``lines``: every
    bet or raise that the abstraction lacks where all before it are the abstraction's."""
    off = set(off_tree_lines(game, abstract))
    counts: Counter = Counter()
    for line in lines:
        for k in range(1, len(line) + 1):
            if line[:k] in off:
                counts[_size(game, line[:k])] += 1
                break
    return counts


@dataclass
class Improved:
    """What the self-improver did: the ``sizes`` added (with their ``counts``), the improved
    abstraction's game string, the new branches (``lines``) re-solved, the improved strategy
    (``policy``) and, before and after, the exploitability against an opponent restricted to
    the improved abstraction's bets and the full evaluation; ``seconds``: the new branches'
    re-solves."""

    sizes: list[str]
    counts: dict
    abstraction: str
    lines: list[tuple]
    policy: TabularPolicy
    restricted_before: float
    restricted_after: float
    before: Evaluation
    after: Evaluation
    seconds: float

    def to_dict(self) -> dict:
        pot = self.before.pot or 1.0
        return {"sizes": self.sizes, "counts": self.counts, "abstraction": self.abstraction,
                "branches": [",".join(x) for x in self.lines],
                "restricted_exploitability_before": self.restricted_before,
                "restricted_exploitability_after": self.restricted_after,
                "restricted_pot_before": 100 * self.restricted_before / pot,
                "restricted_pot_after": 100 * self.restricted_after / pot,
                "exploitability_before": self.before.exploitability,
                "exploitability_after": self.after.exploitability,
                "seconds": self.seconds}


def _with_sizes(abstract: SpotGame, sizes: list[str]) -> SpotGame:
    """``abstract`` with the sizes ``sizes`` (``bet 50%``, ``raise 33%``) added to its bet or
    raise sizes."""
    params = dict(abstract.params)
    for s in sizes:
        kind, _, pct = s.partition(" ")
        key = {"bet": "bets", "raise": "raises"}.get(kind)
        if key is None or key not in params:
            raise RcfrError(f"the self-improver adds bet and raise sizes to those the "
                            f"abstraction lists; {s} is not one")
        listed = params[key].split()
        if pct not in listed:
            params[key] = " ".join([*listed, pct])
    return holdem_spot(**params)


def _restricted(policy: TabularPolicy, allowed: SpotGame) -> float:
    """The exploitability against an opponent who bets only as ``allowed`` does: the mean
    of the two players' restricted best-response values (the value of a zero-sum spot
    cancels)."""
    return 0.5 * sum(restricted_value(policy, p, allowed) for p in (0, 1))


def improve(policy: TabularPolicy, abstract: SpotGame, lines: list[tuple], top: int = 1,
            method: str = "resolve", *, iterations: int = 1000, algorithm: str = "cfr+",
            **options) -> Improved:
    """Add the ``top`` off-tree bet sizes used most in the betting ``lines`` to the
    abstraction ``abstract`` of the blueprint ``policy`` (lifted to the real spot, on the
    public form), re-solve the branches they start with ``method`` (the rest fixed), and
    measure (see the module)."""
    if top < 1:
        raise RcfrError(f"--top is a number of sizes, 1 or more, not {top}")
    game = policy.tree.game
    counts = observed_sizes(game, abstract, lines)
    sized = [(s, n) for s, n in counts.most_common() if s != "allin"]
    if not sized:
        raise RcfrError(f"no bet in the {len(lines):,} lines given is off the tree of "
                        f"{abstract}")
    sizes = [s for s, _ in sized[:top]]
    improved = _with_sizes(abstract, sizes)
    known = nodes_by_line(improved.root)
    branches = [x for x in off_tree_lines(game, abstract) if x in known
                and known[x].kind == DECISION]
    if not branches:
        raise RcfrError(f"the sizes {', '.join(sizes)} give no bet of {game} that the "
                        f"abstraction lacks")
    t0 = time.perf_counter()
    nested = nested_resolve_spot(policy, abstract, branches, method, iterations=iterations,
                                 algorithm=algorithm, evaluate_gains=False, **options)
    seconds = time.perf_counter() - t0
    meta = dict(policy.metadata or {})
    meta["improved"] = sizes
    out = TabularPolicy(policy.tree, nested.policy.probs, meta)
    return Improved(sizes, dict(counts), str(improved), branches, out,
                    _restricted(policy, improved), _restricted(out, improved),
                    evaluate(policy.tree, policy), evaluate(policy.tree, out), seconds)

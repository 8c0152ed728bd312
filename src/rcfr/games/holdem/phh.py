"""Hands of a real-card spot in the Poker Hand History format (PHH; Kim 2024, the format
``pokerkit`` reads and writes), and their betting lines read back.

A spot starts after the streets before it: a hand is written as no-limit Texas hold'em
(``variant = "NT"``) in which each player antes half the spot's pot, posts no blind and has
the spot's stack behind; both check every street before the spot's, the spot's board is dealt
street by street, then come the spot's actions (``p1`` is the out-of-position player:
``cc`` check or call, ``f`` fold, ``cbr N`` a bet or raise to ``N`` chips in the street),
the cards dealt after it, and both hands shown at a showdown.  Several hands make a ``.phhs``
file: tables ``[1]``, ``[2]``, ...
"""

from __future__ import annotations

import tomllib

from ...core.errors import RcfrError
from .action_tree import ALL_IN, BET, CALL, CHECK, DECISION, FOLD, RAISE, SHOWDOWN
from .cards import card_str, cards_from_str
from .combos import combo_str
from .spot_game import SpotGame

_STREETS = (3, 1, 1)  # cards the flop, turn and river deal


def _cards(cards) -> str:
    return "".join(card_str(c) for c in cards)


def hand_history(game: SpotGame, hands: tuple[int, int], line: tuple) -> dict:
    """The PHH fields of one hand of ``game``: the two combos dealt and the betting ``line``
    (action strings, dealt cards as card ids: :class:`.spot_game.SpotState`'s)."""
    if game.pot % 2:
        raise RcfrError(f"a hand history antes half the pot; {game} has an odd pot "
                        f"({game.pot})")
    ante = game.pot // 2
    actions = [f"d dh p1 {combo_str(hands[0])}", f"d dh p2 {combo_str(hands[1])}"]
    board, dealt = list(game.board), 0
    for count in _STREETS:
        if dealt >= len(board):
            break
        actions += ["p1 cc", "p2 cc"]  # the street before (preflop: no blinds): checks
        actions.append(f"d db {_cards(board[dealt:dealt + count])}")
        dealt += count
    node = game.root
    for token in line:
        if isinstance(token, int):
            actions.append(f"d db {card_str(token)}")
            node = node.children[0]
            continue
        names = [str(a) for a in node.actions]
        a = node.actions[names.index(token)]
        who = f"p{node.player + 1}"
        if a.kind in (CHECK, CALL):
            actions.append(f"{who} cc")
        elif a.kind == FOLD:
            actions.append(f"{who} f")
        else:
            actions.append(f"{who} cbr {a.amount}")
        node = node.children[names.index(token)]
    if node.kind == SHOWDOWN:
        actions += [f"p1 sm {combo_str(hands[0])}", f"p2 sm {combo_str(hands[1])}"]
    return {"variant": "NT", "ante_trimming_status": True, "antes": [ante, ante],
            "blinds_or_straddles": [0, 0], "min_bet": 1,
            "starting_stacks": [game.stack + ante] * 2, "actions": actions}


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def dumps(hands: list[dict]) -> str:
    """Hands (:func:`hand_history`'s fields) as the text of a ``.phhs`` file."""
    return "\n\n".join(f"[{i + 1}]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in h.items())
                       for i, h in enumerate(hands))


def loads(text: str, where: str = "the hand histories") -> list[dict]:
    """The hands of a ``.phh`` (one hand) or ``.phhs`` (tables of hands) text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RcfrError(f"{where} are not PHH (TOML): {e}") from None
    if "actions" in data:
        return [data]
    hands = [v for v in data.values() if isinstance(v, dict) and "actions" in v]
    if not hands:
        raise RcfrError(f"{where} hold no hand (no actions)")
    return hands


def betting_line(game: SpotGame, hand: dict, where: str = "a hand") -> tuple:
    """The spot's betting line of a PHH hand (action strings, ``"deal"`` for a dealt card):
    what comes after the spot's board is dealt, read on the spot's tree."""
    actions = hand.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise RcfrError(f"{where}: actions is a list of strings")
    board = 0
    node, line = game.root, []
    for text in actions:
        parts = text.split()
        if len(parts) < 2:
            raise RcfrError(f"{where}: bad action {text!r}")
        if parts[0] == "d":
            if parts[1] == "db":
                cards = cards_from_str(parts[2]) if len(parts) > 2 else []
                if board < len(game.board):
                    board += len(cards)
                    continue
                if node.kind == DECISION or not node.children:
                    raise RcfrError(f"{where}: {text!r} deals where the spot's line "
                                    f"{','.join(line)} deals no card")
                line.append("deal")
                node = node.children[0]
            continue
        if board < len(game.board) or parts[1] in ("sm", "sd"):
            continue  # the streets before the spot, and the showdown
        if node.kind != DECISION or parts[0] != f"p{node.player + 1}":
            raise RcfrError(f"{where}: {text!r} is not the spot's next action after "
                            f"{','.join(line) or 'its start'}")
        if parts[1] == "cc":
            found = [a for a in node.actions if a.kind in (CHECK, CALL)]
        elif parts[1] == "f":
            found = [a for a in node.actions if a.kind == FOLD]
        elif parts[1] == "cbr" and len(parts) == 3 and parts[2].isdigit():
            found = [a for a in node.actions
                     if a.kind in (BET, RAISE, ALL_IN) and a.amount == int(parts[2])]
        else:
            raise RcfrError(f"{where}: bad action {text!r}")
        if not found:
            raise RcfrError(f"{where}: {text!r} is not an action of {game} after "
                            f"{','.join(line) or 'its start'} (there: "
                            f"{', '.join(str(a) for a in node.actions)})")
        a = found[0]
        line.append(str(a))
        node = node.children[node.actions.index(a)]
    return tuple(line)

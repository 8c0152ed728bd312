"""Real-card hold'em building blocks: the 1,326 combos, boards, and range strings."""

import itertools

import numpy as np
import pytest

from rcfr.core.errors import RcfrError
from rcfr.games.holdem.cards import Deck, card_from_str
from rcfr.games.holdem.combos import (
    COMBO_CARDS,
    COMBO_MASKS,
    NUM_COMBOS,
    as_board,
    combo_from_str,
    combo_index,
    combo_str,
    live_combos,
    parse_board,
    remove_blocked,
)
from rcfr.games.holdem.ranges import parse_range

SUITS = "cdhs"

# postflop-solver's README / examples/basic.rs ranges
OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"


def pair(r):
    return {r + s + r + t for i, s in enumerate(SUITS) for t in SUITS[i + 1:]}


def suited(hi, lo):
    return {hi + s + lo + s for s in SUITS}


def offsuit(hi, lo):
    return {hi + s + lo + t for s in SUITS for t in SUITS if s != t}


def combos_of(weights, value=None):
    """The combos with a positive weight (or exactly ``value``), as canonical indices."""
    hit = weights > 0 if value is None else weights == value
    return set(np.flatnonzero(hit).tolist())


def idx(texts):
    return {combo_from_str(t) for t in texts}


def test_combo_order_is_lexicographic_and_matches_the_deck():
    assert COMBO_CARDS.shape == (NUM_COMBOS, 2)
    assert np.array_equal(COMBO_CARDS, Deck().holes)
    assert [combo_str(k) for k in (0, 1, 2, 3, 50, 51, 1325)] == [
        "2d2c", "2h2c", "2s2c", "3c2c", "As2c", "2h2d", "AsAh"]
    for k, (a, b) in enumerate(COMBO_CARDS.tolist()):
        assert combo_index(a, b) == combo_index(b, a) == k
    assert combo_from_str("AhKh") == combo_from_str("KhAh") == combo_index(46, 50)
    assert all(bin(int(m)).count("1") == 2 for m in COMBO_MASKS)
    assert int(COMBO_MASKS[combo_from_str("As2c")]) == (1 << 51) | 1


def test_boards_and_blocked_combos():
    board = parse_board("Td9d6hQc")
    assert board == (card_from_str("Td"), card_from_str("9d"), card_from_str("6h"),
                     card_from_str("Qc"))
    assert parse_board("Td 9d 6h") == board[:3] == as_board([33, 29, 18])
    assert np.array_equal(live_combos(board), live_combos("Td9d6hQc"))
    assert [int(live_combos(b).sum()) for b in ("Td9d6h", "Td9d6hQc", "Td9d6hQc2s")] == [
        1176, 1128, 1081]  # C(49, 2), C(48, 2), C(47, 2)
    live = live_combos(board)
    assert not live[combo_from_str("TdAs")] and not live[combo_from_str("QcQs")]
    assert live[combo_from_str("TcTs")]
    w = remove_blocked(parse_range("TT"), board)
    assert combos_of(w) == idx(["TcTh", "TcTs", "ThTs"])
    for bad in ("Td9d", "Td9d6hQc2s3s", "TdTd6h", "Td9d6", "Td9x6h", (1, 1, 2), (0, 1, 52), 7):
        with pytest.raises(RcfrError):
            as_board(bad)


@pytest.mark.parametrize(("text", "expected"), [
    ("QQ", pair("Q")),
    ("66+", set().union(*(pair(r) for r in "6789TJQKA"))),
    ("QQ-22", set().union(*(pair(r) for r in "23456789TJQ"))),
    ("A8s+", set().union(*(suited("A", r) for r in "89TJQK"))),
    ("AJo+", offsuit("A", "J") | offsuit("A", "Q") | offsuit("A", "K")),
    ("A5s-A4s", suited("A", "5") | suited("A", "4")),
    ("K9s", suited("K", "9")),
    ("AK", suited("A", "K") | offsuit("A", "K")),
    ("ak", suited("A", "K") | offsuit("A", "K")),
    ("AhKh", {"AhKh"}),
    ("AsAh", {"AsAh"}),
    ("98s+", set().union(*(suited(h, lo) for h, lo in ["98", "T9", "JT", "QJ", "KQ", "AK"]))),
    ("AKo+", offsuit("A", "K")),
    ("AQo-86o", set().union(*(offsuit(h, lo) for h, lo in
                              ["AQ", "KJ", "QT", "J9", "T8", "97", "86"]))),
    ("K5-K2", set().union(*(suited("K", r) | offsuit("K", r) for r in "2345"))),
    ("8h8s+", {r + "h" + r + "s" for r in "89TJQKA"}),
    ("AhAs-QhQs, JJ", {"AhAs", "KhKs", "QhQs"} | pair("J")),
    ("Ah9d+", {"Ah" + r + "d" for r in "9TJQK"}),
    ("", set()),
    ("AK,", suited("A", "K") | offsuit("A", "K")),
    (" QQ + , AKs ", set().union(*(pair(r) for r in "QKA")) | suited("A", "K")),
])
def test_every_form_of_the_syntax(text, expected):
    w = parse_range(text)
    assert w.shape == (NUM_COMBOS,) and w.dtype == np.float64
    assert combos_of(w) == idx(expected)
    assert set(np.unique(w)) <= {0.0, 1.0}


def test_class_sizes():
    assert [int(parse_range(t).sum()) for t in ("77", "T9s", "T9o", "T9", "Tc9c")] == [
        6, 4, 12, 16, 1]


def test_weights_and_overlaps():
    w = parse_range("AA:0.5, KK:1.0, QQ:.25, JJ:1., TT:0")
    assert combos_of(w, 0.5) == idx(pair("A")) and combos_of(w, 1.0) == idx(pair("K") | pair("J"))
    assert combos_of(w, 0.25) == idx(pair("Q")) and combos_of(w) == idx(
        pair("A") | pair("K") | pair("Q") | pair("J"))
    # where tokens overlap, the first one's weight holds
    w = parse_range("AKs:0.25,AK,AhKh:0.75")
    assert combos_of(w, 0.25) == idx(suited("A", "K"))
    assert combos_of(w, 1.0) == idx(offsuit("A", "K"))
    w = parse_range("AhKh:0.75,AKs:0.25")
    assert combos_of(w, 0.75) == idx({"AhKh"}) and int(np.sum(w == 0.25)) == 3


def test_postflop_solver_example_ranges():
    oop, ip = parse_range(OOP), parse_range(IP)
    # 9 pairs, A8s-AKs, A5s-A4s, AJo-AKo, K9s-KQs, KQo, QTs-QJs, JTs, 96s-98s, 85s-87s,
    # 75s-76s, 65s, 54s
    assert int(oop.sum()) == 54 + 24 + 8 + 36 + 16 + 12 + 8 + 4 + 12 + 12 + 8 + 4 + 4 == 202
    assert int(ip.sum()) == 66 + 44 + 48 + 32 + 24 + 16 + 12 + 12 + 12 + 8 + 8 + 8 + 8 == 298
    expected_oop = (set().union(*(pair(r) for r in "6789TJQKA"))
                    | set().union(*(suited("A", r) for r in "89TJQK45"))
                    | set().union(*(offsuit("A", r) for r in "JQK"))
                    | set().union(*(suited("K", r) for r in "9TJQ")) | offsuit("K", "Q")
                    | suited("Q", "T") | suited("Q", "J") | suited("J", "T")
                    | set().union(*(suited(h, lo) for h, lo in
                                    ["96", "97", "98", "85", "86", "87", "75", "76", "65",
                                     "54"])))
    assert combos_of(oop) == idx(expected_oop)
    board = parse_board("Td9d6hQc")
    unblocked = {c for c in expected_oop if not {c[:2], c[2:]} & {"Td", "9d", "6h", "Qc"}}
    assert combos_of(remove_blocked(oop, board)) == idx(unblocked)
    assert len(unblocked) == 202 - 35  # 66, 99, TT, QQ: 12; A9s ATs AQs AQo: 6; K9s KTs KQs
    # KQo: 6; QTs QJs JTs: 4; 96s 97s 98s 86s 76s 65s: 7


@pytest.mark.parametrize(("text", "token"), [
    ("AAo", "AAo"), ("89", "89"), ("AK,,QQ", ""), ("QQ,AQo:1.1", "AQo:1.1"),
    ("AQo-AQo", "AQo-AQo"), ("AQo-86s", "AQo-86s"), ("AQo-KQo", "AQo-KQo"),
    ("K2-K5", "K2-K5"), ("AhAs-QsQh", "AhAs-QsQh"), ("AsAs", "AsAs"), ("AKQ", "AKQ"),
    ("K9s.67", "K9s.67"), ("QQ,A K", "A K"), ("XX+", "XX+"), ("AK+-AJ", "AK+-AJ"),
    ("AsKS", "AsKS"), ("66+:2", "66+:2"),
])
def test_bad_tokens_raise_one_line_naming_them(text, token):
    with pytest.raises(RcfrError) as err:
        parse_range(text)
    message = str(err.value)
    assert "\n" not in message and f"token {token!r}" in message


def test_not_a_string():
    with pytest.raises(RcfrError):
        parse_range(None)


def test_every_class_of_the_13x13_grid():
    """All 169 classes together cover each combo exactly once."""
    ranks = "23456789TJQKA"
    total = np.zeros(NUM_COMBOS)
    for i, j in itertools.product(range(13), range(13)):
        hi, lo = ranks[max(i, j)], ranks[min(i, j)]
        text = hi + lo if i == j else hi + lo + ("s" if i > j else "o")
        total += parse_range(text)
    assert np.array_equal(total, np.ones(NUM_COMBOS))

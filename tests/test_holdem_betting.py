"""Bet-size strings, spot files and the postflop action tree of real-card hold'em."""

import math
import re

import pytest

from rcfr.core.errors import RcfrError
from rcfr.games.holdem.action_tree import (
    RIVER,
    TURN,
    TreeConfig,
    build_action_tree,
    count_nodes,
    lines,
)
from rcfr.games.holdem.bet_sizes import (
    ALLIN,
    CHIPS,
    GEOMETRIC,
    POT,
    PREV,
    BetSize,
    parse_bet_size,
    parse_bet_sizes,
    sizes_str,
)
from rcfr.games.holdem.combos import combo_from_str
from rcfr.games.holdem.spot import load_spot, spot_from_dict

INF = math.inf

# postflop-solver's README / examples/basic.rs spot
BASIC = """
board = "Td9d6hQc"
pot = 200
stack = 900
[ranges]
oop = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
ip = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"
[bets]
bet = "60%, e, a"
raise = "2.5x"
[bets.river]
donk = "50%"
[thresholds]
add_allin = 1.5
force_allin = 0.15
merging = 0.1
"""


@pytest.mark.parametrize("text, size", [
    ("0%", BetSize(POT, 0.0)), ("75%", BetSize(POT, 0.75)), ("112.5%", BetSize(POT, 1.125)),
    ("1.001x", BetSize(PREV, 1.001)), ("3.5X", BetSize(PREV, 3.5)),
    ("0c", BetSize(CHIPS, 0, 0)), ("123C", BetSize(CHIPS, 123, 0)),
    ("0c1r", BetSize(CHIPS, 0, 1)), ("100C100R", BetSize(CHIPS, 100, 100)),
    ("e", BetSize(GEOMETRIC, 0, INF)), ("2e", BetSize(GEOMETRIC, 2, INF)),
    ("E37.5%", BetSize(GEOMETRIC, 0, 0.375)), ("100e.5%", BetSize(GEOMETRIC, 100, 0.005)),
    ("a", BetSize(ALLIN)), ("A", BetSize(ALLIN)),
])
def test_bet_size_forms(text, size):
    """postflop-solver's own table of sizes, read as a raise."""
    assert parse_bet_size(text, raise_=True) == size


@pytest.mark.parametrize("token", [
    "", "0", "1.23", "%", "+42%", "-30%", "x", "0x", "1x", "c", "12.3c", "10c10", "42cr",
    "c3r", "0c0r", "123c101r", "1c2r3", "12c3.4r", "0e", "2.7e", "101e", "3e7", "E%",
    "1e2e3", "bet", "1a", "a1", "1_0%", " 5%",
])
def test_bad_bet_sizes_name_the_token(token):
    with pytest.raises(RcfrError, match=re.escape(f"bets.raise: bad bet size {token!r}")):
        parse_bet_size(token, raise_=True, where="bets.raise")


def test_bet_size_lists():
    sizes = parse_bet_sizes("a, 50c, e,", where="bets.bet")
    assert sizes == (BetSize(CHIPS, 50, 0), BetSize(GEOMETRIC, 0, INF), BetSize(ALLIN))
    raises = parse_bet_sizes("e200%, 2.5x, 25%", raise_=True)
    assert raises == (BetSize(POT, 0.25), BetSize(PREV, 2.5), BetSize(GEOMETRIC, 0, 2.0))
    assert parse_bet_sizes(sizes_str(raises), raise_=True) == raises
    assert parse_bet_sizes("") == ()
    for text, token in [("60%, 2.5x", "2.5x"), (",", ""), ("20c3r", "20c3r")]:
        with pytest.raises(RcfrError, match=f"bets.bet: bad bet size {token!r}"):
            parse_bet_sizes(text, where="bets.bet")


def _tree(street=RIVER, pot=100, stack=100, bet="50%", raise_="", donk=None, **thresholds):
    sizes = (parse_bet_sizes(bet), parse_bet_sizes(raise_, True))
    donks = (None, None, None if donk is None else parse_bet_sizes(donk))
    return build_action_tree(TreeConfig(street, pot, stack, ((sizes, sizes),) * 3, donks,
                                        **thresholds))


def _lines(root):
    return [" / ".join(line) for line in lines(root)]


def test_river_one_bet_size():
    """A river spot, one 50% bet and no raise: exactly these five lines."""
    assert _lines(_tree()) == [
        "bet 50 / call", "bet 50 / fold", "check / bet 50 / call", "check / bet 50 / fold",
        "check / check"]
    counts = count_nodes(_tree())
    assert (counts["decision"], counts["fold"], counts["showdown"], counts["chance"]) == (
        4, 2, 3, 0)


def test_river_raise_all_in():
    """With an all-in raise: facing it, only fold or call."""
    assert _lines(_tree(raise_="a")) == [
        "bet 50 / allin 100 / call", "bet 50 / allin 100 / fold", "bet 50 / call",
        "bet 50 / fold", "check / bet 50 / allin 100 / call", "check / bet 50 / allin 100 / fold",
        "check / bet 50 / call", "check / bet 50 / fold", "check / check"]


def test_raise_clamped_to_min_raise():
    """A 1.5x raise of 50 (75) is below the minimum raise (to 100): it becomes 100."""
    root = _tree(stack=1000, raise_="1.5x")
    assert [str(a) for a in root.children[1].actions] == ["fold", "call", "raise 100"]


def test_add_allin_threshold():
    """All-in joins the bets when it is at most add_allin times the pot."""
    assert [str(a) for a in _tree(stack=150, add_allin=1.5).actions] == [
        "check", "bet 50", "allin 150"]
    assert [str(a) for a in _tree(stack=151, add_allin=1.5).actions] == ["check", "bet 50"]


def test_add_allin_on_raises():
    """Facing 50 with 200 behind a pot of 100: the all-in (200) is at most 50 plus 1.5 times the
    pot after the call (200), so it joins the raises; the first bet gets none (200 > 150)."""
    root = _tree(stack=200, add_allin=1.5)
    assert [str(a) for a in root.actions] == ["check", "bet 50"]
    assert [str(a) for a in root.children[1].actions] == ["fold", "call", "allin 200"]


def test_geometric_raise():
    """e as a raise on the turn facing the street's first bet: 2 streets less the 1 bet made
    plus 1, so 2; the pot after the call is 200 with 950 behind: 50 + round(200 r), r =
    (sqrt(10.5) - 1) / 2, raises to 274."""
    root = _tree(street=TURN, pot=100, stack=1000, raise_="e")
    assert [str(a) for a in root.children[1].actions] == ["fold", "call", "raise 274"]


def test_force_allin_threshold():
    """A pot bet of 100 with 130 behind: the pot after the call is 300 and 15% of it is 45,
    so 100 + 45 >= 130 makes the bet all-in; with 146 behind it stays a bet."""
    assert [str(a) for a in _tree(bet="100%", stack=130, force_allin=0.15).actions] == [
        "check", "allin 130"]
    assert [str(a) for a in _tree(bet="100%", stack=146, force_allin=0.15).actions] == [
        "check", "bet 100"]


def test_bets_above_the_stack_become_all_in():
    assert [str(a) for a in _tree(bet="50%, 150%, 300%", stack=120).actions] == [
        "check", "bet 50", "allin 120"]


def test_merging_threshold():
    """From the largest down: (1 + 0.55) x 1.1 < 2 keeps 55; (1 + 0.5) x 1.1 >= 1.55 merges 50
    into it."""
    assert [str(a) for a in _tree(bet="50%, 55%, 100%", stack=1000, merging=0.1).actions] == [
        "check", "bet 55", "bet 100"]
    assert [str(a) for a in _tree(bet="50%, 55%, 100%", stack=1000).actions] == [
        "check", "bet 50", "bet 55", "bet 100"]


def test_geometric_size():
    """2e on the turn with 900 behind a pot of 200: the pot grows by (1 + 2r) a street and ends
    all-in after two, r = (sqrt(10) - 1) / 2, so the bet is round(200 r) = 216."""
    root = _tree(street=TURN, pot=200, stack=900, bet="e")
    assert [str(a) for a in root.actions] == ["check", "bet 216"]


def test_donk_sizes_only_after_oop_calls():
    """River donk sizes replace OOP's bets only after OOP called the turn's last bet."""
    root = _tree(street=TURN, pot=100, stack=1000, bet="100%", raise_="", donk="25%")
    check_check = root.children[0].children[0].children[0]  # check, check, deal
    bet_call = root.children[0].children[1].children[1].children[0]  # check, bet, call, deal
    call = root.children[1].children[1].children[0]  # bet, IP calls, deal
    assert [str(a) for a in check_check.actions] == ["check", "bet 100"]
    assert [str(a) for a in bet_call.actions] == ["check", "bet 75"]  # 25% of 300
    assert [str(a) for a in call.actions] == ["check", "bet 300"]


def test_all_in_on_the_flop_runs_out_both_cards():
    root = _tree(street=0, pot=100, stack=50, bet="a")
    assert "allin 50 / call / deal / deal" in _lines(root)
    counts = count_nodes(root)
    # all-in called (either player) deals 2 cards, a flop check-check 1 and then on the turn 3
    # (all-in called twice, check-check once; the river ends without one): 2 + 2 + 1 + 3
    assert counts["chance"] == 8


def test_basic_spot_counts_match_postflop_solver():
    """Node counts per street of postflop-solver's example spot, from its turn, flop and river:
    the numbers its count_num_action_nodes gives for the same TreeConfig (its action tree built
    from its own source)."""
    import tomllib
    data = tomllib.loads(BASIC)
    for board, want in [("Td9d6hQc", (0, 51, 152)), ("Td9d6h", (27, 139, 304)),
                        ("Td9d6hQc2s", (0, 0, 27))]:
        counts = count_nodes(spot_from_dict({**data, "board": board}).action_tree())
        assert (counts["flop"], counts["turn"], counts["river"]) == want


@pytest.mark.parametrize("street, pot, stack, sizes, donks, thresholds, want", [
    (0, 60, 500, [("33%, 75%", "3x, 20c2r"), ("e120%", "2e150%"), ("50%, a", "60%")],
     ("25%", None), (1.5, 0.2, 0.1), (141, 670, 1590)),
    (2, 7, 1000, [("", "")] * 2 + [("0%, 10c, 3e", "1.1x, a")], (None, None), (0, 0, 0.3),
     (0, 0, 1251)),
    (1, 100, 50, [("200%", "2x")] * 3, (None, None), (3, 0.3, 0), (0, 9, 11)),
])
def test_counts_match_postflop_solver(street, pot, stack, sizes, donks, thresholds, want):
    """Chip raises with a cap, geometric raises with a largest size, 0% bets (one chip) and
    1.1x raises (clamped to the minimum raise), turn donks, small stacks: node counts per
    street equal postflop-solver's for the same TreeConfig (its action tree built from its own
    source)."""
    bets = tuple(((b, r),) * 2 for b, r in (
        (parse_bet_sizes(b), parse_bet_sizes(r, True)) for b, r in sizes))
    donks = (None, *(None if d is None else parse_bet_sizes(d) for d in donks))
    counts = count_nodes(build_action_tree(TreeConfig(street, pot, stack, bets, donks,
                                                      *thresholds)))
    assert (counts["flop"], counts["turn"], counts["river"]) == want


def test_spot_file(tmp_path):
    path = tmp_path / "spot.toml"
    path.write_text(BASIC)
    spot = load_spot(path)
    assert (spot.street, spot.pot, spot.stack) == (TURN, 200, 900)
    assert spot.ranges[0].sum() == 167 and spot.ranges[1].sum() == 250
    assert spot.ranges[0][combo_from_str("QhQc")] == 0  # blocked by the board
    assert spot.thresholds == {"add_allin": 1.5, "force_allin": 0.15, "merging": 0.1}
    bet, raise_ = spot.bets[RIVER][1]
    assert sizes_str(bet) == "60%, e, a" and sizes_str(raise_) == "2.5x"
    assert spot.donks[TURN] is None and sizes_str(spot.donks[RIVER]) == "50%"


def test_spot_bet_tables_most_specific_wins():
    spot = spot_from_dict({
        "board": "Td9d6h", "pot": 10, "stack": 100, "ranges": {"oop": "AA", "ip": "KK"},
        "bets": {"bet": "50%", "ip": {"bet": "33%"}, "turn": {"bet": "75%", "raise": "3x"},
                 "river": {"ip": {"bet": "a"}}, "donk": "25%"}})
    assert [[sizes_str(b) for b, _ in street] for street in spot.bets] == [
        ["50%", "33%"], ["75%", "75%"], ["50%", "a"]]
    assert sizes_str(spot.bets[TURN][0][1]) == "3x" and spot.bets[0][0][1] == ()
    assert [None if d is None else sizes_str(d) for d in spot.donks] == [None, "25%", "25%"]
    assert spot.thresholds == {"add_allin": 0.0, "force_allin": 0.0, "merging": 0.0}


_OK = {"board": "Td9d6h", "pot": 10, "stack": 100, "ranges": {"oop": "AA", "ip": "KK"}}


@pytest.mark.parametrize("change, message", [
    ({"board": "Td9d"}, r"^board: a board has 3 or 4 or 5 cards, not 2"),
    ({"board": "TdTd6h"}, r"^board: a card repeats"),
    ({"board": 5}, r"^board: a board is a string"),
    ({"pot": 0}, r"^pot: a positive whole number"),
    ({"stack": 1.5}, r"^stack: a positive whole number"),
    ({"pot": True}, r"^pot: "),
    ({"ranges": {"oop": "AA"}}, r"^ranges\.ip: missing"),
    ({"ranges": {"oop": "AA", "ip": "KK", "btn": "QQ"}}, r"^ranges\.btn: unknown key"),
    ({"ranges": {"oop": "AAo", "ip": "KK"}}, r"^ranges\.oop: bad range token 'AAo'"),
    ({"ranges": {"oop": "AA", "ip": "TdTh,9c9d:0.5"}}, r"^ranges\.ip: no combo is left"),
    ({"rake": 0.05}, r"^rake: unknown key"),
    ({"bets": {"bet": "60%, 2.5x"}}, r"^bets\.bet: bad bet size '2\.5x'"),
    ({"bets": {"turn": {"ip": {"raise": "3"}}}}, r"^bets\.turn\.ip\.raise: bad bet size '3'"),
    ({"bets": {"river": {"ip": {"donk": "50%"}}}}, r"^bets\.river\.ip\.donk: unknown key"),
    ({"bets": {"flop": {"donk": "50%"}}}, r"^bets\.flop\.donk: no donk bets on the flop"),
    ({"bets": {"bet": 60}}, r"^bets\.bet: bet sizes are a string"),
    ({"bets": {"river": "a"}}, r"^bets\.river: a table"),
    ({"thresholds": {"merging": -0.1}}, r"^thresholds\.merging: a number, 0 or more"),
    ({"thresholds": {"add_all_in": 1}}, r"^thresholds\.add_all_in: unknown key"),
])
def test_bad_spots_name_the_key(change, message):
    with pytest.raises(RcfrError, match=message) as err:
        spot_from_dict({**_OK, **change})
    assert "\n" not in str(err.value)


def test_missing_key_and_bad_files(tmp_path):
    with pytest.raises(RcfrError, match=r"^stack: missing"):
        spot_from_dict({k: v for k, v in _OK.items() if k != "stack"})
    with pytest.raises(RcfrError, match="cannot read the spot file"):
        load_spot(tmp_path / "none.toml")
    (tmp_path / "bad.toml").write_text("board = \n")
    with pytest.raises(RcfrError, match="is not TOML") as err:
        load_spot(tmp_path / "bad.toml")
    assert "\n" not in str(err.value)

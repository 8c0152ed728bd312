"""OpenSpiel games through the adapter, and policies converted to and from OpenSpiel: sizes,
exploitability, LP value and CFR+ agree with OpenSpiel's own computations."""

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install 'rcfr[openspiel]')"
)

from conftest import random_policy  # noqa: E402
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402
from open_spiel.python.algorithms.get_all_states import get_all_states  # noqa: E402

import rcfr  # noqa: E402
from rcfr.games.openspiel_game import OpenSpielGame  # noqa: E402
from rcfr.interop.openspiel import (  # noqa: E402
    from_openspiel_policy,
    openspiel_counterpart,
    to_openspiel_policy,
)

SEEDS = (0, 1, 2)


def openspiel_sizes(os_game):
    """Histories, terminals, information sets and sequences by OpenSpiel's own enumeration."""
    states = get_all_states(os_game, include_terminals=True, include_chance_states=True)
    infosets = {}
    for s in states.values():
        if not s.is_terminal() and not s.is_chance_node():
            p = s.current_player()
            infosets[(p, s.information_state_string(p))] = len(s.legal_actions())
    terminals = sum(s.is_terminal() for s in states.values())
    return len(states), terminals, len(infosets), sum(infosets.values())


def our_sizes(tree):
    s = tree.sizes()
    return s["histories"], s["terminals"], s["infosets"], s["sequences"]


def openspiel_exploitability(osp):
    """OpenSpiel's exploitability of a python tabular policy (C++ and python implementations)."""
    cpp = pyspiel.exploitability(osp.game, os_policy.python_policy_to_pyspiel_policy(osp))
    py = os_exploitability.exploitability(osp.game, osp)
    return cpp, py


# -- the adapter ------------------------------------------------------------------------------
@pytest.mark.parametrize("native, os_name, sizes", [
    ("kuhn", "kuhn_poker", (58, 30, 12, 24)),
    ("leduc", "leduc_poker", (9457, 5520, 936, 2184)),
])
def test_sizes_match_ours_and_openspiel(native, os_name, sizes):
    tree = rcfr.compile_game(f"openspiel:{os_name}")
    assert our_sizes(tree) == sizes
    assert our_sizes(rcfr.compile_game(native)) == sizes
    assert openspiel_sizes(pyspiel.load_game(os_name)) == sizes


def test_game_string_round_trips():
    kuhn = rcfr.load_game("openspiel:kuhn_poker")
    assert str(kuhn) == "openspiel:kuhn_poker" and kuhn.big_blind == 1.0
    assert rcfr.load_game("openspiel:leduc_poker").big_blind == 1.0
    goof = rcfr.load_game("openspiel:goofspiel(num_cards=4,imp_info=True,points_order=descending)")
    assert goof.big_blind is None
    assert goof.os_game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    for game in (kuhn, goof, rcfr.load_game("openspiel:liars_dice(dice_sides=3)")):
        again = rcfr.load_game(str(game))
        assert isinstance(again, OpenSpielGame) and str(again) == str(game)
        assert rcfr.compile_game(again).fingerprint() == rcfr.compile_game(game).fingerprint()


def test_simultaneous_game_is_made_turn_based():
    tree = rcfr.compile_game("openspiel:matrix_rps")
    assert our_sizes(tree) == (13, 9, 2, 6)
    assert rcfr.solve_lp(tree).value == pytest.approx(0.0, abs=1e-12)


def test_lp_value_of_openspiel_kuhn():
    assert rcfr.solve_lp("openspiel:kuhn_poker").value == pytest.approx(-1 / 18, abs=1e-9)


def test_cfr_plus_on_openspiel_kuhn_matches_native():
    ours = rcfr.CFRSolver("kuhn", "cfr+").run(200).average_policy()
    theirs = rcfr.CFRSolver("openspiel:kuhn_poker", "cfr+").run(200).average_policy()
    assert rcfr.exploitability(theirs) == pytest.approx(rcfr.exploitability(ours), abs=1e-12)
    assert rcfr.exploitability(ours) < 1e-3


# -- policies: ours -> OpenSpiel -> ours --------------------------------------------------------
@pytest.mark.parametrize("game", ["kuhn", "leduc", "openspiel:kuhn_poker", "openspiel:leduc_poker"])
def test_exploitability_matches_openspiel(game):
    tree = rcfr.compile_game(game)
    for seed in SEEDS:
        policy = random_policy(tree, seed)
        ours = rcfr.exploitability(policy)
        cpp, py = openspiel_exploitability(to_openspiel_policy(policy))
        assert ours > 0.1
        assert cpp == pytest.approx(ours, abs=1e-9)
        assert py == pytest.approx(ours, abs=1e-9)


@pytest.mark.parametrize("game", ["kuhn", "leduc", "openspiel:leduc_poker"])
def test_round_trip_is_exact(game):
    tree = rcfr.compile_game(game)
    for seed in SEEDS:
        policy = random_policy(tree, seed)
        back = from_openspiel_policy(to_openspiel_policy(policy), tree)
        assert np.array_equal(back.probs, policy.probs)


def test_native_policy_moves_to_the_adapter_game():
    native = random_policy(rcfr.compile_game("leduc"), 7)
    adapted = from_openspiel_policy(to_openspiel_policy(native), "openspiel:leduc_poker")
    assert rcfr.exploitability(adapted) == pytest.approx(rcfr.exploitability(native), abs=1e-12)
    assert rcfr.expected_value(adapted) == pytest.approx(rcfr.expected_value(native), abs=1e-12)


def test_from_any_openspiel_policy():
    uniform = os_policy.UniformRandomPolicy(pyspiel.load_game("leduc_poker"))
    for game in ("leduc", "openspiel:leduc_poker"):
        ours = from_openspiel_policy(uniform, game)
        assert np.array_equal(ours.probs, rcfr.TabularPolicy.uniform(game).probs)


def test_openspiel_cpp_policies_convert_both_ways():
    """OpenSpiel's C++ policies (a ``pyspiel.TabularPolicy`` such as its Kuhn equilibria, any
    ``pyspiel.Policy``) convert to ours, which raised ``AttributeError`` (they have no
    ``game``), and ours convert to them."""
    game = pyspiel.load_game("kuhn_poker")
    nash = pyspiel.kuhn_poker.get_optimal_policy(0.2)  # alpha = 0.2: P(bet with the jack)
    table = {k: dict(v) for k, v in nash.policy_table().items()}
    for name in ("kuhn", "openspiel:kuhn_poker"):
        ours = from_openspiel_policy(nash, name)
        assert rcfr.evaluate(name, ours).exploitability == pytest.approx(0.0, abs=1e-12)
        assert rcfr.evaluate(name, ours).value == pytest.approx(-1 / 18, abs=1e-12)
        back = to_openspiel_policy(ours, cpp=True)
        assert isinstance(back, pyspiel.TabularPolicy)
        got = {k: dict(v) for k, v in back.policy_table().items()}
        assert got.keys() == table.keys()
        assert all(got[k] == pytest.approx(table[k], abs=1e-15) for k in table)
        assert pyspiel.exploitability(game, back) == pytest.approx(0.0, abs=1e-12)
    policy = random_policy(rcfr.compile_game("kuhn"), 0)
    cpp = to_openspiel_policy(policy, cpp=True)
    assert pyspiel.exploitability(game, cpp) == pytest.approx(
        rcfr.evaluate("kuhn", policy).exploitability, abs=1e-12)
    assert np.allclose(from_openspiel_policy(cpp, "kuhn").probs, policy.probs, atol=1e-15)
    for uniform in (pyspiel.UniformRandomPolicy(game), pyspiel.UniformPolicy()):
        assert np.array_equal(from_openspiel_policy(uniform, "kuhn").probs,
                              rcfr.TabularPolicy.uniform("kuhn").probs)
    with pytest.raises(rcfr.RcfrError, match="no information state"):
        from_openspiel_policy(pyspiel.TabularPolicy({"0": [(0, 1.0), (1, 0.0)]}), "kuhn")


def test_counterparts():
    assert openspiel_counterpart("kuhn") == "kuhn_poker"
    assert openspiel_counterpart("leduc") == "leduc_poker"
    assert openspiel_counterpart("openspiel:liars_dice") == "liars_dice"


# -- goofspiel and liar's dice (native modules) ------------------------------------------------
def test_goofspiel_matches_openspiel():
    os_name = "goofspiel(imp_info=True,num_cards=4,points_order=descending)"
    counterpart = openspiel_counterpart("goofspiel(num_cards=4)")
    assert str(pyspiel.load_game(counterpart)) == str(pyspiel.load_game(os_name))
    tree = rcfr.compile_game("goofspiel(num_cards=4)")
    adapter = rcfr.compile_game(f"openspiel:{os_name}")
    assert our_sizes(tree) == our_sizes(adapter) == (1077, 576, 162, 348)
    assert openspiel_sizes(adapter.game.os_game) == our_sizes(tree)
    for seed in SEEDS:
        policy = random_policy(tree, seed)
        osp = to_openspiel_policy(policy)
        cpp, py = openspiel_exploitability(osp)
        assert cpp == pytest.approx(rcfr.exploitability(policy), abs=1e-9)
        assert py == pytest.approx(rcfr.exploitability(policy), abs=1e-9)
        assert np.array_equal(from_openspiel_policy(osp, tree).probs, policy.probs)


def test_goofspiel_random_points_matches_openspiel():
    tree = rcfr.compile_game("goofspiel(num_cards=3,points_order=random)")
    policy = random_policy(tree, 0)
    cpp, _ = openspiel_exploitability(to_openspiel_policy(policy))
    assert cpp == pytest.approx(rcfr.exploitability(policy), abs=1e-9)


def test_goofspiel_5_sizes():
    ours = rcfr.compile_game("goofspiel")
    theirs = rcfr.compile_game(
        "openspiel:goofspiel(num_cards=5,imp_info=True,points_order=descending)")
    assert ours.num_infosets == theirs.num_infosets == 2124
    assert our_sizes(ours) == our_sizes(theirs)


def test_goofspiel_with_open_bids_differs_from_openspiel():
    policy = rcfr.TabularPolicy.uniform("goofspiel(num_cards=4,imp_info=false)")
    with pytest.raises(rcfr.RcfrError, match="OpenSpiel merges our information sets"):
        to_openspiel_policy(policy)


def test_liars_dice_matches_openspiel():
    tree = rcfr.compile_game("liars_dice(faces=3)")
    assert openspiel_counterpart(tree) == "liars_dice(dice_sides=3,numdice=1)"
    for seed in SEEDS:
        policy = random_policy(tree, seed)
        cpp, py = openspiel_exploitability(to_openspiel_policy(policy))
        assert cpp == pytest.approx(rcfr.exploitability(policy), abs=1e-9)
        assert py == pytest.approx(rcfr.exploitability(policy), abs=1e-9)


# -- bad input: one-line errors -------------------------------------------------------------
@pytest.mark.parametrize("spec, message", [
    ("openspiel:no_such_game", "unknown OpenSpiel game 'no_such_game'"),
    ("openspiel:kuhn_poker(players=3)", "has 3 players"),
    ("openspiel:sheriff", "is not zero-sum"),
    ("openspiel:tiny_hanabi", "is not zero-sum"),
    ("openspiel:kuhn_poker(foo=1)", "Unknown parameter 'foo'"),
    ("openspiel:kuhn_poker(players=", "cannot load OpenSpiel game"),
    ("openspiel:", "no OpenSpiel game named"),
])
def test_bad_games_are_one_line_errors(spec, message, capfd):
    with pytest.raises(rcfr.RcfrError, match=message) as err:
        rcfr.load_game(spec)
    assert "\n" not in str(err.value)
    assert capfd.readouterr().err == ""  # OpenSpiel's own printout is silenced


@pytest.mark.parametrize("game, os_game, message", [
    ("leduc(canonical=true)", None, "deals ranks"),
    ("matrix(payoffs=[[1,2],[3,4]])", None, "has no OpenSpiel counterpart"),
    ("kuhn", "leduc_poker", "does not match OpenSpiel's leduc_poker"),
])
def test_policy_without_counterpart_is_refused(game, os_game, message):
    with pytest.raises(rcfr.RcfrError, match=message) as err:
        to_openspiel_policy(rcfr.TabularPolicy.uniform(game), os_game)
    assert "\n" not in str(err.value)


def test_missing_openspiel_says_how_to_install(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pyspiel", None)  # import pyspiel fails
    hint = r"pip install -e '\.\[openspiel\]' in the rcfr checkout"  # not on a package index
    with pytest.raises(rcfr.RcfrError, match=hint):
        rcfr.load_game("openspiel:kuhn_poker")

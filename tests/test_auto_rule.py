"""``-a auto``: the rule best on the game's kind in the convergence suite, printed."""

import json

import pytest
from conftest import run_cli

import rcfr
from rcfr.games.suite import SUITE
from rcfr.solvers.auto import AUTO_RULES, auto_rule, game_kind

KINDS = {"kuhn": "poker", "leduc": "poker", "big_leduc": "poker", "small_matrix": "matrix",
         "goofspiel3": "goofspiel", "goofspiel4": "goofspiel", "liars_dice3": "dice",
         "liars_dice4": "dice", "battleship2x2": "battleship", "battleship2x3": "battleship",
         "libratus_endgame3": "poker", "libratus_endgame4": "poker"}


@pytest.mark.parametrize("entry", SUITE, ids=lambda e: e.name)
def test_every_suite_game_has_its_kind(entry):
    if entry.game_string.startswith("openspiel:"):
        pytest.importorskip("pyspiel")
    assert game_kind(entry.game_string) == KINDS[entry.name]


def test_other_games_and_forms():
    assert game_kind("nl_holdem2(stack=8,buckets=3)") == "poker"
    assert game_kind("rps") == "matrix"
    assert game_kind(rcfr.compile_game("liars_dice(faces=3)")) == "dice"
    assert game_kind("random_game(seed=0)") == "other"


def test_the_command_line_prints_the_choice_and_runs_it(capsys):
    code, out, err = run_cli(capsys, "solve", "leduc", "-a", "auto", "-n", 3, "--json")
    assert code == 0
    rule, line = auto_rule("leduc")
    assert err.strip() == line == f"auto: {rule} ({AUTO_RULES['poker'][1]} in the convergence " \
                                  "suite; poker games)"
    assert json.loads(out)["algorithm"] == rule == "dcfr"


def test_the_api_runs_the_choice():
    result = rcfr.solve("goofspiel(num_cards=3)", "auto", 3)
    assert result.algorithm == AUTO_RULES["goofspiel"][0]

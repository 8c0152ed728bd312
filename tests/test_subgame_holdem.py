"""Nested subgame solving for off-tree wagers in 2-NL Hold'em(k) (issue 26): wager
abstractions (``@P``, ``@HP``, ...) apply to nl_holdem2 in both betting rounds, their
translated strategies lift exactly to the full game, and nested re-solving of an off-tree
opening keeps Brown & Sandholm's (2017, sec. 6) safety inequality where translation does not."""

from __future__ import annotations

import numpy as np
import pytest

import rcfr
from rcfr.evaluate import evaluate, expected_value
from rcfr.games.transforms.parse import parse_abstraction
from rcfr.subgame import nested_resolve

GAME = "nl_holdem2(stack=8)"


@pytest.fixture(scope="module")
def blueprint():
    """CFR+ (100 iterations) on 2-NL Hold'em(8) with the pot-only wager abstraction, lifted."""
    return rcfr.solve(GAME, "cfr+", 100, abstraction="P").policy


def test_wager_abstraction_sizes_and_exact_lift(blueprint):
    """Preflop the dealer faces 2 chips: ``P`` keeps the pot raise (to 6) and all-in (to 8)
    besides fold and call, so the abstract game is smaller; soft geometric translation maps
    the others between them; the lifted strategy plays only
    abstract wagers, so its full-game value is the abstract strategy's (to rounding)."""
    game = rcfr.load_game(GAME)
    ab = parse_abstraction("P", game)
    root = game.new_initial_state()
    while root.is_chance_node():
        root.apply_action(root.legal_actions()[0])
    assert root.legal_actions() == [0, 1, 4, 5, 6, 7, 8]
    assert ab.actions(root) == [0, 1, 6, 8]
    # a raise to 7 is pot fraction x = (7 - 2) / 4 = 1.25 between 1 (to 6) and 1.5 (all-in):
    # P(6) = (1 / 1.25 - 1 / 1.5) / (1 - 1 / 1.5) = 0.4
    (a, p), (b, q) = ab.translate(root, root, 7)
    assert (a, b) == (6, 8) and p == pytest.approx(0.4) and q == pytest.approx(0.6)
    abstract = rcfr.solve(f"{GAME}@P", "cfr+", 100).policy
    assert expected_value(blueprint) == pytest.approx(expected_value(abstract), abs=1e-12)
    assert abstract.tree.num_nodes < rcfr.compile_game(GAME).num_nodes / 4


@pytest.mark.parametrize("method", ["resolve", "maxmargin"])
def test_nested_resolve_is_safe_against_off_tree_openings(blueprint, method):
    """Every off-tree opening of ``P`` (raises to 4, 5 and 7) re-solved exactly (LP gadgets):
    player 0 gains nothing by it over its best abstract opening (the safety inequality),
    where translation lets it gain 0.077 chips by raising to 7.  Player 1's best-response
    value is untouched (only its strategy after the off-tree openings changes), so the
    full-game exploitability falls."""
    ab = parse_abstraction("P", GAME)
    out = nested_resolve(blueprint, ab, "actions:1", method, algorithm="lp")
    assert sorted(r.name for r in out.rows) == ["raise to 4", "raise to 5", "raise to 7"]
    floor = out.in_tree_value[0]
    gains = {r.name: r.translation_value - floor for r in out.rows}
    assert gains["raise to 7"] > 0.05
    for r in out.rows:
        assert r.opponent == 0
        assert r.nested_value - floor < 1e-9
        assert r.resolved.min_margin > -1e-9
    before, after = evaluate(blueprint), evaluate(out.policy)
    assert after.best_response_values[1] == pytest.approx(before.best_response_values[1],
                                                           abs=1e-12)
    assert after.best_response_values[0] == pytest.approx(floor, abs=1e-9)
    assert after.exploitability < before.exploitability - 0.03
    assert np.isfinite(after.exploitability_mbb)

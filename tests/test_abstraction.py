"""Static abstractions (rcfr.abstraction): sizes of the thesis's abstract games counted by hand
from the rules, identity abstractions equal to the unabstracted solver bit for bit, the soft
geometric translation's properties, the exact full-game realization plan of a translated agent
(sequence-form constraints, and its best-response value against a Monte Carlo simulation of the
same agent), and one-line errors for bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rcfr
from rcfr.abstraction import (
    CardAbstraction,
    abstract_game,
    geometric_translation,
    lift,
    parse_abstraction,
)
from rcfr.cli import main
from rcfr.core.errors import RcfrError
from rcfr.evaluate import best_response, expected_value, realization_plans
from rcfr.games.transforms.abstract_game import AbstractGame

LEDUC = "leduc(canonical=true)"
ONE_CARD = "nl_one_card"


# -- sizes, by hand from the rules ---------------------------------------------------------
def leduc_round_sequences() -> tuple[int, int, int]:
    """One Leduc betting round (bet and one raise at most), player 0 first.  Player 0 acts at
    '' (check, bet), 'cr' and 'rr' (fold, call[, raise]); player 1 at 'c', 'r' and 'crr'.
    Returns (sequences of player 0, of player 1, ways the round ends in a call)."""
    p0 = 2 + 3 + 2  # '' {c, r}; 'cr' {f, c, r}; 'rr' {f, c}
    p1 = 2 + 3 + 2  # 'c' {c, r}; 'r' {f, c, r}; 'crr' {f, c}
    calls = 5  # cc, rc, crc, rrc, crrc
    return p0, p1, calls


@pytest.mark.parametrize("spec,buckets", [("JQK", 1), ("J.QK", 2), ("JQ.K", 2), ("J.Q.K", 3)])
@pytest.mark.parametrize("game", [LEDUC, "leduc"])
def test_leduc_abstraction_sizes(spec, buckets, game):
    p0, p1, calls = leduc_round_sequences()
    # a player's card bucket preflop; on the flop the bucket and "board pairs me or not"
    per_player = [buckets * s + buckets * 2 * calls * s for s in (p0, p1)]
    assert per_player == [77 * buckets, 77 * buckets]
    tree = abstract_game(game, spec)
    assert list(tree.num_sequences_per_player) == per_player
    # information sets: 3 decision points per player per round
    assert list(tree.num_infosets_per_player) == [buckets * 3 + buckets * 2 * calls * 3] * 2
    full = rcfr.compile_game(LEDUC)
    assert full.num_sequences == 2 * (3 * p0 + 9 * calls * p0) == 672


def one_card_sequences(fractions, cards=4, stack=10, ante=1) -> list[int]:
    """Sequences per player of no-limit one-card poker restricted to fold, call, all-in and
    raises to o * (1 + 2 f) chips (o: the contribution to match; rounded to a chip, kept
    between the smallest raise and all-in), enumerated from the betting rules."""
    counts = [0, 0]

    def walk(spent, last_raise, actor, acted):
        mine, o = spent[actor], spent[1 - actor]
        actions = (["f"] if o > mine else []) + ["c"]
        wagers = set()
        if o < stack:
            lowest = min(o + max(1, last_raise), stack)
            wagers = {stack} | {min(max(math.floor(o * (1 + 2 * f) + 0.5), lowest), stack)
                                for f in fractions}
        counts[actor] += len(actions) + len(wagers)
        if "f" not in actions and acted == 0:
            new = list(spent)
            walk(tuple(new), last_raise, 1 - actor, 1)  # a check opens the round to the other
        for k in sorted(wagers):
            new = list(spent)
            new[actor] = k
            walk(tuple(new), k - o, 1 - actor, acted + 1)

    walk((ante, ante), 0, 0, 0)
    return [cards * c for c in counts]


def test_one_card_null_and_pot_sizes_by_hand():
    # null: player 0 {check, all-in}, after check-all-in {fold, call}; player 1 {check,
    # all-in} after a check, {fold, call} after an all-in: 4 sequences per card each
    assert list(abstract_game(ONE_CARD, "null").num_sequences_per_player) == [16, 16]
    # P: root raise to 3; facing 3 the pot raise is to 9; facing 9 only all-in (written out
    # in the module docs of the test): 16 sequences per card for each player
    assert list(abstract_game(ONE_CARD, "P").num_sequences_per_player) == [64, 64]
    assert one_card_sequences(()) == [16, 16] and one_card_sequences((1.0,)) == [64, 64]


@pytest.mark.parametrize("spec,fractions", [("HP", (0.5, 1)), ("PD", (1, 2)),
                                            ("HPD", (0.5, 1, 2)), ("bets:0.25,3", (0.25, 3))])
def test_one_card_abstraction_sizes(spec, fractions):
    tree = abstract_game(ONE_CARD, spec)
    assert list(tree.num_sequences_per_player) == one_card_sequences(fractions)
    # with every pot fraction (steps of 1/64) the counting gives the full game
    assert one_card_sequences(tuple(f / 64 for f in range(1, 700))) == [1600, 1600]


# -- identity abstractions -----------------------------------------------------------------
@pytest.mark.parametrize("game", [LEDUC, ONE_CARD])
def test_identity_abstraction_is_cfr_plus_bit_for_bit(game):
    plain = rcfr.solve(game, "cfr+", 300)
    same = CardAbstraction(lambda state, player: state.information_state_string(player),
                           "separate")
    for abstraction in ("identity", same):
        result = rcfr.solve(game, "cfr+", 300, abstraction=abstraction)
        assert np.array_equal(result.policy.probs, plain.policy.probs)
        assert result.evaluation == plain.evaluation
        assert result.to_dict()["complexity_share"] == 1.0


def test_card_abstraction_from_a_table():
    # a table that merges Leduc's preflop Q and K information sets of player 0 only
    full = rcfr.compile_game(LEDUC)
    table = {k: k.replace("K|-|", "Q|-|") for k in full.infoset_keys}
    tree = abstract_game(LEDUC, CardAbstraction(table, "QK-preflop"))
    assert tree.num_sequences == 672 - 2 * 7  # one card's preflop round per player merged
    result = rcfr.solve(LEDUC, "cfr+", 50, abstraction=CardAbstraction(table, "QK-preflop"))
    q, k = (full.infoset_index(f"{c}|-|", 0) for c in "QK")
    assert np.array_equal(result.policy.infoset_probabilities(q),
                          result.policy.infoset_probabilities(k))


# -- translation ---------------------------------------------------------------------------
def test_geometric_translation_properties():
    rng = np.random.default_rng(0)
    for _ in range(500):
        sizes = sorted(set(np.round(rng.uniform(0.1, 5, size=rng.integers(1, 5)), 3)))
        x = float(rng.uniform(-1, 6))
        pairs = geometric_translation(x, sizes)
        probs = [p for _, p in pairs]
        assert 1 <= len(pairs) <= 2 and all(0.0 <= p <= 1.0 for p in probs)
        assert math.isclose(sum(probs), 1.0, rel_tol=0, abs_tol=1e-15)
        for i, s in enumerate(sizes):
            assert geometric_translation(s, sizes) == [(i, 1.0)]
    # Schnizlein et al.'s geometric similarity between A = 1/2 and B = 1 pot at x = 3/4:
    # P(A) = (A/x - A/B) / (1 - A/B) = (2/3 - 1/2) / (1/2) = 1/3
    (ia, pa), (ib, pb) = geometric_translation(0.75, [0.5, 1.0])
    assert (ia, ib) == (0, 1) and math.isclose(pa, 1 / 3) and math.isclose(pb, 2 / 3)
    assert geometric_translation(0.1, [0.5, 1.0]) == [(0, 1.0)]  # never to check or fold
    assert geometric_translation(9.0, [0.5, 1.0]) == [(1, 1.0)]


def test_bet_translation_in_one_card_poker():
    game = rcfr.load_game(ONE_CARD)
    hp = parse_abstraction("HP", game)
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    assert hp.actions(state) == [1, 2, 3, 10]  # check, half pot, pot, all-in
    # a raise to 4 chips is 1.5 pots, between P (1) and all-in (4.5 pots):
    # P(P) = (1/1.5 - 1/4.5) / (1 - 1/4.5) = 4/7
    (a, pa), (b, pb) = hp.translate(state, state, 4)
    assert (a, b) == (3, 10) and math.isclose(pa, 4 / 7) and math.isclose(pb, 3 / 7)
    assert hp.translate(state, state, 1) == [(1, 1.0)]
    # every abstract wager of every abstract history maps to itself with probability 1
    tree = abstract_game(game, hp)
    for n in range(tree.num_nodes):
        if tree.node_kind[n] in (0, 1):
            s = _replay(tree, n)
            for b in hp.actions(s):
                assert hp.translate(s, s, b) == [(b, 1.0)]
                assert hp.back(s, s, b) == b


def _replay(tree, node):
    path = []
    while node > 0:
        path.append(int(tree.node_action[node]))
        node = int(tree.node_parent[node])
    state = tree.game.base.new_initial_state() if isinstance(tree.game, AbstractGame) else \
        tree.game.new_initial_state()
    for a in reversed(path):
        state.apply_action(a)
    return state


@pytest.fixture(scope="module")
def translated_hp():
    full = rcfr.compile_game(ONE_CARD)
    abstract = abstract_game(full, "HP")
    result = rcfr.solve(abstract, "cfr+", 200)
    policy, plan = lift(full, abstract, result.policy.probs, abstract.game.abstraction,
                        with_plan=True)
    return full, abstract, result.policy, policy, plan


def test_translated_realization_plan_is_exact(translated_hp):
    full, _, _, policy, plan = translated_hp
    S = full.num_sequences
    assert plan[S] == plan[S + 1] == 1.0
    sums = np.add.reduceat(plan[:S], full.infoset_seq_start)
    assert np.max(np.abs(sums - plan[full.infoset_parent_seq])) < 1e-12
    assert np.all(plan >= 0)
    # the behavioural strategy realises the same plan
    assert np.max(np.abs(realization_plans(full, policy.probs) - plan)) < 1e-12


def test_translated_agent_best_response_matches_monte_carlo(translated_hp):
    full, abstract, abstract_policy, policy, _ = translated_hp
    hp = abstract.game.abstraction
    value, profile = best_response(full, policy, player=1)
    exact = -expected_value(full, profile)  # player 1's payoff with its best response
    assert math.isclose(exact, value, rel_tol=1e-12, abs_tol=1e-12)
    rng = np.random.default_rng(7)
    n = 20000
    payoffs = np.empty(n)
    for h in range(n):
        payoffs[h] = _play_hand(full, abstract, abstract_policy, profile, hp, rng)
    mean, se = payoffs.mean(), payoffs.std(ddof=1) / math.sqrt(n)
    assert abs(mean - exact) < 4 * se, (mean, exact, se)


def _play_hand(full, abstract, abstract_policy, br_profile, abstraction, rng) -> float:
    """One hand: player 0 is the translated agent (sampling its translations and actions),
    player 1 plays the pure best response; returns player 1's payoff."""
    real = full.game.new_initial_state()
    mirror = full.game.new_initial_state()  # the agent's abstract history
    while not real.is_terminal():
        player = real.current_player()
        if real.is_chance_node():
            outcomes = real.chance_outcomes()
            a = outcomes[rng.choice(len(outcomes), p=[p for _, p in outcomes])][0]
            real.apply_action(a)
            mirror.apply_action(a)
        elif player == 0:
            key = abstraction.key(mirror, 0)
            i = abstract.infoset_index(key, 0)
            acts = abstract.infoset_actions(i)
            b = int(acts[rng.choice(len(acts), p=abstract_policy.infoset_probabilities(i))])
            real.apply_action(abstraction.back(real, mirror, b))
            mirror.apply_action(b)
        else:
            probs = br_profile.action_probabilities(real, 1)
            a = max(probs, key=probs.get)
            pairs = abstraction.translate(real, mirror, a)
            b = pairs[rng.choice(len(pairs), p=[p for _, p in pairs])][0]
            real.apply_action(a)
            mirror.apply_action(b)
    return real.returns()[1]


# -- results and bad input -----------------------------------------------------------------
def test_solve_with_abstraction_reports_full_game_values():
    r = rcfr.solve(LEDUC, "cfr+", 200, 100, abstraction="J.QK")
    d = r.to_dict()
    assert d["complexity"] == 308 and d["complexity_share"] == 308 / 672
    assert r.policy.tree.num_sequences == 672
    assert r.evaluation == rcfr.evaluate(LEDUC, r.policy)
    assert r.evaluation.exploitability > 10 * d["abstract_exploitability"]
    assert [it for it, _ in r.curve] == [100, 200]
    assert r.curve[-1][1] == r.evaluation.exploitability


@pytest.mark.parametrize("spec,game,message", [
    ("XYZ", LEDUC, "unknown abstraction 'XYZ'"),
    ("J.QK", ONE_CARD, "is for leduc, not nl_one_card"),
    ("J.QJ", LEDUC, "unknown abstraction"),
    ("HP", LEDUC, "action abstractions apply to games with wager sizes"),
    ("bets:0.5,0", ONE_CARD, "pot fractions must be positive numbers, got 0"),
    ("bets:-1", ONE_CARD, "pot fractions must be positive numbers, got -1"),
    ("bets:a", ONE_CARD, "cannot read the pot fractions"),
])
def test_bad_abstractions(spec, game, message):
    with pytest.raises(RcfrError, match=message):
        parse_abstraction(spec, game)


def test_cli_abstraction(tmp_path, capsys):
    out, abstract = tmp_path / "s.npz", tmp_path / "a.npz"
    code = main(["solve", LEDUC, "--abstraction", "JQ.K", "-n", "100", "-o", str(out),
                 "--out-abstract", str(abstract), "--json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    import json

    info = json.loads(cap.out)
    assert info["complexity"] == 308 and info["abstraction"] == "JQ.K"
    full = rcfr.TabularPolicy.load(out, LEDUC)
    assert math.isclose(rcfr.exploitability(full), info["exploitability"], rel_tol=1e-12)
    tree = abstract_game(LEDUC, "JQ.K")
    assert rcfr.TabularPolicy.load(abstract, tree).tree.num_sequences == 308
    for args, message in [
        (["--abstraction", "HPD"], "action abstractions apply to games with wager sizes"),
        (["--abstraction", "nope"], "unknown abstraction 'nope'"),
        (["--out-abstract", str(tmp_path / "x.npz")], "--out-abstract needs --abstraction"),
    ]:
        code = main(["solve", LEDUC, "-n", "10", *args])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and message in err, err
    code = main(["solve", ONE_CARD, "-n", "10", "--abstraction", "bets:0"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: pot fractions must be positive")
    assert not (tmp_path / "x.npz").exists()


def test_abstract_game_string_loads_by_name(tmp_path, capsys):
    """``GAME@SPEC`` names the abstract game: the same sizes as abstract_game(), and the
    abstract strategy saved by --out-abstract evaluates under that name."""
    from rcfr.abstraction import abstract_game

    for spec in ("leduc(canonical=true)@J.QK", "nl_one_card@HP"):
        base, _, name = spec.rpartition("@")
        by_name = rcfr.compile_game(spec)
        direct = abstract_game(base, name)
        assert str(by_name.game) == str(direct.game) == spec
        assert by_name.num_sequences_per_player == direct.num_sequences_per_player
        assert by_name.num_nodes == direct.num_nodes
    full, abstract = tmp_path / "full.npz", tmp_path / "abstract.npz"
    assert main(["solve", "leduc(canonical=true)", "--abstraction", "J.QK", "-a", "cfr+", "-n",
                 "50", "--out", str(full), "--out-abstract", str(abstract)]) == 0
    capsys.readouterr()
    assert main(["evaluate", "leduc(canonical=true)@J.QK", str(abstract), "--json"]) == 0
    report = __import__("json").loads(capsys.readouterr().out)
    tree = rcfr.compile_game("leduc(canonical=true)@J.QK")
    policy = rcfr.TabularPolicy.load(abstract, tree)
    assert report["exploitability"] == pytest.approx(rcfr.exploitability(tree, policy), abs=1e-12)
    assert main(["evaluate", "leduc(canonical=true)@nope", str(abstract)]) == 2

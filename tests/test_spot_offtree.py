"""Off-tree bets of a spot's action abstraction: the restricted opponent, nested re-solving
(Brown & Sandholm 2017, sec. 6) against translation, the self-improver; exact evaluation in
the real spot."""

import json

import numpy as np
import pytest

from rcfr import compile_game
from rcfr.abstraction.actions import lift_actions
from rcfr.cli import main
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate
from rcfr.solvers.run import make_solver
from rcfr.subgame.improve import improve, observed_sizes, parse_line
from rcfr.subgame.offtree import (
    nested_resolve_spot,
    off_tree_lines,
    restricted_game,
    restricted_value,
)

SPOT = "holdem_spot(spot=river_small)"  # bets 50%, a; raises 3x; pot 200, 400 behind
ABSTRACT = "holdem_spot(spot=river_small,bets=a,raises=a)"  # all-in or nothing


@pytest.fixture(scope="module")
def blueprint():
    """The all-in abstraction solved a little, lifted to the real spot (public form)."""
    real = compile_game(SPOT, form="public")
    abstract = compile_game(ABSTRACT, form="public")
    solver = make_solver(abstract, "cfr+")
    solver.setup()
    solver.run(50)
    return real, abstract.game, lift_actions(real, abstract, solver.average_policy())


def test_off_tree_lines(blueprint):
    real, abstract, _ = blueprint
    assert off_tree_lines(real.game, abstract) == [("bet 100",), ("check", "bet 100")]
    assert off_tree_lines(real.game, abstract, opponent=1) == [("check", "bet 100")]


def test_the_restricted_opponent(blueprint):
    real, abstract, policy = blueprint
    g = restricted_game(real.game, 0, abstract)
    assert [str(a) for a in g.root.actions] == ["check", "allin 400"]
    assert [str(a) for a in g.root.children[0].actions] == ["check", "bet 100", "allin 400"]
    g = restricted_game(real.game, 0, abstract, [("bet 100",)])
    assert [str(a) for a in g.root.actions] == ["check", "bet 100", "allin 400"]
    full = evaluate(real, policy).best_response_values[0]
    alone = restricted_value(policy, 0, abstract)
    more = restricted_value(policy, 0, abstract, [("bet 100",)])
    assert alone <= more + 1e-12 and more <= full + 1e-12
    assert alone < full - 1.0  # the 50% bet is worth something against this blueprint


@pytest.mark.parametrize("method", ["resolve", "maxmargin"])
def test_nested_gives_no_more_than_translation(blueprint, method):
    """Nested re-solving leaves an off-tree bet no more gain than translation does, exactly
    evaluated (its value never below the value without the bet: the gain is >= 0)."""
    real, abstract, policy = blueprint
    res = nested_resolve_spot(policy, abstract, method=method, iterations=300)
    assert [r.line for r in res.rows] == [("bet 100",), ("check", "bet 100")]
    leaked = 0.0
    for r in res.rows:
        base = res.in_tree_value[r.opponent]
        assert r.nested_value >= base - 1e-9
        assert r.translation_value >= base - 1e-9
        assert r.nested_value <= r.translation_value + 1e-9, r.to_dict()
        leaked = max(leaked, r.translation_value - base)
    assert leaked > 1.0  # translation leaks something here, so the comparison has teeth
    # the re-solved strategy keeps the blueprint outside the re-solved subgames
    changed = np.flatnonzero(res.policy.probs != policy.probs)
    assert changed.size and changed.size < real.num_sequences // 2


def test_resolve_off_tree_command(blueprint, tmp_path, capsys):
    """`rcfr resolve --off-tree`: the API's exact gains, Resolve's never above translation's,
    and -o writes the assembled strategy; bad paths are one error line."""
    from rcfr.policy import TabularPolicy

    real, abstract, policy = blueprint
    bp = tmp_path / "bp.npz"
    policy.save(bp)
    out = tmp_path / "nested.npz"
    assert main(["resolve", SPOT, str(bp), "--off-tree", "check|bet 100", "--off-tree",
                 "bet 100", "--method", "resolve", "-a", "cfr+", "-n", "300", "-o", str(out),
                 "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    api = nested_resolve_spot(policy, abstract, [("check", "bet 100"), ("bet 100",)],
                              method="resolve", iterations=300)
    assert [r["line"] for r in got["off_tree"]] == ["check,bet 100", "bet 100"]
    assert got["pot"] == 200 and got["blueprint_abstraction"] == "actions:a/a"
    for row, r in zip(got["off_tree"], api.rows, strict=True):
        base = api.in_tree_value[r.opponent]
        assert row["translation_gain"] == pytest.approx(r.translation_value - base, abs=1e-9)
        assert row["nested_gain"] == pytest.approx(r.nested_value - base, abs=1e-9)
        assert row["nested_gain_pot_pct"] == pytest.approx(row["nested_gain"] / 2, abs=1e-9)
        assert -1e-9 <= row["nested_gain"] <= row["translation_gain"] + 1e-9
    assert max(r["translation_gain"] for r in got["off_tree"]) > 1.0
    np.testing.assert_array_equal(TabularPolicy.load(out, real).probs, api.policy.probs)
    assert got["exploitability"] == pytest.approx(
        evaluate(real, api.policy).exploitability, abs=1e-9)
    assert got["blueprint_exploitability"] == pytest.approx(
        evaluate(real, policy).exploitability, abs=1e-9)
    for bad, why in [(["--off-tree", "check,bet 120"], "no 'bet 120' at check"),
                     (["--off-tree", "allin 400"], "not a bet off the abstraction"),
                     (["--off-tree", "bet 100", "--at", "chance:1"], "--at does not go"),
                     (["--off-tree", "bet 100", "--method", "best"], "--method is unsafe"),
                     (["--off-tree", "bet 100", "--abstraction", "buckets:2"],
                      "takes an action abstraction")]:
        assert main(["resolve", SPOT, str(bp), *bad]) == 2, bad
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:") and why in err[0], (bad, err)


def test_play_answers_an_off_tree_bet_by_nested_resolving(blueprint, monkeypatch, capsys,
                                                          tmp_path):
    """`rcfr play --resolve` on an action abstraction: the human's off-tree bet is answered by
    the nested re-solve (the API's strategy), re-solved once, when first met."""
    import io

    from rcfr.subgame.nested_play import NestedResponder

    real, abstract, policy = blueprint
    bot = NestedResponder(policy, abstract, 0, "resolve", iterations=200)
    state = real.game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert bot.action_probabilities(state, 0) == policy.action_probabilities(state, 0)
    assert bot.resolved == []
    names = [state.action_to_string(0, a) for a in state.legal_actions()]
    state.apply_action(state.legal_actions()[names.index("bet 100")])
    got = bot.action_probabilities(state, 1)
    api = nested_resolve_spot(policy, abstract, [("bet 100",)], "resolve", iterations=200,
                              evaluate_gains=False).policy
    assert bot.resolved == [("bet 100",)]
    assert got == api.action_probabilities(state, 1)
    np.testing.assert_array_equal(bot.policy.probs, api.probs)
    assert not np.array_equal(api.probs, policy.probs)
    bp = tmp_path / "bp.npz"
    policy.save(bp)
    monkeypatch.setattr("sys.stdin", io.StringIO("bet 100\ncall\n" * 6))
    assert main(["play", SPOT, str(bp), "--resolve", "resolve", "--hands", "3", "--seed", "3",
                 "--json"]) == 0
    cap = capsys.readouterr()
    assert len(json.loads(cap.out)["payoffs"]) == 3
    assert cap.err.count("re-solving after the off-tree bet 100 (nested resolve") == 1


def test_unsafe_nested_takes_the_translated_beliefs():
    """Unsafe nested re-solving's beliefs about a 50% bettor are its reach of the abstract
    bets the bet translates to (25% and all-in, played as the real 100 and all-in), weighted
    by the pseudo-harmonic probabilities."""
    from rcfr.abstraction.actions import pseudo_harmonic
    from rcfr.forms.public.subtree import extract_subtree
    from rcfr.subgame.offtree import _translated_reach, action_nodes
    from rcfr.subgame.public_resolving import blueprint_plan

    real = compile_game(SPOT, form="public")
    abstract = compile_game("holdem_spot(spot=river_small,bets=25% a)", form="public")
    solver = make_solver(abstract, "cfr+")
    solver.setup()
    solver.run(20)
    policy = lift_actions(real, abstract, solver.average_policy())
    plan = blueprint_plan(real, policy.probs)
    at = {line: u for u, (_, line) in enumerate(action_nodes(real))}
    got = _translated_reach(real, plan, at[("bet 100",)], real.game, abstract.game.root)
    (_, q), _ = pseudo_harmonic(0.5, [0.25, 2.0])
    want = (q * extract_subtree(real, at[("bet 100",)]).root_reach(plan, 0)
            + (1 - q) * extract_subtree(real, at[("allin 400",)]).root_reach(plan, 0))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    assert got.max() > 0
    res = nested_resolve_spot(policy, abstract.game, method="unsafe", iterations=100)
    for r in res.rows:
        assert r.nested_value >= res.in_tree_value[r.opponent] - 1e-9


def test_parse_line():
    game = compile_game(SPOT, form="public").game
    assert parse_line(game, "check,bet 100,call") == ("check", "bet 100", "call")
    assert parse_line(game, "AhAd|Td9d6hQc2s|bet 100") == ("bet 100",)
    with pytest.raises(RcfrError, match="'bet 120' is not an action"):
        parse_line(game, "check,bet 120")


def test_the_self_improver_against_a_scripted_opponent(blueprint):
    """An opponent that always bets 100 (50% of the pot, off the all-in abstraction): the
    improver adds that size, re-solves its branches, and the blueprint's exact exploitability
    against that opponent goes down."""
    real, abstract, policy = blueprint
    lines = [parse_line(real.game, t) for t in ["bet 100,call", "bet 100,fold"] * 3]
    assert observed_sizes(real.game, abstract, lines) == {"bet 50%": 6}
    res = improve(policy, abstract, lines, iterations=300)
    assert res.sizes == ["bet 50%"]
    assert res.abstraction == "holdem_spot(bets=a 50%,raises=a,spot=river_small)"
    assert res.lines == [("bet 100",), ("check", "bet 100")]
    scripted = [("bet 100",)]
    before = restricted_value(policy, 0, abstract, scripted)
    after = restricted_value(res.policy, 0, abstract, scripted)
    assert after < before - 1.0
    assert res.restricted_after < res.restricted_before
    assert res.after.exploitability < res.before.exploitability


def test_improve_command(blueprint, tmp_path, capsys):
    real, abstract, policy = blueprint
    bp = tmp_path / "bp.npz"
    policy.save(bp)
    record = tmp_path / "opp.txt"
    record.write_text("bet 100,call\n# scripted\nbet 100,fold\ncheck,check\n")
    out = tmp_path / "new.npz"
    assert main(["improve", SPOT, str(bp), "--histories", str(record), "-n", "100",
                 "-o", str(out), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["blueprint_abstraction"] == "actions:a/a" and got["hands"] == 3
    assert got["sizes"] == ["bet 50%"] and got["counts"] == {"bet 50%": 2}
    assert got["exploitability_after"] < got["exploitability_before"]
    assert main(["evaluate", SPOT, str(out), "--json", "--form", "public"]) == 0
    assert json.loads(capsys.readouterr().out)["exploitability"] == pytest.approx(
        got["exploitability_after"], abs=1e-9)
    # the abstract strategy itself, lifted by --abstraction: the same improvement
    abstract_file = tmp_path / "abstract.npz"
    compiled = compile_game(ABSTRACT, form="public")
    make = make_solver(compiled, "cfr+")
    make.setup()
    make.run(50)
    make.average_policy().save(abstract_file)
    assert main(["improve", SPOT, str(abstract_file), "--abstraction", "actions:a/a",
                 "--histories", str(record), "-n", "100", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["exploitability_before"] == pytest.approx(got["exploitability_before"],
                                                           abs=1e-9)
    assert again["exploitability_after"] == pytest.approx(got["exploitability_after"],
                                                          abs=1e-9)
    record.write_text("bet 100,call\ncheck,bet 120\n")
    assert main(["improve", SPOT, str(bp), "--histories", str(record)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 2" in err[0] and "'bet 120'" in err[0], err
    record.write_text("check,check\n")
    assert main(["improve", SPOT, str(bp), "--histories", str(record)]) == 2
    assert "off the tree" in capsys.readouterr().err


def test_play_writes_hand_histories_that_pokerkit_replays(blueprint, tmp_path, capsys,
                                                         monkeypatch):
    """`rcfr play --histories` writes the hands in the Poker Hand History format: pokerkit
    replays each to the payoff rcfr paid, and the self-improver reads them back."""
    pokerkit = pytest.importorskip("pokerkit")
    import io

    _, _, policy = blueprint
    bp = tmp_path / "bp.npz"
    policy.save(bp)
    record = tmp_path / "hands.phhs"
    monkeypatch.setattr("sys.stdin", io.StringIO("bet 100\ncall\n" * 6))
    assert main(["play", SPOT, str(bp), "--hands", "4", "--seed", "3", "--histories",
                 str(record), "--json"]) == 0
    payoffs = json.loads(capsys.readouterr().out)["payoffs"]
    assert len(payoffs) == 4
    hands = list(pokerkit.HandHistory.loads_all(record.read_text()))
    assert len(hands) == 4
    for hh, paid in zip(hands, payoffs, strict=True):
        final = list(hh)[-1]
        assert final.stacks[0] - hh.starting_stacks[0] == paid
        assert final.stacks[0] + final.stacks[1] == sum(hh.starting_stacks)
    assert main(["improve", SPOT, str(bp), "--histories", str(record), "-n", "50",
                 "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["hands"] == 4 and got["counts"] == {"bet 50%": 4}


def test_a_hand_history_off_the_spot_is_refused():
    from rcfr.games.holdem import phh
    from rcfr.games.holdem.combos import combo_from_str

    game = compile_game(SPOT, form="public").game
    hands = (combo_from_str("AhAd"), combo_from_str("KhKc"))
    hand = phh.hand_history(game, hands, ("bet 100", "call"))
    assert hand["actions"][-3:] == ["p2 cc", "p1 sm AhAd", "p2 sm KhKc"]
    assert phh.betting_line(game, hand) == ("bet 100", "call")
    hand["actions"][-3] = "p2 cbr 250"
    with pytest.raises(RcfrError, match="'p2 cbr 250' is not an action"):
        phh.betting_line(game, hand)


def test_the_self_improver_adds_a_raise_size():
    """A raise off the abstraction's raises (3x, where it raises all-in only) is added to its
    raise sizes: the raise is 50% of the pot after the call."""
    real = compile_game(SPOT, form="public")
    abstract = compile_game("holdem_spot(spot=river_small,bets=50% a,raises=a)", form="public")
    solver = make_solver(abstract, "cfr+")
    solver.setup()
    solver.run(20)
    policy = lift_actions(real, abstract, solver.average_policy())
    lines = [parse_line(real.game, t) for t in ["bet 100,raise 300,call",
                                                "check,bet 100,raise 300"]]
    res = improve(policy, abstract.game, lines, iterations=100)
    assert res.counts == {"raise 50%": 2}
    assert res.abstraction == "holdem_spot(bets=50% a,raises=a 50%,spot=river_small)"
    assert res.lines == [("bet 100", "raise 300"), ("check", "bet 100", "raise 300")]
    assert res.restricted_after < res.restricted_before


@pytest.mark.parametrize("spot", ["turn_small", "river_small"])
def test_pokerkit_pays_each_written_hand_as_the_spot_does(spot):
    """Random hands of a spot (deals, bets, all-ins run out, folds): pokerkit replays each
    written hand to the spot's own payoff."""
    pokerkit = pytest.importorskip("pokerkit")
    from rcfr import load_game
    from rcfr.games.holdem import phh

    game = load_game(f"holdem_spot(spot={spot})")
    rng = np.random.default_rng(7)
    hands = []
    paid = []
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                p = np.array([q for _, q in outcomes])
                state.apply_action(outcomes[rng.choice(len(outcomes), p=p / p.sum())][0])
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        hands.append(phh.hand_history(game, state.hands, state.line))
        paid.append(state.returns()[0])
    replayed = list(pokerkit.HandHistory.loads_all(phh.dumps(hands)))
    for hh, want, hand in zip(replayed, paid, hands, strict=True):
        final = list(hh)[-1]
        assert final.stacks[0] - hh.starting_stacks[0] == want, hand["actions"]
    acts = [h["actions"] for h in hands]
    assert any(a[-1].endswith(" f") for a in acts)  # folds and showdowns were both written
    assert any(" sm " in a[-1] for a in acts)
    if spot == "turn_small":  # and the river dealt after the turn's betting
        assert any(sum(x.startswith("d db") for x in a) == 3 for a in acts)

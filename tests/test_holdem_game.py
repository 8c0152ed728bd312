"""2-NL Hold'em(k) (rcfr.games.nl_holdem2, Gibson et al. 2012, sec. 5): the betting rules on
hand-built lines, the betting tree's size counted by an independent recursion, the paper's
sizes, and the abstract game's two compiled forms."""

from functools import cache
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import SIZE_KEYS, assert_same_forms

from rcfr.core.errors import RcfrError
from rcfr.games.nl_holdem2 import CALL, FOLD, NLHoldem2, betting_counts
from rcfr.games.protocol import CHANCE, TERMINAL
from rcfr.games.registry import load_game


def rule_abstraction(buckets: int = 2) -> SimpleNamespace:
    """An abstraction with distinct, known showdown values (rule tests only: the payoff rule is
    the stake times the abstraction's showdown value, whatever the abstraction)."""
    n = buckets * buckets
    joint = np.arange(1.0, n * n + 1.0).reshape(n, n)
    joint = joint + joint.T
    show = np.linspace(-1.0, 1.0, n * n).reshape(n, n)
    show = (show - show.T) / 2.0
    return SimpleNamespace(buckets=buckets, joint=joint / joint.sum(), showdown=show)


def play(game, deal, actions):
    """The state after dealing ``deal`` (preflop buckets first, the flop's when due) and
    playing ``actions``, checking each action is legal."""
    s = game.new_initial_state()
    deal = list(deal)
    for a in actions:
        while s.current_player() == CHANCE:
            s.apply_action(deal.pop(0))
        assert a in s.legal_actions(), (a, s.legal_actions(), s.information_state_string())
        s.apply_action(a)
    while s.current_player() == CHANCE and deal:
        s.apply_action(deal.pop(0))
    return s


def legal_after(game, actions):
    return play(game, (1, 0, 1, 0), actions).legal_actions()


@pytest.fixture
def game():
    return NLHoldem2(stack=20, buckets=2, abstraction=rule_abstraction())


def payoff(game, deal, actions):
    s = play(game, deal, actions)
    assert s.current_player() == TERMINAL
    r = s.returns()
    assert r[0] == -r[1]
    return r[0]


def test_who_acts_and_the_first_legal_actions(game):
    s = play(game, (1, 0), [])
    assert s.current_player() == 0  # the dealer (small blind) acts first preflop
    # fold, call the big blind, or raise to 4 (the big blind is the previous bet) .. 20
    assert s.legal_actions() == [FOLD, CALL, *range(4, 21)]
    s = play(game, (1, 0), [CALL])  # a limp: the big blind may check or raise, not fold
    assert s.current_player() == 1
    assert s.legal_actions() == [CALL, *range(4, 21)]
    s = play(game, (1, 0, 1, 0), [CALL, CALL])  # on the flop the big blind acts first
    assert s.current_player() == 1
    assert s.legal_actions() == [CALL, *range(4, 21)]  # a bet of at least the big blind
    s = play(game, (1, 0, 1, 0), [CALL, CALL, CALL])
    assert s.current_player() == 0 and s.legal_actions() == [CALL, *range(4, 21)]


def test_minimum_raises(game):
    # a raise is at least the previous bet or raise of the round
    assert legal_after(game, [4])[2] == 6  # 4 raised by 2 -> at least 6
    assert legal_after(game, [7])[2] == 12  # 7 is a raise of 5 over the blind -> 12
    assert legal_after(game, [7, 12])[2] == 17  # a raise of 5 again
    assert legal_after(game, [7, 15])[2:] == [20]  # 23 is beyond the stack: all-in only
    assert legal_after(game, [7, 15, 20]) == [FOLD, CALL]  # an all-in: fold or call
    assert legal_after(game, [20]) == [FOLD, CALL]
    # each round starts over: the flop's first bet is at least the big blind
    assert legal_after(game, [10, CALL])[1] == 12  # stakes 10 each: bet to 12 or more
    assert legal_after(game, [10, CALL, 13])[2] == 16  # a bet of 3 -> raise to 16
    assert legal_after(game, [10, CALL, CALL, 12, 19])[2:] == [20]  # short of 26: all-in
    assert legal_after(game, [10, CALL, CALL, 12, 19, 20]) == [FOLD, CALL]


def test_payoffs_of_hand_built_lines(game):
    show = game.showdown
    assert payoff(game, (1, 0), [FOLD]) == -1.0  # the dealer folds her small blind
    assert payoff(game, (1, 0), [CALL, 6, FOLD]) == -2.0
    assert payoff(game, (1, 0), [9, FOLD]) == 2.0  # the big blind folds his blind
    assert payoff(game, (1, 0), [9, 16, FOLD]) == -9.0  # 9 raised by 7: 16 at least
    # showdowns: the stake times player 0's expected result for the bucket sequences
    assert payoff(game, (1, 0, 1, 0), [CALL, CALL, CALL, CALL]) == 2.0 * show[3, 0]
    assert payoff(game, (0, 1, 1, 1), [CALL, CALL, CALL, CALL]) == 2.0 * show[1, 3]
    assert payoff(game, (1, 1, 0, 1), [4, CALL, 8, 16, CALL]) == 16.0 * show[2, 3]
    assert payoff(game, (1, 0, 1, 0), [4, CALL, CALL, 12, FOLD]) == 4.0
    assert payoff(game, (1, 0, 1, 0), [4, CALL, 9, 20, FOLD]) == 9.0
    # all-in preflop: the flop is dealt, no more betting
    s = play(game, (1, 0), [20, CALL])
    assert s.current_player() == CHANCE
    s = play(game, (1, 0, 0, 1), [20, CALL])
    assert s.current_player() == TERMINAL and s.returns()[0] == 20.0 * show[2, 1]
    assert payoff(game, (0, 0, 1, 1), [CALL, 20, CALL]) == 20.0 * show[1, 1] == 0.0


def test_chance_follows_the_joint_and_keys_hide_the_opponent(game):
    B = 2
    J = game.joint.reshape(B, B, B, B)
    s = game.new_initial_state()
    p = dict(s.chance_outcomes())
    for b0 in range(B):
        assert p[b0] == pytest.approx(J[b0].sum())
    s = play(game, (1, 0, 1, 0), [CALL, CALL])
    prob = 1.0
    t = game.new_initial_state()
    for o in (1, 0):
        prob *= dict(t.chance_outcomes())[o]
        t.apply_action(o)
    t = t.child(CALL).child(CALL)
    for o in (1, 0):
        prob *= dict(t.chance_outcomes())[o]
        t.apply_action(o)
    assert prob == pytest.approx(game.joint[3, 0], rel=1e-12)
    assert s.information_state_string(1) == "1:0.0|cc/"
    assert s.information_state_string(0) == "0:1.1|cc/"
    assert play(game, (1, 0), []).information_state_string(0) == "0:1|"


def recursive_counts(stack):
    """Public nodes and each player's decisions and actions per round, by walking every
    betting sequence from the rules (independently of the module's dynamic programme)."""
    out = {"nodes": 0, "dec": [[0, 0], [0, 0]], "act": [[0, 0], [0, 0]], "flop_lines": 0,
           "allin_lines": 0}

    def rnd(rd, to_act, chips, last_raise, has_acted):
        out["nodes"] += 1
        me, them = chips[to_act], chips[1 - to_act]
        moves = ["fold"] if them > me else []
        moves.append("call")
        if them < stack:
            lo = min(them + max(last_raise, 2), stack)
            moves.extend(range(lo, stack + 1))
        out["dec"][rd][to_act] += 1
        out["act"][rd][to_act] += len(moves)
        for m in moves:
            if m == "fold":
                out["nodes"] += 1
            elif m == "call":
                new = (them, them)
                if has_acted:  # the round is over
                    if rd == 1:
                        out["nodes"] += 1  # showdown
                    elif them == stack:  # all-in: flop dealt (a chance node), showdown
                        out["allin_lines"] += 1
                        out["nodes"] += 2
                    else:
                        out["flop_lines"] += 1
                        out["nodes"] += 1  # the flop's chance node
                        rnd(1, 1, new, 0, False)
                else:
                    rnd(rd, 1 - to_act, new, last_raise, True)
            else:
                new = list(chips)
                new[to_act] = m
                rnd(rd, 1 - to_act, tuple(new), m - them, True)

    rnd(0, 0, (1, 2), 2, False)
    return out


@pytest.mark.parametrize("stack", [4, 5, 6, 9, 12])
def test_betting_tree_size_by_recursion(stack):
    r = recursive_counts(stack)
    c = betting_counts(stack)
    assert c["flop_lines"] == r["flop_lines"] and c["allin_lines"] == r["allin_lines"]
    assert list(c["preflop_infos"]) == r["dec"][0] and list(c["flop_infos"]) == r["dec"][1]
    assert list(c["preflop_actions"]) == r["act"][0]
    assert list(c["flop_actions"]) == r["act"][1]
    # the public form adds a second chance node per line (player 0's flop bucket, then 1's)
    assert c["public_nodes"] == r["nodes"] + r["flop_lines"] + r["allin_lines"]


def test_history_form_sizes_equal_the_closed_form():
    from rcfr.forms.compile import compile_game

    for stack, B in ((4, 2), (7, 2), (6, 3)):
        g = NLHoldem2(stack=stack, buckets=B, abstraction=rule_abstraction(B))
        sizes = compile_game(g, form="history").sizes()
        closed = g.closed_form_sizes()
        for key in SIZE_KEYS:
            assert sizes[key] == closed[key], key
        # one bucket a round: histories = 1 + 1 + betting nodes (+ 1 flop chance node per line)
        one = SimpleNamespace(buckets=1, joint=np.ones((1, 1)), showdown=np.zeros((1, 1)))
        r = recursive_counts(stack)
        g1 = NLHoldem2(stack=stack, buckets=1, abstraction=one)
        assert compile_game(g1, form="history").sizes()["histories"] == (
            2 + r["nodes"] + r["flop_lines"] + r["allin_lines"])


def test_the_papers_sizes():
    """Gibson et al. 2012: 2-NL Hold'em(36) has "approximately 68 million information sets and
    5 billion histories"; at most k actions at an information set."""
    sizes = NLHoldem2(stack=36).closed_form_sizes(support=False)
    assert 67e6 < sizes["infosets"] < 68.5e6  # 67,233,560
    assert round(sizes["histories"] / 1e9) == 5  # 5,010,061,106
    for k in (20, 30, 40):
        assert len(legal_after(NLHoldem2(stack=k, buckets=2, abstraction=rule_abstraction()),
                               [])) == k - 1


def test_bad_parameters():
    for spec in ("nl_holdem2(stack=3)", "nl_holdem2(stack=2.5)", "nl_holdem2(buckets=0)",
                 "nl_holdem2(abstraction=custom)", "nl_holdem2(stack=true)"):
        with pytest.raises(RcfrError):
            load_game(spec)
    assert str(load_game("nl_holdem2(stack=20)")) == "nl_holdem2(stack=20)"
    assert str(load_game("nl_holdem2")) == "nl_holdem2"


# -- the abstract game in both compiled forms (a reduced deck: 6 ranks x 3 suits) ----------------
SMALL = ["nl_holdem2(buckets=5,ranks=6,stack=6,suits=3)",
         "nl_holdem2(buckets=3,ranks=6,stack=9,suits=3)"]
@cache
def both(spec):
    from rcfr.forms.compile import compile_game

    g = load_game(spec)
    return compile_game(g, form="history"), compile_game(g, form="public")


@pytest.mark.parametrize("spec", SMALL)
def test_both_forms_have_the_same_sizes_and_information_sets(spec):
    h, t = both(spec)
    assert_same_forms(h, t)
    closed = t.game.closed_form_sizes()
    hs = h.sizes()
    assert {k: closed[k] for k in SIZE_KEYS} == {k: hs[k] for k in SIZE_KEYS}
    assert t.num_public_nodes == closed["public_nodes"] == t.game.num_public_nodes()


@pytest.mark.parametrize("spec", SMALL)
def test_both_forms_give_the_same_values_and_exploitability(spec):
    from rcfr.evaluate import evaluate
    from rcfr.policy import TabularPolicy, convert_policy

    h, t = both(spec)
    rng = np.random.default_rng(7)
    for pol in (TabularPolicy.uniform(h),
                TabularPolicy.from_weights(h, rng.random(h.num_sequences) ** 3)):
        eh, et = evaluate(pol), evaluate(convert_policy(pol, t))
        assert et.value == pytest.approx(eh.value, abs=1e-12)
        assert np.allclose(et.best_response_values, eh.best_response_values, rtol=0,
                           atol=1e-12)
        assert et.exploitability_mbb == pytest.approx(1000 * eh.exploitability / 2, abs=1e-9)


def test_cfr_plus_agrees_in_both_forms():
    from rcfr.forms.convert import sequence_map
    from rcfr.solvers.loop import CFRSolver

    h, t = both(SMALL[0])
    sh, st = CFRSolver(h, "cfr+"), CFRSolver(t, "cfr+")
    sh.run(30)
    st.run(30)
    idx = sequence_map(t, h)
    assert np.allclose(st.average_policy().probs[idx], sh.average_policy().probs, atol=1e-9)


def test_the_papers_figures_run_on_small_stacks(tmp_path):
    """Figures 1a and 2b's kinds: runs on 2-NL Hold'em(k) by (epsilon, beta) and by stack,
    through the sweep runner (in both forms), collected and plotted from the store; every
    spec parses."""
    from rcfr.experiments import Store, parse_sweep, run_sweep
    from rcfr.experiments.figures import collect, named_spec, plot, spec_names

    names = [name for name in spec_names() if name.startswith("gibson_holdem")]
    assert len(names) >= 2  # the packaged specs (rcfr/experiments/specs/)
    for name in names:
        sweep = named_spec(name)
        assert sweep.figure in ("mccfr_nodes", "mccfr_parameters", "mccfr_stacks")
        assert all(r.game.startswith("nl_holdem2") for r in sweep.runs)
    stacks = parse_sweep({"name": "s", "figure": "mccfr_stacks", "seeds": 1,
                          "base": {"nodes": 20000, "algorithm": "es"},
                          "grid": {"game": ["nl_holdem2(stack=4)", "nl_holdem2(stack=20)"]}})
    grid = parse_sweep({"name": "g", "figure": "mccfr_parameters", "seeds": 1,
                        "base": {"nodes": 20000, "algorithm": "as", "tau": 1000,
                                 "game": "nl_holdem2(stack=5)"},
                        "grid": {"epsilon": [0.05, 0.5], "beta": [1, 1e6]}})
    with Store(tmp_path / "r.db") as store:
        for sweep in (stacks, grid):
            assert run_sweep(sweep, store, backend="inline").done == len(sweep.runs)
        data = collect(stacks, store)
        row = data["series"]["ES"]
        assert row["stack"] == [4, 20]  # k = 20 runs on the public form (auto)
        for k, mean in zip(row["stack"], row["exploitability"], strict=True):
            runs = [r["exploitability"] for r in store.runs(hashes=stacks.hashes())
                    if f"stack={k})" in r["spec"]["game"]]
            assert mean == pytest.approx(np.mean(runs) / k)
        plot(data, tmp_path / "stacks.png")
        data = collect(grid, store)
        assert sorted(data["series"]) == ["1", "1e+06"]
        assert data["series"]["1"]["epsilon"] == [0.05, 0.5]
        plot(data, tmp_path / "grid.png")
    assert (tmp_path / "stacks.png").stat().st_size > 0


def test_size_guard_and_listed_sizes():
    from rcfr.core.budget import memory_limit
    from rcfr.forms.compile import compile_game
    from rcfr.forms.sizes import form_sizes

    closed = NLHoldem2(stack=30).closed_form_sizes()
    with memory_limit("2G"):
        with pytest.raises(RcfrError, match=f"public form has about {closed['sequences']:,} "
                                            "sequences"):
            compile_game("nl_holdem2(stack=30)")  # auto: the public form, refused
        with pytest.raises(RcfrError, match=f"{closed['histories']:,} histories"):
            compile_game("nl_holdem2(stack=30)", form="history")
    listed = form_sizes("nl_holdem2(stack=30)")  # a closed form: nothing is compiled
    assert all(listed[k] == closed[k] for k in (*SIZE_KEYS, "public_nodes"))
    assert listed["public_mb_estimated"] and listed["history_mb_estimated"]
    small = form_sizes("nl_holdem2(stack=5)")  # compiled: both forms measured
    assert not small["public_mb_estimated"] and not small["history_mb_estimated"]
    assert small["histories"] == NLHoldem2(stack=5).closed_form_sizes()["histories"]


@pytest.mark.parametrize("scheme", ["cs", "es", "os", "as"])
def test_sampled_solvers_on_the_command_line_resume_exactly(scheme, tmp_path, capsys):
    """Each scheme runs on the public form with a node budget; a run stopped at a checkpoint
    and resumed ends where one uninterrupted run does."""
    import json

    from rcfr.cli import main

    game = "nl_holdem2(buckets=3,ranks=6,stack=8,suits=3)"

    def solve(*extra):
        code = main(["solve", game, "-a", scheme, "--form", "public", "--json", "--seed", "3",
                     *map(str, extra)])
        out, err = capsys.readouterr()
        assert code == 0, err
        return json.loads(out)

    whole = solve("-n", 40, "-o", tmp_path / "whole.npz")
    solve("-n", 15, "--checkpoint", tmp_path / "ck.npz")
    resumed = solve("-n", 25, "--resume", tmp_path / "ck.npz", "-o", tmp_path / "resumed.npz")
    assert resumed["nodes_visited"] == whole["nodes_visited"] > 0
    assert resumed["exploitability"] == whole["exploitability"]
    assert 0 < whole["exploitability"] * 500 == pytest.approx(whole["exploitability_mbb"])

"""Real-card hold'em spots as games: the public form (pairing "cards") against the history
form, the LP and the n x n reference of its terminal sweeps."""

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from conftest import one_line_error, run_cli

from rcfr import load_game, solve
from rcfr.core.errors import RcfrError
from rcfr.evaluate import evaluate, realization_plans
from rcfr.forms.compile import compile_game
from rcfr.lp import solve_lp
from rcfr.policy import TabularPolicy, convert_policy

SPOTS = Path(__file__).parent / "data" / "spots"


def spot(which: str):
    """A packaged spot (``spot=NAME``) or one of this folder's (``file=NAME``)."""
    key, _, name = which.partition("=")
    return load_game(f"holdem_spot(file={SPOTS / name})" if key == "file"
                     else f"holdem_spot(spot={name})")


def random_policy(tree, seed):
    rng = np.random.default_rng(seed)
    probs = rng.random(tree.num_sequences) + 0.05
    starts, counts = tree.infoset_seq_start, tree.infoset_num_actions
    sums = np.add.reduceat(probs, starts) if starts.size else probs[:0]
    return probs / np.repeat(sums, counts)


@pytest.mark.parametrize("name", ["spot=river_small", "spot=turn_small"])
def test_card_sweeps_equal_the_pairwise_reference(name):
    """Folds and showdowns with card removal in O(n + 52) = the sum over every pair of
    combos that share no card, for both players, on random strategies."""
    t = compile_game(spot(name), form="public")
    for seed in range(2):
        plan = realization_plans(t, random_policy(t, seed))
        for p in (0, 1):
            fast, ref = np.zeros(t.num_sequences + 2), np.zeros(t.num_sequences + 2)
            t.terminal_values(p, plan, fast)
            t.terminal_values(p, plan, ref, dense=True)
            assert np.abs(ref).max() > 0.1
            assert np.allclose(fast, ref, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("name", ["file=river_narrow.toml", "spot=turn_small"])
def test_public_form_equals_history_form(name):
    """Sizes, the uniform profile's values and CFR+'s iterates agree between the forms (the
    history form deals both hands and every turn and river card by chance).  (Later iterates
    part where a regret ties at zero in one form and sits at 1e-16 in the other.)"""
    g = spot(name)
    h, t = compile_game(g, form="history"), compile_game(g, form="public")
    sizes = t.sizes()
    for key, value in h.sizes().items():
        assert sizes[key] == value, key
    uh, ut = (evaluate(TabularPolicy.uniform(tree)) for tree in (h, t))
    assert ut.value == pytest.approx(uh.value, abs=1e-10)
    assert ut.exploitability == pytest.approx(uh.exploitability, abs=1e-10)
    ph = solve(h, algorithm="cfr+", iterations=10).policy
    pt = solve(t, algorithm="cfr+", iterations=10).policy
    assert np.abs(convert_policy(pt, h).probs - ph.probs).max() < 1e-9
    assert evaluate(pt).exploitability == pytest.approx(evaluate(ph).exploitability, rel=1e-9)


@pytest.mark.parametrize("name", ["file=river_narrow.toml", "spot=turn_small"])
def test_cfr_plus_reaches_the_lp_value(name):
    """CFR+ on the public form approaches the equilibrium value the LP finds on the history
    form: |v - v*| is at most the exploitability, which is small."""
    g = spot(name)
    v_star = solve_lp(compile_game(g, form="history")).value
    ev = solve(compile_game(g, form="public"), algorithm="cfr+", iterations=1000).evaluation
    assert ev.exploitability < 0.05  # chips, of a pot of 100
    assert abs(ev.value - v_star) <= ev.exploitability + 1e-9


def test_river_narrow_value_from_the_lp():
    """The river spot's equilibrium value to OOP, in chips net of its 50 in the pot."""
    assert solve_lp(compile_game(spot("file=river_narrow.toml"), form="history")).value == (
        pytest.approx(-25.757575757575758, abs=1e-9))


def test_ranges_that_never_meet_are_refused(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('board = "7s8h9dTc2s"\npot = 10\nstack = 10\n[ranges]\noop = "AcKs"\n'
                    'ip = "AcKh"\n')
    with pytest.raises(RcfrError, match="never meet"):
        load_game(f"holdem_spot(file={path})")


def test_range_from_a_weights_file(tmp_path):
    """A range given as a file of 1,326 weights (postflop-solver's raw order) is the same game
    as the range string it writes out; bad files are one error line naming them."""
    from rcfr.games.holdem.ranges import parse_range

    weights = parse_range("QQ,T9s:0.5")
    (tmp_path / "ip.txt").write_text("\n".join(f"{w:g}" for w in weights))
    text = resources.files("rcfr.games.holdem").joinpath("spots/turn_small.toml").read_text()
    (tmp_path / "s.toml").write_text(text.replace('ip = "QQ,T9s:0.5"', 'ip = { file = "ip.txt" }'))
    a, b = spot("spot=turn_small"), load_game(f"holdem_spot(file={tmp_path / 's.toml'})")
    # QQ less the three combos with the board's Qc, T9s at 0.5 less Td9d
    assert np.array_equal(a.ranges[1], b.ranges[1]) and a.ranges[1].sum() == 3 + 0.5 * 3
    (tmp_path / "ip.txt").write_text("1 0.5")
    with pytest.raises(RcfrError, match="ranges.ip: the range file .* needs 1,326 weights"):
        load_game(f"holdem_spot(file={tmp_path / 's.toml'})")


def test_cli_prints_the_pot_share_and_refuses_sampling(capsys):
    """``rcfr solve`` on a spot prints the exploitability in chips and as % of the pot; a
    Monte Carlo algorithm on the public form is one error line."""
    game = f"holdem_spot(file={SPOTS / 'river_narrow.toml'})"
    code, out, err = run_cli(capsys, "solve", game, "-a", "cfr+", "-n", "50", "--json")
    assert code == 0, err
    result = json.loads(out)
    ev = result["evaluation"] if "evaluation" in result else result
    assert ev["exploitability_pot_pct"] == pytest.approx(ev["exploitability"], rel=1e-12)
    code, out, err = run_cli(capsys, "solve", game, "-a", "os", "-n", "5", "--form", "public")
    assert one_line_error(code, err).startswith("error: Monte Carlo sampling is not offered")
    tree = compile_game(game, form="public")  # and the form says so when asked
    assert not tree.supports("sampled passes") and not tree.supports("threaded sampling")


def test_thread_count_changes_no_number():
    """One and two threads give the same tables and evaluation bit for bit (the terminal
    sweeps split into their groups even though the spot is small)."""
    from rcfr.forms.public.tree import compile_public
    from rcfr.forms.threads import kernel_threads
    from rcfr.solvers.run import make_solver

    tree = compile_public("holdem_spot(spot=river_small)")
    runs = []
    for n, t in ((1, tree), (1, tree.with_thread_groups(0, 0)), (2, tree.with_thread_groups(0, 0)),
                 (2, tree)):
        with kernel_threads(n):
            s = make_solver(t, "dcfr").run(6)
            runs.append((s.strategy_.copy(), s.avg_weights_.copy(),
                         np.array(t.evaluate(s.average_policy().probs))))
    for other in runs[1:]:
        for a, b in zip(runs[0], other, strict=True):
            assert np.array_equal(a, b)


def test_a_subgame_where_one_player_never_acts():
    """Below the out-of-position player's all-in only the other player acts: the subtree has
    no information set of player 0, and its gadget is a valid game (a stray first sequence
    start shifted every information set of the other player: 'gadget 0' summed to 246)."""
    from rcfr.forms.public.gadget import gadget_form
    from rcfr.forms.public.subtree import extract_subtree
    from rcfr.forms.public.tree import compile_public

    tree = compile_public("holdem_spot(spot=river_small)")
    root_actions = [tree._states[0].action_to_string(0, a) for a in range(tree.node_num_actions[0])]
    node = int(tree.node_child_start[0]) + next(i for i, a in enumerate(root_actions)
                                                  if a.startswith("allin"))
    sub = extract_subtree(tree, node)
    assert len(sub.infosets[0]) == 0 and sub.seq_start_local[0].size == 0
    rows = [int(r) for r in sub.num_rows]
    g = gadget_form(sub, "maxmargin", 0, [np.ones(rows[0]), np.ones(rows[1])],
                    alternative=np.zeros(rows[1]), weight=np.ones(rows[1]))
    assert TabularPolicy.uniform(g).probs.size == g.num_sequences


def test_a_river_spot_is_cut_after_its_first_action_by_default(capsys, tmp_path):
    """A river spot deals no card, so its default cut is its first action (a turn spot's is
    the river card); `rcfr resolve` without --at re-solves the river spot's three public
    subgames (check, the bet and the all-in)."""
    from rcfr.subgame import default_cut

    assert default_cut(spot("spot=river_small")) == "actions:1"
    assert default_cut(spot("spot=turn_small")) == "chance:3"
    bp = tmp_path / "bp.npz"
    code, _, err = run_cli(capsys, "solve", "holdem_spot(spot=river_small)", "-a", "cfr+",
                           "-n", "50", "--form", "public", "-o", bp)
    assert code == 0, err
    code, out, err = run_cli(capsys, "resolve", "holdem_spot(spot=river_small)", bp,
                             "--form", "public", "-n", "50", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["cut"], result["subgames"]) == ("actions:1", 3)

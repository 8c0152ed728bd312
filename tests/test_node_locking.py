"""Node locking (rcfr.forms.lock, rcfr.solvers.locking, rcfr solve --lock): a lock to a
player's own equilibrium changes nothing; a player locked to always check on the river is
exploited by exactly a direct best response to it; the locked strategy is held bit for bit on
both forms and every fused loop; checkpoints resume bit for bit under a lock and refuse
another; bad lock files give one error line."""

import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from conftest import one_line_error, run_cli

from rcfr import solve
from rcfr.evaluate import best_response, evaluate
from rcfr.forms.compile import compile_game
from rcfr.forms.lock import make_lock
from rcfr.forms.view import public_nodes
from rcfr.games.holdem.combos import combo_from_str
from rcfr.games.holdem.hand_classes import CLASS_NAMES, COMBO_CLASS
from rcfr.policy import TabularPolicy
from rcfr.solvers.locking import read_lock
from rcfr.spot_report import spot_report

RIVER = "holdem_spot(spot=river_small)"
CHECK = 0  # the river spot's first action at the root (check, bet 100, allin 400)


def player_lock(tree, probs, player):
    """A lock of ``player``'s every information set to ``probs``."""
    return make_lock(tree, {i: probs[tree.infoset_seq_start[i]:
                                     tree.infoset_seq_start[i] + tree.infoset_num_actions[i]]
                            for i in tree.player_infosets(player)})


@pytest.fixture(scope="session")
def river():
    """river_small's public form and a 100-iteration DCFR solve of it."""
    tree = compile_game(RIVER, "public")
    return tree, solve(tree, "dcfr", 100).policy


@pytest.fixture(scope="session")
def always_check(river):
    """The solve's strategy with player 0 checking every hand at the root, and player 1's
    direct best-response value against it (rcfr.evaluate.best_response)."""
    tree, policy = river
    probs = policy.probs.copy()
    view = public_nodes(tree)
    lo = int(view.info_start[0])
    for i in range(lo, lo + int(view.info_count[0])):
        s = tree.infoset_seq_start[i]
        probs[s:s + 3] = 0.0
        probs[s + CHECK] = 1.0
    locked = TabularPolicy(tree, probs)
    return locked, best_response(tree, locked, 1)[0]


def test_locking_a_player_to_its_equilibrium_changes_nothing():
    tree = compile_game("kuhn", "history")
    free = solve(tree, "cfr+", 500)
    eps = free.evaluation.exploitability
    lock = player_lock(tree, free.policy.probs, 0)
    held = solve(tree, "cfr+", 500, lock=lock)
    s0 = tree.player_sequences(0)
    assert np.array_equal(held.policy.probs[s0.start:s0.stop], free.policy.probs[s0.start:s0.stop])
    # player 1 best-responds to an eps-equilibrium strategy: the value moves by at most the
    # unlocked solve's NashConv plus what player 1 can still gain in the locked solve
    gain0, gain1 = held.evaluation.gains
    assert gain0 == pytest.approx(0.0, abs=1e-12)  # player 0 is locked throughout
    assert abs(held.evaluation.value - free.evaluation.value) <= 2 * eps + gain1
    assert abs(free.evaluation.value - (-1 / 18)) < 1e-3  # Kuhn's value, as a sanity anchor


@pytest.mark.parametrize("algorithm", ["dcfr", "cfr+"])  # run_public, and the layout's loop
def test_a_river_check_lock_is_exploited_by_the_best_response(river, always_check, algorithm):
    tree, _ = river
    locked, br1 = always_check
    lock = player_lock(tree, locked.probs, 0)
    result = solve(tree, algorithm, 300, lock=lock)
    ev = result.evaluation
    assert ev.locked
    assert np.array_equal(result.policy.probs[lock.seq], lock.prob)  # the lock, held exactly
    gain0, gain1 = ev.gains
    assert gain0 == pytest.approx(0.0, abs=1e-9)
    # the locked game's evaluation against rcfr.evaluate's best response: player 1's value is
    # its best response's less what it can still gain
    assert -ev.value == pytest.approx(br1 - gain1, abs=1e-9)
    assert 0 <= gain1 < 1e-3 * tree.game.starting_pot
    # checking everything at the root costs player 0: below its value in the unlocked solve
    assert ev.value < evaluate(tree, river[1]).value


def test_a_fully_locked_toy_game_reaches_the_best_response_value():
    """Kuhn, player 0 locked to always check and call with the king only: the locked solve
    is player 1's best response, to 1e-9."""
    tree = compile_game("kuhn", "history")
    probs = TabularPolicy.uniform(tree).probs.copy()
    for card in "JQK":  # actions: 0 pass/fold, 1 bet/call
        for key, a in ((card, 0), (card + "pb", 1 if card == "K" else 0)):
            i = tree.infoset_index(key, 0)
            s = tree.infoset_seq_start[i]
            probs[s:s + 2] = 0.0
            probs[s + a] = 1.0
    lock = player_lock(tree, probs, 0)
    br1 = best_response(tree, TabularPolicy(tree, probs), 1)[0]
    result = solve(tree, "dcfr", 2000, lock=lock)
    assert -result.evaluation.value == pytest.approx(br1, abs=1e-9)
    assert result.evaluation.exploitability < 1e-9


def test_a_toml_lock_by_path_hand_class_and_combo(river, tmp_path):
    """Player 0 at the root: every hand checks, AKs bets 100, and AsKs (an AKs combo) goes
    all-in; the solve holds exactly that, combo before class before '*'."""
    tree, _ = river
    lock_file = tmp_path / "lock.toml"
    lock_file.write_text('[[node]]\npath = ""\nplayer = 0\n'
                         'hands = { "*" = { check = 1 }, AKs = [0, 1, 0], '
                         'AsKs = { "allin 400" = 1 } }\n')
    lock = read_lock(tree, lock_file)
    view = public_nodes(tree)
    assert lock.infosets(0) == int(view.info_count[0]) and lock.infosets(1) == 0
    result = solve(tree, "dcfr", 20, lock=str(lock_file))
    report = spot_report(tree, result.policy.probs, "")
    strategy = report.ranges[0].strategy  # [actions, 1326]
    live = report.ranges[0].reach > 0
    aks = combo_from_str("AsKs")
    akx = np.flatnonzero(live & (COMBO_CLASS == CLASS_NAMES.index("AKs")))
    assert aks in akx and len(akx) > 1
    assert strategy[:, aks].tolist() == [0.0, 0.0, 1.0]
    for k in akx[akx != aks]:
        assert strategy[:, k].tolist() == [0.0, 1.0, 0.0]
    rest = np.flatnonzero(live & (COMBO_CLASS != CLASS_NAMES.index("AKs")))
    assert np.all(strategy[CHECK, rest] == 1.0)
    # on the history form the same file locks the same information sets (mapped by key)
    hist = compile_game(RIVER, "history")
    assert read_lock(hist, lock_file).infosets(0) == lock.infosets(0)


def test_every_loop_holds_the_lock(tmp_path):
    """Alternating and simultaneous, float64, float32 and int16 tables, both forms: the
    average and current strategies equal the lock at every locked set, and the two forms'
    locked solves agree."""
    lock_file = tmp_path / "kuhn.toml"
    lock_file.write_text('[[infoset]]\nkey = "J"\nprobs = [0.25, 0.75]\n'
                         '[[infoset]]\nkey = "Kb"\nprobs = [1, 0]\n')
    values = {}
    for form in ("history", "public"):
        tree = compile_game("kuhn", form)
        lock = read_lock(tree, lock_file)
        for options in ({}, {"alternating": False}, {"dtype": "float32"},
                        {"storage": "int16"}):
            result = solve(tree, "cfr+", 50, lock=str(lock_file), **options)
            for probs in (result.policy.probs, result.solver.current_policy().probs):
                assert np.allclose(probs[lock.seq], lock.prob, atol=1e-7), (form, options)
            values[form, str(options)] = result.evaluation.value
    for options in ({}, {"alternating": False}):
        assert values["history", str(options)] == pytest.approx(
            values["public", str(options)], abs=1e-12)


def test_checkpoints_resume_bit_for_bit_under_a_lock(tmp_path, capsys):
    lock_file = tmp_path / "kuhn.toml"
    lock_file.write_text('[[infoset]]\nkey = "Q"\nprobs = [0.5, 0.5]\n')
    other = tmp_path / "other.toml"
    other.write_text('[[infoset]]\nkey = "Q"\nprobs = [0.4, 0.6]\n')
    ck, whole, half = tmp_path / "ck.npz", tmp_path / "whole.npz", tmp_path / "half.npz"
    base = ["solve", "kuhn", "-a", "dcfr", "--lock", lock_file]
    assert run_cli(capsys, *base, "-n", "40", "-o", whole)[0] == 0
    assert run_cli(capsys, *base, "-n", "20", "--checkpoint", ck)[0] == 0
    assert run_cli(capsys, *base, "-n", "20", "--resume", ck, "-o", half)[0] == 0
    a, b = TabularPolicy.load(whole), TabularPolicy.load(half)
    assert np.array_equal(a.probs, b.probs)
    assert a.metadata["lock"] == read_lock(a.tree, lock_file).digest()
    assert a.metadata["locked_infosets"] == [1, 0]
    code, _, err = run_cli(capsys, "solve", "kuhn", "-a", "dcfr", "--lock", other, "-n", "5",
                           "--resume", ck)
    assert "was run with lock" in one_line_error(code, err)
    code, _, err = run_cli(capsys, "solve", "kuhn", "-a", "dcfr", "-n", "5", "--resume", ck)
    assert "was run with lock" in one_line_error(code, err)


@pytest.mark.parametrize("text, words", [
    ('[[node]]\npath = "check,raise"\nhands = { "*" = [1, 0] }\n', "no 'raise' at check"),
    ('[[node]]\npath = ""\nhands = { "ZZs" = [1, 0, 0] }\n', "unknown hand 'ZZs'"),
    ('[[node]]\npath = ""\nhands = { "72o" = [1, 0, 0] }\n', "no hand of 72o"),
    ('[[node]]\npath = ""\nhands = { "AKs" = [0.5, 0.6, 0] }\n', "sum to 1"),
    ('[[node]]\npath = ""\nhands = { "AKs" = [1, 0] }\n', "3 probabilities"),
    ('[[node]]\npath = ""\nhands = { "AKs" = { fold = 1 } }\n', "no action 'fold'"),
    ('[[node]]\npath = ""\nplayer = 1\nhands = { "*" = [1, 0, 0] }\n', "player 0 acts"),
    ('[[node]]\npath = "check,bet 100,call"\nhands = { "*" = [1] }\n', "not a decision"),
    ('[[infoset]]\nkey = "nope"\nprobs = [1, 0]\n', "no information set 'nope'"),
    ('player = 0\n', "locks nothing"),
    ('[[node]]\npath = ""\nhands = { "*" = [1, 0, 0] }\nspeed = 3\n', "unknown key 'speed'"),
    ('[[node\n', "not valid TOML"),
])
def test_bad_lock_files_give_one_error_line(river, tmp_path, capsys, text, words):
    lock_file = tmp_path / "bad.toml"
    lock_file.write_text(text)
    code, _, err = run_cli(capsys, "solve", RIVER, "--form", "public", "-a", "dcfr", "-n",
                           "2", "--lock", lock_file, "-o", tmp_path / "out.npz")
    assert words in one_line_error(code, err)
    assert not (tmp_path / "out.npz").exists()


@pytest.mark.parametrize("args, words", [
    (["-a", "os"], "locks nodes of the full-width solvers"),
    (["-a", "xfp"], "locks nodes of the full-width solvers"),
    (["-a", "cfr", "--lock", "missing.npz:0"], "no such strategy file"),
    (["-a", "cfr", "--lock", "eq.npz"], "name the locked player"),
    (["-a", "cfr", "--lock", "eq.npz:2"], "as eq.npz:0 or eq.npz:1"),
    (["-a", "cfr", "--lock", "missing.toml"], "no such lock file"),
    (["-a", "cfr", "--abstraction", "J.QK"], "takes no --abstraction"),
])
def test_bad_lock_options_give_one_error_line(tmp_path, capsys, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    Path("kuhn.toml").write_text('[[infoset]]\nkey = "Q"\nprobs = [0.5, 0.5]\n')
    game = "leduc" if "--abstraction" in args else "kuhn"
    lock = [] if "--lock" in args else ["--lock", "kuhn.toml"]
    code, _, err = run_cli(capsys, "solve", game, "-n", "2", *lock, *args)
    assert words in one_line_error(code, err)


DOC = (Path(__file__).resolve().parents[1] / "docs" / "real_cards.md").read_text()


def test_the_docs_node_locking_section_runs_as_printed(tmp_path, capsys, monkeypatch):
    """docs/real_cards.md's "Node locking": its lock files saved as their first comment names
    them, then its commands in order, with the values their comments and the text give."""
    section = DOC[DOC.index("\n## Node locking\n"):]
    section = section[:section.index("\n## ", 1)]
    monkeypatch.chdir(tmp_path)
    tomls = re.findall(r"```toml\n(.*?)```", section, re.S)
    assert len(tomls) == 2
    for text in tomls:
        name = re.match(r"# (\S+\.toml):", text).group(1)
        Path(name).write_text(text)
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    lines = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    assert len(lines) == 6
    outs = []
    for words in lines:
        code, out, err = run_cli(capsys, *words[1:])
        assert code == 0 and "error:" not in err, f"{words}: {err}"
        outs.append(out)
    values = [float(re.search(r"value to player 0\s+(\S+)", outs[i]).group(1))
              for i in (0, 3, 4)]
    assert [round(values[0], 1), round(values[1], 3), round(values[2], 3)] == [-85.2, -0.340,
                                                                                -0.373]
    assert "in the locked game" in outs[0] and "in the locked game" in outs[2]
    assert re.search(r"bet 100 100\.0%", outs[1])  # player 1 bets every hand
    nash_conv = 2 * float(re.search(r"exploitability\s+(\S+)", outs[3]).group(1))
    assert f"NashConv {nash_conv:.3f}" in " ".join(section.split())
    assert abs(values[2] - values[1]) <= nash_conv
    assert "in the locked game" in outs[5]


def test_regression_cfr_holds_the_lock_through_the_python_step(tmp_path):
    """RCFR runs the loop's Python step: with the tabular regressor under a lock it is the
    locked CFR (as unlocked, tests/test_rcfr.py), and its strategies hold the lock."""
    lock_file = tmp_path / "kuhn.toml"
    lock_file.write_text('[[infoset]]\nkey = "J"\nprobs = [0.25, 0.75]\n')
    tree = compile_game("kuhn", "history")
    lock = read_lock(tree, lock_file)
    ref = solve(tree, "cfr", 200, lock=str(lock_file), averaging="uniform")
    ours = solve(tree, "rcfr", 200, lock=str(lock_file), regressor="tabular")
    np.testing.assert_allclose(ours.solver.strategy_, ref.solver.strategy_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.policy.probs, ref.policy.probs, rtol=0, atol=1e-12)
    assert np.array_equal(ours.policy.probs[lock.seq], lock.prob)
    assert ours.evaluation.locked
    assert ours.evaluation.exploitability == pytest.approx(ref.evaluation.exploitability,
                                                           abs=1e-12)


def test_a_run_spec_hash_follows_the_lock_files_contents(tmp_path):
    from rcfr.run.spec import RunSpec

    lock_file = tmp_path / "kuhn.toml"
    lock_file.write_text('[[infoset]]\nkey = "Q"\nprobs = [0.5, 0.5]\n')
    spec = RunSpec(game="kuhn", algorithm="cfr", iterations=10, lock=str(lock_file))
    unlocked = RunSpec(game="kuhn", algorithm="cfr", iterations=10)
    again = RunSpec(game="kuhn", algorithm="cfr", iterations=10, lock=str(lock_file))
    assert spec.hash == again.hash != unlocked.hash
    lock_file.write_text('[[infoset]]\nkey = "Q"\nprobs = [0.4, 0.6]\n')
    changed = RunSpec(game="kuhn", algorithm="cfr", iterations=10, lock=str(lock_file))
    assert changed.hash != spec.hash
    assert '"lock_digest"' in changed.canonical_json()

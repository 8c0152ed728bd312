"""Policy and checkpoint files through the Python API: exact round trips, plain-numpy
readability, refusal of wrong or tampered files, atomic writes, and checkpoints that resume
bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from rcfr import RcfrError, TabularPolicy, compile_game, load_game
from rcfr.core.fileio import read_npz, write_npz
from rcfr.policy import POLICY_FORMAT
from rcfr.solvers.loop import CFRSolver

KUHN_J, KUHN_Q, KUHN_K = 0, 1, 2


def _distinct_policy(tree) -> TabularPolicy:
    """A policy whose every information set has its own, non-uniform distribution."""
    rng = np.random.default_rng(7)
    weights = rng.uniform(0.1, 1.0, tree.num_sequences)
    return TabularPolicy.from_weights(tree, weights, {"note": "test"})


def test_uniform_round_trip_exact(tmp_path):
    tree = compile_game("leduc(canonical=true)")
    pol = TabularPolicy.uniform(tree)
    path = tmp_path / "u.npz"
    assert pol.save(path) == path
    back = TabularPolicy.load(path)
    assert str(back.game) == "leduc(canonical=true)"
    assert back.probs.dtype == np.float64
    assert np.array_equal(back.probs, pol.probs)
    # with the game given explicitly, as a string or as a tree
    assert np.array_equal(TabularPolicy.load(path, "leduc(canonical=true)").probs, pol.probs)
    assert np.array_equal(TabularPolicy.load(path, tree).probs, pol.probs)
    # uniform really is uniform: Leduc has 2 or 3 actions per information set
    assert set(np.round(pol.probs, 12)) == {0.5, round(1 / 3, 12)}


def test_non_uniform_round_trip_keeps_metadata(tmp_path):
    tree = compile_game("kuhn")
    pol = _distinct_policy(tree)
    path = tmp_path / "p.npz"
    pol.save(path)
    back = TabularPolicy.load(path, tree)
    assert np.array_equal(back.probs, pol.probs)
    assert back.metadata == {"note": "test"}


def test_saved_file_is_plain_npz(tmp_path):
    pol = TabularPolicy.uniform("kuhn")
    path = tmp_path / "k.npz"
    pol.save(path)
    with np.load(path, allow_pickle=False) as data:
        assert set(data.files) == {"probs", "meta"}
        probs = np.array(data["probs"])
        meta = str(data["meta"][()])
    assert np.array_equal(probs, pol.probs)
    assert '"rcfr.policy"' in meta and '"kuhn"' in meta
    arrays, header = read_npz(path, POLICY_FORMAT)
    assert header["format"] == POLICY_FORMAT
    assert header["game"] == "kuhn"
    assert header["num_sequences"] == 24


def test_load_with_other_game_fails(tmp_path):
    path = tmp_path / "leduc.npz"
    TabularPolicy.uniform("leduc").save(path)
    for other in ("kuhn", "leduc(canonical=true)", "rps"):
        with pytest.raises(RcfrError, match="leduc"):
            TabularPolicy.load(path, other)


def _tamper(path, probs) -> None:
    arrays, meta = read_npz(path, POLICY_FORMAT)
    write_npz(path, {"probs": probs}, meta)


@pytest.mark.parametrize("how", ["short", "long", "negative", "unnormalised", "int", "2d",
                                 "nan", "missing"])
def test_tampered_probs_rejected(tmp_path, how):
    tree = compile_game("kuhn")
    pol = TabularPolicy.uniform(tree)
    path = tmp_path / "k.npz"
    pol.save(path)
    p = pol.probs.copy()
    if how == "short":
        bad = p[:-1]
    elif how == "long":
        bad = np.append(p, 0.5)
    elif how == "negative":
        bad = p.copy()
        bad[0], bad[1] = 1.5, -0.5  # still sums to one
    elif how == "unnormalised":
        bad = p * 0.9
    elif how == "int":
        bad = np.ones(tree.num_sequences, dtype=np.int64)
    elif how == "2d":
        bad = p.reshape(2, -1)
    elif how == "nan":
        bad = p.copy()
        bad[3] = np.nan
    if how == "missing":
        arrays, meta = read_npz(path, POLICY_FORMAT)
        write_npz(path, {"other": p}, meta)
    else:
        _tamper(path, bad)
    with pytest.raises(RcfrError):
        TabularPolicy.load(path, tree)


def test_read_npz_rejects_wrong_kind(tmp_path):
    path = tmp_path / "k.npz"
    TabularPolicy.uniform("kuhn").save(path)
    with pytest.raises(RcfrError):
        read_npz(path, "rcfr.checkpoint")
    with pytest.raises(RcfrError):
        CFRSolver("kuhn", "cfr").load_checkpoint(path)


def test_action_probabilities_by_state_and_string():
    game = load_game("kuhn")
    tree = compile_game(game)
    pol = _distinct_policy(tree)

    state = game.new_initial_state()
    state.apply_action(KUHN_K)  # player 0 gets the king
    state.apply_action(KUHN_J)  # player 1 gets the jack
    assert state.current_player() == 0
    key = state.information_state_string(0)
    assert key == "K"
    by_state = pol.action_probabilities(state)
    by_key = pol.action_probabilities(key)
    assert by_state == by_key
    assert set(by_state) == {0, 1}
    assert sum(by_state.values()) == pytest.approx(1.0, abs=1e-12)
    i = tree.infoset_index("K", 0)
    assert tree.infoset_player[i] == 0
    assert [by_state[0], by_state[1]] == pol.infoset_probabilities(i).tolist()
    assert by_state[0] != pytest.approx(0.5)  # the test policy is not uniform

    # player 1 after player 0 passes: sees only the jack and the pass
    state.apply_action(0)
    assert state.current_player() == 1
    p1 = pol.action_probabilities(state)
    assert p1 == pol.action_probabilities("Jp") == pol.action_probabilities("Jp", 1)
    assert p1 != by_state
    assert pol.action_probabilities(state, player=1) == p1
    # player 0 does not act at "Kp": asking for its view there is an error, not a guess
    with pytest.raises(RcfrError):
        pol.action_probabilities(state, player=0)
    with pytest.raises(RcfrError):
        pol.action_probabilities("no such information state")


def test_constructor_rejects_bad_probabilities():
    tree = compile_game("kuhn")
    good = TabularPolicy.uniform(tree).probs
    TabularPolicy(tree, good)  # accepted
    bad = good.copy()
    bad[0] = 0.7  # that information set now sums to 1.2
    with pytest.raises(RcfrError, match="sum"):
        TabularPolicy(tree, bad)
    with pytest.raises(RcfrError):
        TabularPolicy(tree, np.zeros(tree.num_sequences))
    with pytest.raises(RcfrError):
        TabularPolicy(tree, good[:-2])
    neg = good.copy()
    neg[0], neg[1] = 1.25, -0.25
    with pytest.raises(RcfrError):
        TabularPolicy(tree, neg)


def test_write_npz_atomic_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "k.npz"
    pol = TabularPolicy.uniform("kuhn")
    pol.save(path)
    before = path.read_bytes()

    def broken_savez(handle, **arrays):
        handle.write(b"PK\x03\x04 half a zip file")
        handle.flush()
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez_compressed", broken_savez)
    other = TabularPolicy.from_weights(pol.tree, np.arange(1.0, 25.0))
    with pytest.raises(RcfrError, match="cannot write .*k.npz: disk full"):  # names the file
        other.save(path)
    monkeypatch.undo()

    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["k.npz"]
    assert np.array_equal(TabularPolicy.load(path).probs, pol.probs)

    # a failed first write leaves nothing at all
    fresh = tmp_path / "new.npz"
    monkeypatch.setattr(np, "savez_compressed", broken_savez)
    with pytest.raises(RcfrError, match="new.npz"):
        other.save(fresh)
    monkeypatch.undo()
    assert not fresh.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["k.npz"]


def test_write_npz_refuses_missing_folder_and_directory(tmp_path):
    pol = TabularPolicy.uniform("kuhn")
    with pytest.raises(RcfrError):
        pol.save(tmp_path / "missing" / "k.npz")
    with pytest.raises(RcfrError):
        pol.save(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_checkpoint_resume_is_exact(tmp_path):
    tree = compile_game("leduc(canonical=true)")
    ckpt = tmp_path / "ckpt.npz"

    first = CFRSolver(tree, "cfr").run(50)
    first.save_checkpoint(ckpt)
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt.npz"]

    resumed = CFRSolver(tree, "cfr").load_checkpoint(ckpt)
    assert resumed.iteration == 50
    assert np.array_equal(resumed.average_policy().probs, first.average_policy().probs)
    resumed.run(50)

    straight = CFRSolver(tree, "cfr").run(100)
    assert resumed.iteration == straight.iteration == 100
    a, b = resumed.average_policy().probs, straight.average_policy().probs
    assert np.array_equal(a, b)
    assert np.array_equal(resumed.current_policy().probs, straight.current_policy().probs)
    # and the 50-iteration average differs from the 100-iteration one
    assert not np.array_equal(first.average_policy().probs, b)


def test_checkpoint_refuses_other_game_and_algorithm(tmp_path):
    ckpt = tmp_path / "ckpt.npz"
    CFRSolver("kuhn", "cfr").run(5).save_checkpoint(ckpt)
    with pytest.raises(RcfrError):
        CFRSolver("leduc(canonical=true)", "cfr").load_checkpoint(ckpt)
    with pytest.raises(RcfrError):
        CFRSolver("kuhn", "cfr+").load_checkpoint(ckpt)
    assert CFRSolver("kuhn", "cfr").load_checkpoint(ckpt).iteration == 5


def test_checkpoint_with_wrong_regret_length_is_refused(tmp_path):
    from rcfr.solvers.checkpoint import CHECKPOINT_FORMAT

    path = tmp_path / "c.npz"
    CFRSolver("kuhn", "cfr").run(5).save_checkpoint(path)
    arrays, meta = read_npz(path, CHECKPOINT_FORMAT)
    arrays["estimator_regrets"] = arrays["estimator_regrets"][:-1]
    write_npz(path, arrays, meta)
    with pytest.raises(RcfrError, match="corrupted"):
        CFRSolver("kuhn", "cfr").load_checkpoint(path)


@pytest.mark.parametrize("game", ["leduc", "liars_dice(faces=3)"])
def test_a_strategy_of_one_form_loads_on_the_other(tmp_path, game):
    """A strategy file names its compiled form; loaded for the game's other form it is read on
    its own form and converted exactly (so ``evaluate`` and ``play`` take either)."""
    from rcfr.forms.public.tree import compile_public
    from rcfr.policy import convert_policy
    from rcfr.solvers.loop import CFRSolver

    history, public = compile_game(game, "history"), compile_public(game)
    pub = CFRSolver(public, "cfr+").run(30).average_policy()
    path = pub.save(tmp_path / "public.npz")
    assert read_npz(path, POLICY_FORMAT)[1]["form"] == "public"
    on_history = TabularPolicy.load(path, history)
    assert on_history.tree is history
    np.testing.assert_array_equal(on_history.probs, convert_policy(pub, history).probs)
    back = TabularPolicy.load(on_history.save(tmp_path / "history.npz"), public)
    np.testing.assert_array_equal(back.probs, pub.probs)
    with pytest.raises(RcfrError, match="holds a strategy for"):
        TabularPolicy.load(path, compile_game("kuhn"))

"""The RL environment (issue 24): rcfr's environment in OpenSpiel's ``rl_environment``
convention deals the same episodes as OpenSpiel's environment on the same seed (rewards,
legal actions, players, observations, step types over 1,000 random episodes), OpenSpiel's RL
agents run on rcfr games, and the ``infostate`` observation is OpenSpiel's
``information_state_tensor`` at every history."""

from __future__ import annotations

import numpy as np
import pytest

from rcfr.core.errors import RcfrError
from rcfr.features import infoset_features
from rcfr.forms.compile import compile_game
from rcfr.games.infostate import infostate_tensor
from rcfr.games.registry import load_game
from rcfr.games.rl_environment import Environment, StepType

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import rl_environment  # noqa: E402

from rcfr.interop.rl_environment import RLEnvironment, openspiel_environment  # noqa: E402


def _episodes(env, n: int, seed: int) -> list:
    """Every time step of ``n`` episodes, actions drawn uniformly from the legal ones."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        step = env.reset()
        out.append(step)
        while not step.last():
            legal = step.observations["legal_actions"][step.current_player()]
            step = env.step([int(rng.choice(legal))])
            out.append(step)
    return out


@pytest.mark.parametrize("game", ["kuhn", "leduc", "openspiel:kuhn_poker",
                                  "openspiel:leduc_poker"])
def test_the_environment_deals_openspiels_episodes(game):
    ours = _episodes(Environment(game, seed=7), 1000, seed=3)
    theirs = _episodes(openspiel_environment(game, seed=7), 1000, seed=3)
    assert len(ours) == len(theirs) > 2000  # non-vacuous: whole episodes of several steps
    rewards = []
    for a, b in zip(ours, theirs, strict=True):
        assert a.step_type.value == b.step_type.value
        assert a.rewards == b.rewards and a.discounts == b.discounts
        assert a.observations["legal_actions"] == b.observations["legal_actions"]
        assert a.observations["current_player"] == b.observations["current_player"]
        np.testing.assert_array_equal(a.observations["info_state"],
                                      b.observations["info_state"])
        if a.last():
            rewards.append(a.rewards[0])
    assert len(rewards) == 1000 and len(set(rewards)) > 2  # several payoffs seen


def test_openspiels_agents_run_on_rcfr_games():
    torch = pytest.importorskip("torch")
    pytest.importorskip("tree")  # dm-tree: OpenSpiel's PyTorch NFSP imports it
    from open_spiel.python.pytorch import nfsp

    def train(env):
        torch.manual_seed(0)
        agents = [nfsp.NFSP(p, env.observation_spec()["info_state"][0],
                            env.action_spec()["num_actions"], [16], 1000, 0.1,
                            batch_size=16, learn_every=8, min_buffer_size_to_learn=32)
                  for p in (0, 1)]
        np.random.seed(0)
        for _ in range(60):
            step = env.reset()
            while not step.last():
                p = step.observations["current_player"]
                step = env.step([agents[p].step(step).action])
            for agent in agents:
                agent.step(step)
        return [np.concatenate([v.detach().numpy().ravel() for v in
                                a._avg_network.parameters()]) for a in agents]

    ours = RLEnvironment("leduc", seed=1)
    step = ours.reset()
    assert isinstance(step, rl_environment.TimeStep) and step.step_type is \
        rl_environment.StepType.FIRST
    a, b = train(RLEnvironment("leduc", seed=1)), train(openspiel_environment("leduc", seed=1))
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)  # the same training, step for step


@pytest.mark.parametrize(("ours", "theirs"), [("kuhn", "kuhn_poker"),
                                              ("leduc", "leduc_poker"),
                                              ("openspiel:kuhn_poker", "kuhn_poker")])
def test_the_infostate_tensor_is_openspiels(ours, theirs):
    game, os_game = load_game(ours), pyspiel.load_game(theirs)
    seen = 0

    def walk(state, chance):
        nonlocal seen
        if state.is_terminal():
            return
        if not state.is_chance_node():
            for p in (0, 1):
                np.testing.assert_array_equal(
                    infostate_tensor(game, state.history(), chance, p),
                    state.information_state_tensor(p))
                seen += 1
        for a in state.legal_actions():
            walk(state.child(a), [*chance, state.is_chance_node()])

    walk(os_game.new_initial_state(), [])
    assert seen == {"kuhn_poker": 48, "leduc_poker": 7560}[theirs]
    tree = compile_game(ours)
    for p in (0, 1):  # the feature rows: one distinct row per information set
        rows = infoset_features(tree, p, "infostate")
        assert len(np.unique(rows, axis=0)) == len(tree.player_infosets(p))


def test_bad_input_is_one_line():
    with pytest.raises(RcfrError, match="information-state tensor"):
        Environment("goofspiel")
    env = Environment("kuhn", seed=0)
    env.reset()
    with pytest.raises(RcfrError, match="illegal action 5"):
        env.step([5])
    with pytest.raises(RcfrError, match="features are defined"):
        infoset_features(compile_game("rps"), 0, "infostate")
    assert StepType.LAST.last()

"""Play a game against a saved strategy, one hand at a time, in a terminal (or any text
stream): the strategy's seat samples its actions from the policy, chance is sampled, and the
human picks actions by number or name."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .core.errors import RcfrError
from .games.protocol import CHANCE, State
from .policy import TabularPolicy


def _sample(rng: np.random.Generator, options: list[tuple[int, float]]) -> int:
    actions = [a for a, _ in options]
    probs = np.array([p for _, p in options], dtype=np.float64)
    return int(actions[rng.choice(len(actions), p=probs / probs.sum())])


def _choose(state: State, seat: int, read: Callable[[], str | None],
            write: Callable[[str], None]) -> int | None:
    """Ask for one of the legal actions until the answer names one; ``None`` at end of input."""
    actions = state.legal_actions()
    names = [state.action_to_string(seat, a) for a in actions]
    write(f"you ({state.information_state_string(seat)}): "
          + "  ".join(f"[{i}] {n}" for i, n in enumerate(names)))
    while True:
        line = read()
        if line is None:
            return None
        answer = line.strip().lower()
        if answer.isdigit() and int(answer) < len(actions):
            return actions[int(answer)]
        matches = [a for a, n in zip(actions, names, strict=True) if n.lower() == answer]
        if matches:
            return matches[0]
        write(f"pick a number from 0 to {len(actions) - 1} or an action's name")


def play_hand(policy: TabularPolicy, seat: int, rng: np.random.Generator,
              read: Callable[[], str | None], write: Callable[[str], None],
              on_end: Callable[[State], None] | None = None) -> float | None:
    """Play one hand with the human in ``seat``; returns the human's payoff (``None`` when the
    input ends first).  The human sees their information state at each decision (chance
    outcomes are not announced: what the human may know is in that state); both players'
    final information states are shown at the end, and ``on_end`` gets the final state."""
    if seat not in (0, 1):
        raise RcfrError(f"the seat must be 0 or 1, got {seat!r}")
    state = policy.tree.game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            action = _sample(rng, state.chance_outcomes())
        elif player == seat:
            action = _choose(state, seat, read, write)
            if action is None:
                return None
        else:
            probs = policy.action_probabilities(state, player)
            action = _sample(rng, list(probs.items()))
            write(f"strategy: {state.action_to_string(player, action)}")
        state.apply_action(action)
    payoff = float(state.returns()[seat])
    if on_end is not None:
        on_end(state)
    write(f"end: you {state.information_state_string(seat)!r}, strategy "
          f"{state.information_state_string(1 - seat)!r}")
    write(f"you {'win' if payoff > 0 else 'lose' if payoff < 0 else 'tie'} {abs(payoff):g}")
    return payoff

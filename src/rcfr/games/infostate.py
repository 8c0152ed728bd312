"""OpenSpiel's information-state tensor of Kuhn poker, Leduc hold'em and ``openspiel:`` games,
computed from an action history: what :mod:`rcfr.games.rl_environment` observes and the
``infostate`` feature set (:mod:`rcfr.features.infostate`) reads at every information set.

* Kuhn poker: the acting player one-hot (2), the private card one-hot (3), and two bits per
  betting action (pass, bet) for up to 3 actions -- 11 values, as OpenSpiel's ``kuhn_poker``.
* Leduc hold'em: the player one-hot (2), the private card one-hot (6), the board card one-hot
  (6; zeros before the flop), and for each of the two rounds two bits per betting action
  (call, raise) for up to 4 actions -- 30 values, as OpenSpiel's ``leduc_poker``
  (``leduc(canonical=true)`` deals 3 ranks: 3 + 3 card values, the same betting bits).
* ``openspiel:`` games: the wrapped game's own ``information_state_tensor`` (the history
  replayed on an OpenSpiel state).

Equal to OpenSpiel's tensors at every history of both players (``tests/test_rl_environment.py``).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import RcfrError
from .kuhn import KuhnPoker
from .leduc import LeducPoker
from .openspiel_game import OpenSpielGame

INFOSTATE_GAMES = (KuhnPoker, LeducPoker, OpenSpielGame)
_LEDUC_ROUND = 4  # betting actions a Leduc round can hold (call, raise, raise, call)


def infostate_size(game) -> int:
    """The length of ``game``'s information-state tensor."""
    if isinstance(game, KuhnPoker):
        return 11
    if isinstance(game, LeducPoker):
        cards = 3 if game.canonical else 6
        return 2 + 2 * cards + 2 * 2 * _LEDUC_ROUND
    if isinstance(game, OpenSpielGame) and has_infostate(game):
        return int(game.os_game.information_state_tensor_size())
    raise RcfrError(f"the infostate features are defined for kuhn, leduc and openspiel: games, "
                    f"not {game}; use onehot or hashing:K")


def infostate_tensor(game, history: list[int], chance: list[bool], player: int) -> np.ndarray:
    """``player``'s information-state tensor after ``history`` (every action from the root,
    chance outcomes included; ``chance[k]``: whether action ``k`` was chance's)."""
    out = np.zeros(infostate_size(game))
    if isinstance(game, OpenSpielGame):
        state = game.os_game.new_initial_state()
        for a in history:
            state.apply_action(int(a))
        return np.asarray(state.information_state_tensor(player), dtype=np.float64)
    dealt = [a for a, c in zip(history, chance, strict=True) if c]
    bets = [[]]  # betting actions by round (a chance event after a bet opens a round)
    for a, c in zip(history, chance, strict=True):
        if c and bets[-1]:
            bets.append([])
        elif not c:
            bets[-1].append(a)
    out[player] = 1.0
    if isinstance(game, KuhnPoker):
        if len(dealt) > player:
            out[2 + dealt[player]] = 1.0
        for k, a in enumerate(bets[0][:3]):
            out[5 + 2 * k + a] = 1.0
        return out
    cards = 3 if game.canonical else 6
    if len(dealt) > player:
        out[2 + dealt[player]] = 1.0
    if len(dealt) > 2:
        out[2 + cards + dealt[2]] = 1.0
    base = 2 + 2 * cards
    for r, actions in enumerate(bets[:2]):
        for k, a in enumerate(actions[:_LEDUC_ROUND]):
            if a > 0:  # call (1) and raise (2); a fold ends the game
                out[base + r * 2 * _LEDUC_ROUND + 2 * k + a - 1] = 1.0
    return out



def has_infostate(game) -> bool:
    """Whether :func:`infostate_tensor` is defined for ``game``."""
    return isinstance(game, (KuhnPoker, LeducPoker)) or (
        isinstance(game, OpenSpielGame)
        and bool(game.os_game.get_type().provides_information_state_tensor))

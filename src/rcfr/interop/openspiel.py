"""Policies to and from OpenSpiel's ``open_spiel.python.policy.TabularPolicy`` and its C++
``pyspiel.TabularPolicy``.

A game loaded as ``openspiel:<game>`` shares OpenSpiel's information-state strings.  Our native
games (kuhn, leduc, goofspiel, liars_dice, rps) use their own strings but OpenSpiel's chance
outcome and action ids, so their information sets are matched by walking our compiled tree and
OpenSpiel's game in lockstep from the root, checking at every history that the player, the
legal actions (chance probabilities, payoffs) agree and that the two games partition histories
into the same information sets.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from ..forms import GameTree
from ..forms.base import KIND_CHANCE, KIND_TERMINAL
from ..forms.compile import compile_game, is_compiled
from ..games.openspiel_game import OpenSpielGame, import_pyspiel, load_openspiel_game
from ..games.protocol import Game
from ..games.registry import load_game
from ..policy import TabularPolicy

__all__ = ["from_openspiel_policy", "openspiel_counterpart", "openspiel_infosets",
           "to_openspiel_policy"]

# OpenSpiel parameter names that our native games may spell differently
_ALIASES = {"num_dice": "numdice", "dice": "numdice", "faces": "dice_sides",
            "num_faces": "dice_sides", "sides": "dice_sides"}
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def openspiel_counterpart(game: GameTree | Game | str) -> str:
    """The OpenSpiel game string equivalent to ``game`` (e.g. ``kuhn`` -> ``kuhn_poker``)."""
    game = game.game if is_compiled(game) else load_game(game)
    if isinstance(game, OpenSpielGame):
        return game.spec
    name, params = game.short_name, dict(game.params)
    if name == "kuhn":
        return "kuhn_poker"
    if name == "leduc":
        if params.get("canonical"):
            raise RcfrError("leduc(canonical=true) deals ranks, OpenSpiel's leduc_poker deals "
                            "suited cards; use leduc")
        return "leduc_poker"
    if name == "rps":
        return "matrix_rps"
    if name == "goofspiel":  # ours pays +-1, like OpenSpiel's default returns_type=win_loss
        return _with_params("goofspiel", {"imp_info": True, "points_order": "descending"}, params)
    if name == "liars_dice":
        return _with_params("liars_dice", {}, params)
    raise RcfrError(f"{game} has no OpenSpiel counterpart; pass os_game explicitly")


def _with_params(os_name: str, fixed: dict[str, Any], params: dict[str, Any]) -> str:
    """``os_name(k=v,...)`` with our parameters that OpenSpiel's game also takes."""
    pyspiel = import_pyspiel()
    accepted = pyspiel.load_game(os_name).get_parameters()
    merged = dict(fixed)
    for key, value in params.items():
        key = _ALIASES.get(key, key)
        if key in accepted:
            merged[key] = value
    if not merged:
        return os_name
    shown = ",".join(f"{k}={_fmt(v)}" for k, v in sorted(merged.items()))
    return f"{os_name}({shown})"


def _fmt(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _sequential_game(tree: GameTree, os_game: Any) -> Any:
    """The (sequential) pyspiel game to convert to or from; ``None`` = ``tree``'s counterpart."""
    if os_game is None:
        os_game = openspiel_counterpart(tree)
    if isinstance(os_game, str):
        os_game = load_openspiel_game(os_game.removeprefix("openspiel:"))
    if isinstance(os_game, OpenSpielGame):
        return os_game.os_game
    return OpenSpielGame(os_game).os_game  # checks it and makes it turn-based if needed


def openspiel_infosets(tree: GameTree | Game | str, os_game: Any = None) -> list[Any]:
    """For each of our information sets, the first ``pyspiel.State`` of ``os_game`` found in it
    by a lockstep walk of both games (cached per tree and OpenSpiel game)."""
    tree = compile_game(tree)
    os_game = _sequential_game(tree, os_game)
    per_tree = _CACHE.setdefault(tree, {})
    key = str(os_game)
    if key not in per_tree:
        per_tree[key] = _lockstep(tree, os_game)
    return per_tree[key]


def _lockstep(tree: GameTree, os_game: Any) -> list[Any]:
    states: list[Any] = [None] * tree.num_infosets
    keys: list[str | None] = [None] * tree.num_infosets
    owner: dict[tuple[int, str], int] = {}
    utility = np.zeros(tree.num_nodes)
    utility[tree.terminal_nodes] = tree.terminal_utility
    child_start = tree.node_child_start
    stack = [(0, os_game.new_initial_state())]

    def mismatch(what: str, os_state: Any) -> RcfrError:
        return RcfrError(f"{tree.game} does not match OpenSpiel's {os_game}: {what} after "
                         f"actions {os_state.history()}")

    while stack:
        node, os_state = stack.pop()
        kind = int(tree.node_kind[node])
        os_player = os_state.current_player()
        children = range(int(child_start[node]), int(child_start[node + 1]))
        actions = [int(a) for a in tree.node_action[children.start : children.stop]]
        if kind == KIND_TERMINAL:
            if not os_state.is_terminal():
                raise mismatch("our history is terminal, OpenSpiel's is not", os_state)
            if abs(os_state.returns()[0] - utility[node]) > 1e-9:
                raise mismatch(f"payoff {utility[node]} vs {os_state.returns()[0]}", os_state)
            continue
        if kind == KIND_CHANCE:
            if not os_state.is_chance_node():
                raise mismatch("chance acts in ours, not in OpenSpiel's", os_state)
            probs = tree.node_chance_prob[children.start : children.stop]
            ours = [(a, float(p)) for a, p in zip(actions, probs, strict=True)]
            theirs = [(int(a), float(p)) for a, p in os_state.chance_outcomes()]
            if [a for a, _ in ours] != [a for a, _ in theirs] or not np.allclose(
                    [p for _, p in ours], [p for _, p in theirs], rtol=0, atol=1e-12):
                raise mismatch(f"chance outcomes {ours} vs {theirs}", os_state)
        else:
            if os_player != kind:
                raise mismatch(f"player {kind} acts in ours, {os_player} in OpenSpiel's",
                               os_state)
            if os_state.legal_actions() != actions:
                raise mismatch(f"legal actions {actions} vs {os_state.legal_actions()}",
                               os_state)
            info = int(tree.node_infoset[node])
            os_key = os_state.information_state_string(kind)
            if keys[info] is None:
                other = owner.setdefault((kind, os_key), info)
                if other != info:
                    raise mismatch(f"OpenSpiel merges our information sets "
                                   f"{tree.infoset_keys[other]!r} and {tree.infoset_keys[info]!r}",
                                   os_state)
                keys[info], states[info] = os_key, os_state
            elif keys[info] != os_key:
                raise mismatch(f"OpenSpiel splits our information set "
                               f"{tree.infoset_keys[info]!r}", os_state)
        stack.extend((child, os_state.child(a)) for child, a in zip(children, actions, strict=True))
    return states


def _infoset_keys(tree: GameTree, os_game: Any) -> list[str]:
    game = tree.game
    if isinstance(game, OpenSpielGame) and str(game.os_game) == str(os_game):
        return list(tree.infoset_keys)  # the same game: the same strings
    return [s.information_state_string(int(tree.infoset_player[i]))
            for i, s in enumerate(openspiel_infosets(tree, os_game))]


def _rows(lookup: dict[str, int], keys: list[str], os_game: Any) -> np.ndarray:
    try:
        return np.array([lookup[k] for k in keys], dtype=np.int64)
    except KeyError as exc:
        raise RcfrError(f"the OpenSpiel policy has no information state {exc.args[0]!r} "
                        f"of {os_game}") from None


def to_openspiel_policy(policy: TabularPolicy, os_game: Any = None, *,
                        cpp: bool = False) -> Any:
    """``policy`` as an ``open_spiel.python.policy.TabularPolicy`` of ``os_game`` (a pyspiel
    game, an :class:`OpenSpielGame` or an OpenSpiel game string; default: the OpenSpiel
    counterpart of the policy's game, :func:`openspiel_counterpart`); with ``cpp``, as
    OpenSpiel's C++ ``pyspiel.TabularPolicy`` (what ``pyspiel.exploitability`` and the C++
    algorithms take)."""
    tree = policy.tree
    os_game = _sequential_game(tree, os_game)
    keys = _infoset_keys(tree, os_game)
    if cpp:
        pyspiel = import_pyspiel()
        table = {}
        for i, key in enumerate(keys):
            start = int(tree.infoset_seq_start[i])
            table[key] = [(int(a), float(policy.probs[start + k]))
                          for k, a in enumerate(tree.infoset_actions(i))]
        return pyspiel.TabularPolicy(table)
    from open_spiel.python.policy import TabularPolicy as OSTabularPolicy

    out = OSTabularPolicy(os_game)
    rows = _rows(out.state_lookup, keys, os_game)
    table = out.action_probability_array
    table[rows] = 0.0
    table[np.repeat(rows, tree.infoset_num_actions), tree.seq_action] = policy.probs
    return out


def from_openspiel_policy(os_policy: Any, game: GameTree | Game | str,
                          os_game: Any = None) -> TabularPolicy:
    """An OpenSpiel policy -- Python (tabular, or any ``open_spiel.python.policy.Policy``) or
    C++ (``pyspiel.TabularPolicy``, e.g. ``pyspiel.kuhn_poker.get_optimal_policy``, or any
    ``pyspiel.Policy``) -- as our :class:`TabularPolicy` for ``game``.  The OpenSpiel game is
    ``os_game``, else the policy's own ``game`` (Python policies), else ``game``'s OpenSpiel
    counterpart (:func:`openspiel_counterpart`)."""
    tree = compile_game(game)
    os_game = _sequential_game(tree, os_game if os_game is not None
                               else getattr(os_policy, "game", None))
    if hasattr(os_policy, "state_lookup") and hasattr(os_policy, "action_probability_array"):
        rows = _rows(os_policy.state_lookup, _infoset_keys(tree, os_game), os_game)
        table = np.asarray(os_policy.action_probability_array, dtype=np.float64)
        probs = table[np.repeat(rows, tree.infoset_num_actions), tree.seq_action]
    elif callable(getattr(os_policy, "policy_table", None)):  # pyspiel.TabularPolicy
        table = os_policy.policy_table()
        dists = []
        for key in _infoset_keys(tree, os_game):
            if key not in table:
                raise RcfrError(f"the OpenSpiel policy has no information state {key!r} of "
                                f"{os_game}")
            dists.append(table[key])
        probs = _by_sequence(tree, dists)
    else:
        python = not _is_cpp(os_policy)
        probs = _by_sequence(tree, (
            os_policy.action_probabilities(state, int(tree.infoset_player[i])) if python
            else os_policy.action_probabilities(state)  # (a pyspiel.Policy takes the state)
            for i, state in enumerate(openspiel_infosets(tree, os_game))))
    return TabularPolicy(tree, probs, {"source": f"openspiel:{os_game}"})


def _by_sequence(tree: GameTree, dists) -> np.ndarray:
    """Each information set's action distribution (in infoset order; a mapping or pairs of
    action and probability) as probabilities by sequence; an action left out has 0."""
    probs = np.empty(tree.num_sequences)
    for i, dist in enumerate(dists):
        dist = {int(a): float(p) for a, p in dict(dist).items()}
        start = int(tree.infoset_seq_start[i])
        for k, a in enumerate(tree.infoset_actions(i)):
            probs[start + k] = dist.get(int(a), 0.0)
    return probs


def _is_cpp(os_policy: Any) -> bool:
    """Whether ``os_policy`` is one of OpenSpiel's C++ policies (``pyspiel.Policy``)."""
    pyspiel = import_pyspiel()
    return isinstance(os_policy, pyspiel.Policy)

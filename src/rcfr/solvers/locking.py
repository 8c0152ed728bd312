"""Lock files: which information sets a node-locked solve holds fixed, and to what
(:class:`~rcfr.forms.lock.NodeLock`).

A lock is read from a strategy file (``FILE.npz:P``: player ``P``'s whole strategy) or from a
TOML file (docs/real_cards.md, "Node locking")::

    strategy = "eq.npz"      # optional: where a node or information set gives no probabilities
    player = 0               # with strategy and no [[node]] / [[infoset]]: the whole player

    [[node]]                 # a public node by its action path (rcfr inspect --node)
    path = "check,bet 100"
    player = 0               # optional: checked against the player acting there
    hands = { "*" = [0, 1, 0], AKs = { call = 1 }, AsKs = [1, 0, 0] }

    [[infoset]]              # any game: an information set by its key
    key = "..."
    probs = [0.5, 0.5]

Per node, ``hands`` maps a hand to its action probabilities, as a list in the node's action
order or a table by action name (unnamed actions 0): a combo (``AsKs``) before its hand class
(``AKs``, ``QQ``, ``T9o``) before ``"*"`` (every hand); a row's own label (a private state's
name in games other than hold'em) is also a hand.  Hands not covered stay free.  Every
mistake is one :class:`~rcfr.core.errors.RcfrError` line naming the file and the entry."""

from __future__ import annotations

import hashlib
import os
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from ..forms.base import Form
from ..forms.compile import compile_game
from ..forms.convert import convert_probs, infoset_map
from ..forms.lock import NO_LOCK, NodeLock, make_lock
from ..forms.public.tree import offers_public_form
from ..forms.view import public_nodes
from ..games.holdem.combos import combo_from_str
from ..games.holdem.hand_classes import CLASS_NAMES, COMBO_CLASS
from ..policy import TabularPolicy
from ..spot_report import find_node

LockSource = NodeLock | str | os.PathLike | None


def read_lock(tree: Form, source: LockSource) -> NodeLock:
    """The lock ``source`` names on ``tree``: ``None`` (no lock), a
    :class:`~rcfr.forms.lock.NodeLock` of the tree, ``"FILE.npz:P"`` (player ``P``'s whole
    strategy in a strategy file) or a TOML lock file (module docstring)."""
    if source is None:
        return NO_LOCK
    if isinstance(source, NodeLock):
        if source.infoset_mask.shape != (tree.num_infosets,):
            raise RcfrError("the lock was made for another game")
        return source
    text = os.fspath(source)
    path, _, player = text.rpartition(":")
    if path.lower().endswith(".npz") and player.strip() in ("0", "1"):
        return _player_lock(tree, _policy(tree, Path(path), text), int(player), {})
    if text.lower().endswith(".npz") or path.lower().endswith(".npz"):
        file = text if text.lower().endswith(".npz") else path
        raise RcfrError(f"--lock {text}: name the locked player of a strategy file, as "
                        f"{file}:0 or {file}:1")
    return _toml_lock(tree, Path(text))


def lock_file_digest(source: str | os.PathLike) -> str | None:
    """A short SHA-256 of the files a lock names (a TOML lock file and the strategy file it
    reads, or ``FILE.npz:P``'s strategy file and the player), so a run's identity changes with
    their contents; ``None`` where a file cannot be read (the run itself then refuses it)."""
    text = os.fspath(source)
    path, _, player = text.rpartition(":")
    files, extra = ([Path(path)], player) if path.lower().endswith(".npz") else ([Path(text)], "")
    try:
        if files[0].suffix.lower() != ".npz":
            data = tomllib.loads(files[0].read_bytes()[: 16 << 20].decode())
            if isinstance(data.get("strategy"), str):
                files.append(files[0].parent / data["strategy"])
        h = hashlib.sha256(extra.encode())
        for f in files:
            h.update(f.read_bytes())
    except (OSError, ValueError, RecursionError):  # (UnicodeDecodeError, TOMLDecodeError)
        return None
    return h.hexdigest()[:16]


def _policy(tree: Form, path: Path, name: str) -> np.ndarray:
    if not path.is_file():
        raise RcfrError(f"--lock {name}: no such strategy file: {path}")
    return TabularPolicy.load(path, tree).probs


def _player_lock(tree: Form, probs: np.ndarray, player: int, out: dict) -> NodeLock:
    for i in tree.player_infosets(player):
        s = int(tree.infoset_seq_start[i])
        out[i] = probs[s : s + int(tree.infoset_num_actions[i])]
    return make_lock(tree, out)


def _read_toml(path: Path) -> dict:
    """A lock file's table (one error line for a missing, unreadable or malformed file)."""
    if not path.is_file():
        raise RcfrError(f"--lock {path}: no such lock file (a TOML file, or FILE.npz:PLAYER)")
    try:
        raw = path.read_bytes()[: 16 << 20]
        return tomllib.loads(raw.decode())
    except OSError as exc:
        raise RcfrError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RcfrError(f"{path}: not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise RcfrError(f"{path}: not valid TOML: {' '.join(str(exc).split())[:160]}") from None


def _toml_lock(tree: Form, path: Path) -> NodeLock:
    data = _read_toml(path)
    where = str(path)
    known = {"strategy", "player", "node", "infoset"}
    for key in data:
        if key not in known:
            raise RcfrError(f"{where}: unknown key {key!r}; a lock file takes "
                            f"{', '.join(sorted(known))}")
    probs = None
    if "strategy" in data:
        if not isinstance(data["strategy"], str):
            raise RcfrError(f"{where}: strategy: expected a strategy file's path")
        probs = _policy(tree, path.parent / data["strategy"], where)
    nodes, infosets = data.get("node", []), data.get("infoset", [])
    for name, entries in (("node", nodes), ("infoset", infosets)):
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise RcfrError(f"{where}: {name}: expected [[{name}]] tables")
    out: dict[int, np.ndarray] = {}
    player = data.get("player")
    if player is not None and player not in (0, 1):
        raise RcfrError(f"{where}: player: 0 or 1, got {player!r}")
    if not nodes and not infosets:
        if probs is None or player is None:
            raise RcfrError(f"{where}: locks nothing: give [[node]] or [[infoset]] tables, or "
                            "a strategy file and the player it locks")
        return _player_lock(tree, probs, player, out)
    if nodes:  # resolved on the public form's nodes, then mapped by information-set key
        ptree = _public(tree, where)
        pout: dict[int, np.ndarray] = {}
        pprobs = None if probs is None else convert_probs(probs, tree, ptree)
        for n, entry in enumerate(nodes, 1):
            _node_entry(ptree, entry, f"{where}: node {n}", pprobs, pout)
        m = np.arange(tree.num_infosets) if ptree is tree else infoset_map(ptree, tree)
        back = np.empty(tree.num_infosets, dtype=np.int64)
        back[m] = np.arange(tree.num_infosets)
        for j, p in pout.items():
            _put(out, int(back[j]), p, where, tree)
    for n, entry in enumerate(infosets, 1):
        _infoset_entry(tree, entry, f"{where}: infoset {n}", probs, out)
    return make_lock(tree, out)


def _public(tree: Form, where: str) -> Form:
    """The game's public form, where its action paths name nodes (``tree`` itself, or the
    game's public form compiled beside it)."""
    if public_nodes(tree) is not None:
        return tree
    if not offers_public_form(tree.game):
        raise RcfrError(f"{where}: [[node]] names public nodes, which {tree.game} has none "
                        "of; lock its information sets by key ([[infoset]])")
    return compile_game(tree.game, "public")


def _check_keys(entry: dict, known: set, where: str) -> None:
    for key in entry:
        if key not in known:
            raise RcfrError(f"{where}: unknown key {key!r}; it takes {', '.join(sorted(known))}")


def _infoset_entry(tree: Form, entry: dict, where: str, probs, out: dict) -> None:
    _check_keys(entry, {"key", "probs", "player"}, where)
    key = entry.get("key")
    if not isinstance(key, str):
        raise RcfrError(f"{where}: key: expected an information set's key (a string)")
    player = entry.get("player")
    if player is not None and player not in (0, 1):
        raise RcfrError(f"{where}: player: 0 or 1, got {player!r}")
    try:
        i = tree.infoset_index(key, player)
    except (KeyError, RcfrError):
        raise RcfrError(f"{where}: no information set {key!r}"
                        + ("" if player is None else f" of player {player}")) from None
    n = int(tree.infoset_num_actions[i])
    if "probs" in entry:
        p = _probabilities(entry["probs"], None, n, f"{where}: probs")
    elif probs is not None:
        s = int(tree.infoset_seq_start[i])
        p = probs[s : s + n]
    else:
        raise RcfrError(f"{where}: probs: missing (and no strategy file to take them from)")
    _put(out, i, p, where, tree)


def _probabilities(value: Any, actions: list[str] | None, n: int, where: str) -> np.ndarray:
    """Action probabilities from a list (in action order) or a table by action name."""
    if isinstance(value, dict):
        if actions is None:
            raise RcfrError(f"{where}: give the probabilities as a list of {n}")
        names = [" ".join(a.split()).lower() for a in actions]
        p = np.zeros(n)
        for name, x in value.items():
            key = " ".join(str(name).split()).lower()
            if key not in names:
                raise RcfrError(f"{where}: no action {name!r} there (there: "
                                f"{', '.join(actions)})")
            p[names.index(key)] = _number(x, where)
    elif isinstance(value, list):
        if len(value) != n:
            raise RcfrError(f"{where}: {n} probabilities (one per action"
                            + (f": {', '.join(actions)}" if actions else "")
                            + f"), got {len(value)}")
        p = np.array([_number(x, where) for x in value])
    else:
        raise RcfrError(f"{where}: expected a list of probabilities or a table by action")
    if np.any(p < 0) or abs(p.sum() - 1.0) > 1e-9:
        raise RcfrError(f"{where}: probabilities must be >= 0 and sum to 1, got "
                        f"{[float(x) for x in p]}")
    return p


def _number(x: Any, where: str) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float) or not np.isfinite(x):
        raise RcfrError(f"{where}: {x!r} is not a probability")
    return float(x)


def _node_entry(tree: Form, entry: dict, where: str, probs, out: dict) -> None:
    _check_keys(entry, {"path", "player", "hands"}, where)
    view = public_nodes(tree)
    path = entry.get("path", "")
    if not isinstance(path, str):
        raise RcfrError(f"{where}: path: expected an action path such as \"check,bet 100\"")
    try:
        u = find_node(tree, path)
    except RcfrError as exc:
        raise RcfrError(f"{where}: {str(exc).removeprefix('--node ')}") from None
    if int(view.kind[u]) > 1:
        raise RcfrError(f"{where}: {path or 'the root'} is not a decision node")
    player = entry.get("player")
    if player is not None and player != int(view.kind[u]):
        raise RcfrError(f"{where}: player {int(view.kind[u])} acts at {path or 'the root'}, "
                        f"not player {player!r}")
    kids = range(int(view.child_start[u]), int(view.child_start[u + 1]))
    actions = [view.edge_names[v] for v in kids]
    labels = view.rowsets[int(view.node_rowset[u])]
    first = int(view.info_start[u])
    hands = entry.get("hands")
    if hands is None:
        if probs is None:
            raise RcfrError(f"{where}: hands: missing (and no strategy file to take them from)")
        for k in range(len(labels)):
            s = int(tree.infoset_seq_start[first + k])
            _put(out, first + k, probs[s : s + len(actions)], where, tree)
        return
    if not isinstance(hands, dict) or not hands:
        raise RcfrError(f"{where}: hands: expected a table of hands and their probabilities")
    rank = {}  # row -> (level, hand): a combo (0) before a class (1) before "*" (2)
    row_of_label = {label: k for k, label in enumerate(labels)}
    for hand, value in hands.items():
        p = _probabilities(value, actions, len(actions), f"{where}: hands.{hand}")
        rows, level = _rows(str(hand), labels, row_of_label, where)
        for k in rows:
            held = rank.get(k)
            if held is None or level < held[0]:
                rank[k] = (level, hand, p)
            elif level == held[0] and not np.array_equal(held[2], p):
                raise RcfrError(f"{where}: hands {held[1]!r} and {hand!r} give one "
                                f"information set ({labels[k]}) two strategies")
    for k, (_, _, p) in rank.items():
        _put(out, first + k, p, where, tree)


def _rows(hand: str, labels: list[str], row_of_label: dict, where: str) -> tuple[list, int]:
    """The rows (private states) a hand names at a node, and its precedence level."""
    if hand == "*":
        return list(range(len(labels))), 2
    if hand in row_of_label:  # a row's own label (a combo of a spot, a card of leduc)
        return [row_of_label[hand]], 0
    if hand in CLASS_NAMES:
        c = CLASS_NAMES.index(hand)
        rows = [k for k, label in enumerate(labels) if _class(label) == c]
        if not rows:
            raise RcfrError(f"{where}: no hand of {hand} is in the range there")
        return rows, 1
    try:
        combo_from_str(hand)
        known = True
    except (RcfrError, ValueError, KeyError, IndexError):
        known = False
    if known:  # a combo written in another order, or not in the range
        for k, label in enumerate(labels):
            if _combo(label) == combo_from_str(hand):
                return [k], 0
        raise RcfrError(f"{where}: {hand} is not in the range there")
    raise RcfrError(f"{where}: unknown hand {hand!r}: a combo (AsKs), a hand class (AKs, QQ, "
                    "T9o) or \"*\"")


def _combo(label: str) -> int:
    try:
        return combo_from_str(label)
    except (RcfrError, ValueError, KeyError, IndexError):
        return -1


def _class(label: str) -> int:
    k = _combo(label)
    return -1 if k < 0 else int(COMBO_CLASS[k])


def _put(out: dict, i: int, p: np.ndarray, where: str, tree: Form) -> None:
    if i in out and not np.array_equal(out[i], p):
        raise RcfrError(f"{where}: {tree.infoset_keys[i]!r} is locked twice, to different "
                        "strategies")
    out[i] = np.asarray(p, dtype=np.float64)


__all__ = ["LockSource", "lock_file_digest", "read_lock"]

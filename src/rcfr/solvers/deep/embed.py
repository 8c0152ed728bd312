"""The card and bet network of Deep CFR (Brown, Lerer, Gross & Sandholm 2019, sec. 5 and
Fig. 1), a reduced version for the poker games whose information-state tensor says where the
cards and the bets are (Kuhn, Leduc: :func:`card_layout`), in numpy float64 on the flat
parameter vector and Adam of :mod:`rcfr.solvers.mlp`.

* cards: each card is embedded as the sum of a rank, a suit and a card embedding (``d``
  values each); the embeddings of a group's cards are summed (Kuhn: the private card; Leduc:
  the private card, then the board card), the groups concatenated and passed through three
  layers of ``d`` units;
* bets: the tensor's remaining entries (the acting player, and per betting position whether
  a call or a raise happened) through two layers of ``d`` units;
* joint: the two branches concatenated and three more layers, the last hidden layer
  normalised to zero mean and unit variance across its units (no learned scale), then a
  linear output per action.

Every layer is the paper's ``x' = ReLU(A x + b [+ x])``, the skip ``+ x`` on the layers whose
input and output widths are equal.

What differs from the paper: ``d`` is ``--hidden``'s first width (the paper's network is sized
for no-limit hold'em), the bet features are OpenSpiel's occurrence bits (the paper's
pot-fraction bet sizes have no counterpart in limit games, whose bet sizes are fixed), and
embeddings are shared between card groups.  Initialisation as PyTorch's defaults:
embeddings N(0, 1) (``torch.nn.Embedding``), layers uniform in ``+-1/sqrt(fan_in)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.errors import RcfrError
from ...games.kuhn import KuhnPoker
from ...games.leduc import LeducPoker
from ..mlp import FlatParameters, _views

NORM_EPS = 1e-5  # torch.nn.LayerNorm's


@dataclass(frozen=True)
class CardLayout:
    """Where an information-state tensor holds its cards: ``groups`` the first column of each
    group's card one-hot (``cards`` columns each), each card's ``rank`` and ``suit``, and the
    other columns ``bets`` (the bet branch's input)."""

    groups: tuple[int, ...]
    rank: np.ndarray
    suit: np.ndarray
    bets: np.ndarray

    @property
    def cards(self) -> int:
        return len(self.rank)


def card_layout(game) -> CardLayout:
    """The card layout of ``game``'s information-state tensor (:mod:`rcfr.games.infostate`),
    or one error line for a game without one."""
    if isinstance(game, KuhnPoker):
        return CardLayout((2,), np.arange(3), np.zeros(3, dtype=np.int64),
                          np.r_[0:2, 5:11])
    if isinstance(game, LeducPoker):
        c = 3 if game.canonical else 6
        rank = np.arange(c) if game.canonical else np.arange(c) // 2
        suit = np.zeros(c, dtype=np.int64) if game.canonical else np.arange(c) % 2
        return CardLayout((2, 2 + c), rank, suit, np.r_[0:2, 2 + 2 * c:2 + 2 * c + 16])
    raise RcfrError(f"--network embed reads the cards of kuhn's and leduc's information-state "
                    f"tensors, not {game}'s; use --network mlp")


def _layer(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``ReLU(x W + b [+ x])``, the skip ``+ x`` where the layer is square (the paper's
    fully connected layer)."""
    h = x @ w + b
    if w.shape[0] == w.shape[1]:
        h += x
    np.maximum(h, 0.0, out=h)
    return h


def embed_shapes(layout: CardLayout, d: int, actions: int) -> list[tuple[int, ...]]:
    """The shapes of :class:`EmbedNet`'s parameters, in order (what the memory guard counts
    before building one)."""
    ranks, suits, cards = int(layout.rank.max()) + 1, int(layout.suit.max()) + 1, layout.cards
    g, nb, d = len(layout.groups), len(layout.bets), int(d)
    return [(ranks, d), (suits, d), (cards, d), (g * d, d), (d,), (d, d), (d,), (d, d),
            (d,), (nb, d), (d,), (d, d), (d,), (2 * d, d), (d,), (d, d), (d,), (d, d),
            (d,), (d, int(actions)), (int(actions),)]


class EmbedNet(FlatParameters):
    """The network of the module docstring, ``d`` units wide, ``actions`` outputs; parameters
    in one flat vector ``theta`` (views ``params``, gradients ``grad``) drawn from ``rng``."""

    def __init__(self, layout: CardLayout, d: int, actions: int,
                 rng: np.random.Generator) -> None:
        self.layout, self.d, self.actions = layout, int(d), int(actions)
        self.names = ["rank", "suit", "card", "c1", "c1b", "c2", "c2b", "c3", "c3b", "b1",
                      "b1b", "b2", "b2b", "j1", "j1b", "j2", "j2b", "j3", "j3b", "out", "outb"]
        shapes = embed_shapes(layout, self.d, self.actions)
        self.theta = np.zeros(sum(math.prod(s) for s in shapes))
        self.grad = np.zeros_like(self.theta)
        self.params = _views(self.theta, shapes)
        self.grads = _views(self.grad, shapes)
        self.p = dict(zip(self.names, self.params, strict=True))
        self.g = dict(zip(self.names, self.grads, strict=True))
        for name, shape in zip(self.names, shapes, strict=True):
            if name in ("rank", "suit", "card"):
                self.p[name][...] = rng.standard_normal(shape)
            else:  # a layer's weights, then its bias: both +-1/sqrt(fan_in)
                fan_in = shape[0] if len(shape) == 2 else self.p[name[:-1]].shape[0]
                bound = 1.0 / math.sqrt(fan_in)
                self.p[name][...] = rng.uniform(-bound, bound, shape)
        self.sizes = [int(self.theta.size)]  # (what the solvers print as the size)

    def card_table(self) -> np.ndarray:
        """Every card's embedding: rank + suit + card."""
        lay, p = self.layout, self.p
        return p["card"] + p["rank"][lay.rank] + p["suit"][lay.suit]

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The outputs on the rows of ``x`` (information-state tensors) and what
        :meth:`backward` needs."""
        lay, p, c = self.layout, self.p, self.layout.cards
        table = self.card_table()
        onehots = [x[:, s:s + c] for s in lay.groups]
        c0 = np.concatenate([oh @ table for oh in onehots], axis=1)
        c1 = _layer(c0, p["c1"], p["c1b"])
        c2 = _layer(c1, p["c2"], p["c2b"])
        c3 = _layer(c2, p["c3"], p["c3b"])
        xb = x[:, lay.bets]
        b1 = _layer(xb, p["b1"], p["b1b"])
        b2 = _layer(b1, p["b2"], p["b2b"])
        z = np.concatenate([c3, b2], axis=1)
        j1 = _layer(z, p["j1"], p["j1b"])
        j2 = _layer(j1, p["j2"], p["j2b"])
        j3 = _layer(j2, p["j3"], p["j3b"])
        mu = j3.mean(axis=1, keepdims=True)
        s = np.sqrt(j3.var(axis=1, keepdims=True) + NORM_EPS)
        n = (j3 - mu) / s
        out = n @ p["out"] + p["outb"]
        cache = {"onehots": onehots, "c0": c0, "c1": c1, "c2": c2, "c3": c3, "xb": xb,
                 "b1": b1, "b2": b2, "z": z, "j1": j1, "j2": j2, "j3": j3, "n": n, "s": s}
        return out, cache

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.forward(x)[0]

    def backward(self, cache: dict, grad_out: np.ndarray) -> np.ndarray:
        """The loss gradient with respect to every parameter into :attr:`grad`, given its
        gradient with respect to the outputs of the :meth:`forward` call that gave ``cache``."""
        p, g, k = self.p, self.g, cache

        def layer(x, name, h, gh):  # h = ReLU(x W + b [+ x]): dW, db into grad; dx
            gpre = gh * (h > 0.0)
            np.matmul(x.T, gpre, out=g[name])
            np.sum(gpre, axis=0, out=g[name + "b"])
            gx = gpre @ p[name].T
            if p[name].shape[0] == p[name].shape[1]:
                gx += gpre
            return gx

        n = k["n"]
        np.matmul(n.T, grad_out, out=g["out"])
        np.sum(grad_out, axis=0, out=g["outb"])
        gn = grad_out @ p["out"].T
        # layer normalisation without affine parameters
        gj3 = (gn - gn.mean(axis=1, keepdims=True)
               - n * (gn * n).mean(axis=1, keepdims=True)) / k["s"]
        gj2 = layer(k["j2"], "j3", k["j3"], gj3)
        gj1 = layer(k["j1"], "j2", k["j2"], gj2)
        gz = layer(k["z"], "j1", k["j1"], gj1)
        d = self.d
        gb1 = layer(k["b1"], "b2", k["b2"], gz[:, d:])
        layer(k["xb"], "b1", k["b1"], gb1)
        gc2 = layer(k["c2"], "c3", k["c3"], gz[:, :d])
        gc1 = layer(k["c1"], "c2", k["c2"], gc2)
        gc0 = layer(k["c0"], "c1", k["c1"], gc1)
        gtable = sum(oh.T @ gc0[:, i * d:(i + 1) * d] for i, oh in enumerate(k["onehots"]))
        lay = self.layout
        g["card"][...] = gtable
        g["rank"][...] = 0.0
        np.add.at(g["rank"], lay.rank, gtable)
        g["suit"][...] = 0.0
        np.add.at(g["suit"], lay.suit, gtable)
        return self.grad


"""The models of the Deep CFR family, one per player and role (advantages, average strategy):
a multilayer perceptron trained by minibatch Adam on a reservoir memory (Brown et al. 2019,
sec. 4 and app. B: the loss weighted by the iteration, linear CFR; advantages fitted in units
of their root mean square; no gradient clipping, as OpenSpiel's), or an exact tabular
"network" (one output per sequence, the weighted mean of the rows of each information set: the
exact fit, which reduces Deep CFR to linear CFR; the tests' plumbing check).

The perceptron runs in numpy float64 by default (:class:`NetModel` on :mod:`rcfr.solvers.mlp`:
PyTorch's initialisation and Adam, on one BLAS thread) or in PyTorch (``backend="torch"``,
:class:`TorchNetModel`; PyTorch is an extra, imported only then). Networks are initialised from
a generator seeded by the caller (a re-initialised network from a seed derived from the run's
seed, the iteration and the player), so no network random state is carried between iterations;
minibatches are drawn from the solver's numpy generator."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.checks import parse_hidden  # noqa: F401 (re-exported for the solvers)
from ...core.errors import RcfrError
from ..mlp import MLP, Adam, masked_softmax, one_blas_thread
from .memory import Reservoir

ADVANTAGE, POLICY = "advantage", "policy"


def torch_module() -> Any:
    """PyTorch, or one error line saying how to install it."""
    try:
        import torch
    except ImportError:  # pragma: no cover - the torch extra
        raise RcfrError("the deep CFR family needs PyTorch: pip install 'rcfr[torch]'") from None
    return torch


def derived_seed(*parts: int) -> int:
    """A 63-bit seed from integers (SplitMix64 mixing), for per-iteration generators."""
    z = 0x9E3779B97F4A7C15
    for p in parts:
        z = (z ^ (int(p) & 0xFFFFFFFFFFFFFFFF)) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
    return z >> 1


class TabularModel:
    """The exact fit: per information set, the weighted mean of its rows' targets (weights:
    iteration times row weight); information sets without a row are ``unknown``."""

    def __init__(self, num_infosets: int, width: int, role: str) -> None:
        self.role = role
        self.values = np.zeros((num_infosets, width))
        self.known = np.zeros(num_infosets, dtype=bool)

    def reset(self, seed: int) -> None:
        """Nothing to re-initialise: the fit is exact."""

    def fit(self, memory: Reservoir, iteration: int, steps: int, batch: int,
            rng: np.random.Generator) -> None:
        rows = memory.rows()
        w = memory.iteration[rows] * memory.weight[rows]
        info = memory.info[rows]
        num = np.zeros_like(self.values)
        np.add.at(num, info, w[:, None] * memory.target[rows])
        den = np.bincount(info, weights=w, minlength=len(self.values))
        self.known = den > 0
        self.values = np.divide(num, den[:, None], out=np.zeros_like(num),
                                where=self.known[:, None])

    def predict(self) -> tuple[np.ndarray, np.ndarray]:
        return self.values, self.known

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}values": self.values, f"{prefix}known": self.known}

    def load_state(self, prefix: str, arrays: dict[str, np.ndarray]) -> None:
        values = np.array(arrays[f"{prefix}values"], dtype=np.float64)
        known = np.array(arrays[f"{prefix}known"], dtype=bool)
        if values.shape != self.values.shape or known.shape != self.known.shape:
            raise ValueError("shape")
        self.values, self.known = values, known


class TorchNetModel:
    """(``backend="torch"``) A perceptron over information-set features: raw advantages
    (``role`` advantage; squared error on the legal actions) or a softmax over the legal
    actions (``role`` policy; cross entropy with the stored strategies), trained by Adam with
    the linear-CFR weights."""

    def __init__(self, features: np.ndarray, num_actions: np.ndarray, width: int,
                 hidden: list[int], role: str, lr: float) -> None:
        torch = torch_module()
        self.torch = torch
        self.role, self.lr, self.hidden, self.width = role, float(lr), hidden, int(width)
        self.features = torch.as_tensor(np.asarray(features, dtype=np.float32))
        self.legal = torch.as_tensor(np.arange(width)[None, :] < np.asarray(num_actions)[:, None])
        self.net: Any = None
        self.opt: Any = None
        self.known = np.zeros(len(num_actions), dtype=bool)  # untrained: no estimate yet
        self.scale = 1.0

    def reset(self, seed: int) -> None:
        """A fresh network (uniform fan-in initialisation from ``seed``) and optimiser."""
        torch = self.torch
        gen = torch.Generator().manual_seed(int(seed))
        sizes = [int(self.features.shape[1]), *self.hidden, self.width]
        layers: list[Any] = []
        for k in range(len(sizes) - 1):
            layer = torch.nn.Linear(sizes[k], sizes[k + 1])
            bound = 1.0 / math.sqrt(sizes[k])
            with torch.no_grad():
                layer.weight.uniform_(-bound, bound, generator=gen)
                layer.bias.uniform_(-bound, bound, generator=gen)
            layers.append(layer)
            if k < len(sizes) - 2:
                layers.append(torch.nn.ReLU())
        self.net = torch.nn.Sequential(*layers)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=self.lr, fused=True)

    def fit(self, memory: Reservoir, iteration: int, steps: int, batch: int,
            rng: np.random.Generator) -> None:
        """``steps`` minibatches of ``batch`` rows drawn uniformly from ``memory``; each row
        weighs its iteration over ``iteration`` (times its own weight, over the memory's
        mean weight)."""
        torch = self.torch
        n = len(memory)
        if n == 0:
            return
        if self.net is None:
            raise RcfrError("internal: fit before reset")
        mean_w = float(memory.weight[:n].mean()) or 1.0
        # advantages are fitted in units of their root mean square (regret matching does not
        # see the scale; the network then starts at the targets' scale)
        self.scale = 1.0
        if self.role == ADVANTAGE:
            self.scale = float(np.sqrt(np.mean(memory.target[:n] ** 2))) or 1.0
        for _ in range(int(steps)):
            idx = rng.integers(0, n, size=min(int(batch), n))
            info = torch.as_tensor(memory.info[idx].astype(np.int64))
            w = torch.as_tensor((memory.iteration[idx] * memory.weight[idx]
                                 / (iteration * mean_w)).astype(np.float32))
            y = torch.as_tensor((memory.target[idx] / self.scale).astype(np.float32))
            legal = self.legal[info]
            out = self.net(self.features[info])
            if self.role == POLICY:
                logp = torch.log_softmax(out.masked_fill(~legal, -1e9), dim=1)
                per_row = -(y * logp.masked_fill(~legal, 0.0)).sum(dim=1)
            else:
                per_row = ((out - y) ** 2 * legal).sum(dim=1)
            loss = (w * per_row).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        self.known[:] = True

    def predict(self) -> tuple[np.ndarray, np.ndarray]:
        """Outputs at every information set (advantages, or the policy's probabilities) as
        float64, and which information sets have an estimate."""
        torch = self.torch
        if self.net is None:
            return np.zeros((len(self.known), self.width)), self.known
        with torch.no_grad():
            out = self.net(self.features)
            if self.role == POLICY:
                out = torch.softmax(out.masked_fill(~self.legal, -1e9), dim=1)
        return out.numpy().astype(np.float64) * self.scale, self.known

    # -- checkpoints: weights, Adam's moments and step counts --------------------------
    def state(self, prefix: str) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {f"{prefix}known": self.known,
                                      f"{prefix}scale": np.array([self.scale])}
        if self.net is None:
            return out
        for k, v in self.net.state_dict().items():
            out[f"{prefix}net.{k}"] = v.numpy().copy()
        for idx, st in self.opt.state_dict()["state"].items():
            for k, v in st.items():
                out[f"{prefix}opt.{idx}.{k}"] = np.asarray(v.numpy() if hasattr(v, "numpy")
                                                           else v).copy()
        return out

    def load_state(self, prefix: str, arrays: dict[str, np.ndarray]) -> None:
        torch = self.torch
        known = np.array(arrays[f"{prefix}known"], dtype=bool)
        if known.shape != self.known.shape:
            raise ValueError("shape")
        self.known = known
        self.scale = float(np.asarray(arrays[f"{prefix}scale"], dtype=np.float64).reshape(-1)[0])
        if not any(k.startswith(f"{prefix}net.") for k in arrays):
            self.net = self.opt = None
            return
        self.reset(0)
        sd = {k: torch.as_tensor(np.array(arrays[f"{prefix}net.{k}"]))
              for k in self.net.state_dict()}
        self.net.load_state_dict(sd)
        opt_sd = self.opt.state_dict()
        state: dict[int, dict[str, Any]] = {}
        for key in arrays:
            if key.startswith(f"{prefix}opt."):
                idx, name = key[len(prefix) + 4:].split(".", 1)
                state.setdefault(int(idx), {})[name] = torch.as_tensor(np.array(arrays[key]))
        opt_sd["state"] = state
        self.opt.load_state_dict(opt_sd)

    def weights(self) -> list[np.ndarray]:
        """The network's parameters as arrays (what SD-CFR keeps of every iteration)."""
        return [v.numpy().copy() for v in self.net.state_dict().values()]


class NetModel:
    """The perceptron of :class:`TorchNetModel` in numpy float64 (:mod:`rcfr.solvers.mlp`:
    PyTorch's initialisation and Adam, gradients by backpropagation, one BLAS thread; the
    losses here tested against PyTorch's autograd).  At these sizes (one hidden layer of 64,
    minibatches of 256) a training step is a few small matrix products and PyTorch's
    per-operation overhead made it several times slower than the arithmetic."""

    def __init__(self, features: np.ndarray, num_actions: np.ndarray, width: int,
                 hidden: list[int], role: str, lr: float) -> None:
        self.role, self.lr, self.hidden, self.width = role, float(lr), hidden, int(width)
        self.features = np.ascontiguousarray(features, dtype=np.float64)
        self.legal = np.arange(width)[None, :] < np.asarray(num_actions)[:, None]
        self.mlp: MLP | None = None
        self.opt: Adam | None = None
        self.known = np.zeros(len(num_actions), dtype=bool)
        self.scale = 1.0

    @property
    def net(self) -> MLP | None:
        return self.mlp

    @property
    def params(self) -> list[np.ndarray]:
        """``W0, b0, W1, b1, ...`` (views of the flat parameter vector)."""
        return self.mlp.params

    def reset(self, seed: int) -> None:
        """Fresh weights, uniform in ``+-1/sqrt(fan_in)`` (PyTorch's ``Linear`` default),
        drawn from a numpy generator seeded by ``seed``; a fresh Adam."""
        sizes = [int(self.features.shape[1]), *self.hidden, self.width]
        self.mlp = MLP(sizes, np.random.default_rng(int(seed)))
        self.opt = Adam(self.mlp.theta.size, self.lr)

    def gradients(self, x: np.ndarray, y: np.ndarray, w: np.ndarray,
                  legal: np.ndarray) -> tuple[float, np.ndarray]:
        """The loss (advantage: mean of ``w`` times the squared error on the legal actions;
        policy: mean of ``w`` times the cross entropy of the legal-action softmax with ``y``)
        and its gradient (the flat ``grad`` of the network)."""
        out, inputs = self.mlp.forward(x)
        B = x.shape[0]
        if self.role == POLICY:
            prob = masked_softmax(out, legal)
            logp = np.where(legal, np.log(np.where(legal, prob, 1.0)), 0.0)
            loss = float(np.mean(w * -(y * logp).sum(axis=1)))
            g = (w / B)[:, None] * (prob * y.sum(axis=1, keepdims=True) - y) * legal
        else:
            d = (out - y) * legal
            loss = float(np.mean(w * (d * d).sum(axis=1)))
            g = (2.0 * w / B)[:, None] * d
        return loss, self.mlp.backward(inputs, g)

    def adam_step(self) -> None:
        """One Adam step on the gradient of the last :meth:`gradients` call."""
        self.opt.step(self.mlp.theta, self.mlp.grad)

    def fit(self, memory: Reservoir, iteration: int, steps: int, batch: int,
            rng: np.random.Generator) -> None:
        """As :meth:`TorchNetModel.fit`."""
        n = len(memory)
        if n == 0:
            return
        if self.mlp is None:
            raise RcfrError("internal: fit before reset")
        mean_w = float(memory.weight[:n].mean()) or 1.0
        self.scale = 1.0
        if self.role == ADVANTAGE:
            self.scale = float(np.sqrt(np.mean(memory.target[:n] ** 2))) or 1.0
        targets = memory.target[:n] / self.scale
        weights = memory.iteration[:n] * memory.weight[:n] / (iteration * mean_w)
        with one_blas_thread():
            for _ in range(int(steps)):
                idx = rng.integers(0, n, size=min(int(batch), n))
                info = memory.info[idx]
                self.gradients(self.features[info], targets[idx], weights[idx],
                               self.legal[info])
                self.adam_step()
        self.known[:] = True

    def predict(self) -> tuple[np.ndarray, np.ndarray]:
        if self.mlp is None:
            return np.zeros((len(self.known), self.width)), self.known
        with one_blas_thread():
            out = self.mlp(self.features)
        if self.role == POLICY:
            return masked_softmax(out, self.legal), self.known
        return out * self.scale, self.known

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {f"{prefix}known": self.known,
                                      f"{prefix}scale": np.array([self.scale])}
        if self.mlp is not None:
            out.update(self.mlp.state(prefix))
            out.update(self.opt.state(f"{prefix}adam."))
        return out

    def load_state(self, prefix: str, arrays: dict[str, np.ndarray]) -> None:
        known = np.array(arrays[f"{prefix}known"], dtype=bool)
        if known.shape != self.known.shape:
            raise ValueError("shape")
        self.known = known
        self.scale = float(np.asarray(arrays[f"{prefix}scale"], dtype=np.float64).reshape(-1)[0])
        if f"{prefix}theta" not in arrays:
            self.mlp = self.opt = None
            return
        self.reset(0)
        self.mlp.load_state(prefix, arrays)
        self.opt.load_state(f"{prefix}adam.", arrays)

    def weights(self) -> list[np.ndarray]:
        return [self.mlp.theta.copy()]


BACKENDS = ("numpy", "torch")


def make_model(kind: str, features: np.ndarray, num_actions: np.ndarray, width: int,
               hidden: list[int], role: str, lr: float,
               backend: str = "numpy") -> TabularModel | NetModel | TorchNetModel:
    if kind == "tabular":
        return TabularModel(len(num_actions), width, role)
    cls = TorchNetModel if backend == "torch" else NetModel
    return cls(features, num_actions, width, hidden, role, lr)

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
from numba import njit

from ...core.checks import parse_hidden  # noqa: F401 (re-exported for the solvers)
from ...core.errors import RcfrError, install_hint
from ..mlp import ADAM, MLP, Adam, _adam, masked_softmax, one_blas_thread
from .reservoir import Reservoir

ADVANTAGE, POLICY = "advantage", "policy"


def torch_module() -> Any:
    """PyTorch, or one error line saying how to install it."""
    try:
        import torch
    except ImportError:  # pragma: no cover - the torch extra
        raise RcfrError(f"the deep CFR family needs PyTorch: {install_hint('torch')}") from None
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


@njit(cache=True)
def group_rows(info, w, y, slot, uniq, inv, total, mass, s):
    """The minibatch's rows grouped by information set, in order of first appearance:
    ``uniq[:U]`` the distinct sets, ``inv`` each row's group, per group the rows' total weight
    ``total``, ``mass`` (the sum of ``w_i sum(y_i)``) and ``s`` (the sum of ``w_i y_i``).
    ``slot`` (one entry per information set, all -1) is left as found.  Returns ``U``."""
    U = 0
    A = y.shape[1]
    for i in range(info.shape[0]):
        k = slot[info[i]]
        if k < 0:
            k = U
            slot[info[i]] = k
            uniq[k] = info[i]
            total[k] = 0.0
            mass[k] = 0.0
            for a in range(A):
                s[k, a] = 0.0
            U += 1
        inv[i] = k
        total[k] += w[i]
        for a in range(A):
            s[k, a] += w[i] * y[i, a]
            mass[k] += w[i] * y[i, a]
    for k in range(U):
        slot[uniq[k]] = -1
    return U


@njit(cache=True)
def grouped_gradient(theta, grad, sizes, features, num_actions, policy, info, y, w, slot,
                     act, gout, gin, uniq, inv, total, mass, s):
    """The loss gradient of :meth:`NetModel.gradients` into ``grad`` (same layout as
    ``theta``: per layer the ``(in, out)`` weights then the biases), the network run on the
    minibatch's distinct information sets only; ``act`` (``layers + 1`` by ``B`` by the widest
    layer), ``gout``, ``gin`` and the grouping arrays are scratch."""
    B = info.shape[0]
    U = group_rows(info, w, y, slot, uniq, inv, total, mass, s)
    L = sizes.shape[0] - 1
    for u in range(U):  # the inputs
        for i in range(sizes[0]):
            act[0, u, i] = features[uniq[u], i]
    off = 0
    for k in range(L):  # forward: act[k + 1] = relu(act[k] @ W_k + b_k), linear at the top
        n_in, n_out = sizes[k], sizes[k + 1]
        bo = off + n_in * n_out
        for u in range(U):
            for j in range(n_out):
                act[k + 1, u, j] = theta[bo + j]
            for i in range(n_in):
                x = act[k, u, i]
                if x != 0.0:
                    r = off + i * n_out
                    for j in range(n_out):
                        act[k + 1, u, j] += x * theta[r + j]
            if k < L - 1:
                for j in range(n_out):
                    if act[k + 1, u, j] < 0.0:
                        act[k + 1, u, j] = 0.0
        off = bo + n_out
    A = sizes[L]
    for u in range(U):  # the output gradient, summed over each group's rows
        na = num_actions[uniq[u]]
        if policy:
            top = -np.inf
            for a in range(na):
                top = max(top, act[L, u, a])
            z = 0.0
            for a in range(na):
                z += math.exp(act[L, u, a] - top)
            for a in range(A):
                gout[u, a] = ((math.exp(act[L, u, a] - top) / z) * mass[u] - s[u, a]) / B \
                    if a < na else 0.0
        else:
            for a in range(A):
                gout[u, a] = (total[u] * act[L, u, a] - s[u, a]) * (2.0 / B) if a < na else 0.0
    for k in range(L - 1, -1, -1):  # backward
        n_in, n_out = sizes[k], sizes[k + 1]
        off -= n_in * n_out + n_out
        bo = off + n_in * n_out
        for q in range(off, bo + n_out):
            grad[q] = 0.0
        for u in range(U):
            for j in range(n_out):
                grad[bo + j] += gout[u, j]
            for i in range(n_in):
                x = act[k, u, i]
                r = off + i * n_out
                if x != 0.0:  # (inputs are sparse one-hots; hidden units after a ReLU)
                    for j in range(n_out):
                        grad[r + j] += x * gout[u, j]
                if k and x > 0.0:  # the gradient below the ReLU (not needed at the input)
                    acc = 0.0
                    for j in range(n_out):
                        acc += gout[u, j] * theta[r + j]
                    gin[u, i] = acc
                else:
                    gin[u, i] = 0.0
        if k:
            for u in range(U):
                for i in range(n_in):
                    gout[u, i] = gin[u, i]


@njit(cache=True)
def fit_steps(theta, grad, m, v, step_size, c2, adam, sizes, features, num_actions, policy,
              mem_info, targets, weights, idx, slot, act, gout, gin, uniq, inv, total, mass, s):
    """Adam steps (``torch.optim.Adam``'s arithmetic, :func:`rcfr.solvers.mlp._adam`, with
    the bias corrections ``step_size[step], c2[step]`` and ``adam = (b1, b2, eps)``) on the
    minibatches ``idx[step]`` of the memory rows ``(mem_info, targets, weights)``, each
    gradient by :func:`grouped_gradient`."""
    for step in range(idx.shape[0]):
        rows = idx[step]
        grouped_gradient(theta, grad, sizes, features, num_actions, policy, mem_info[rows],
                         targets[rows], weights[rows], slot, act, gout, gin, uniq, inv,
                         total, mass, s)
        _adam(theta, grad, m, v, step_size[step], c2[step], adam[0], adam[1], adam[2])


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
        self.num_actions = np.asarray(num_actions, dtype=np.int64)
        self.legal = np.arange(width)[None, :] < self.num_actions[:, None]
        self.slot = np.full(len(self.num_actions), -1, dtype=np.int64)
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

    def _scratch(self, batch: int) -> tuple[np.ndarray, ...]:
        sizes = np.array(self.mlp.sizes, dtype=np.int64)
        widest = int(sizes.max())
        return (sizes, np.zeros((len(sizes), batch, widest)), np.zeros((batch, widest)),
                np.zeros((batch, widest)), np.zeros(batch, dtype=np.int64),
                np.zeros(batch, dtype=np.int64), np.zeros(batch), np.zeros(batch),
                np.zeros((batch, self.width)))

    def gradients(self, info: np.ndarray, y: np.ndarray, w: np.ndarray,
                  loss: bool = False) -> tuple[float | None, np.ndarray]:
        """The gradient (the flat ``grad`` of the network) of the loss on the rows
        ``(info[i], y[i], w[i])`` -- advantage: mean of ``w`` times the squared error on the
        legal actions; policy: mean of ``w`` times the cross entropy of the legal-action
        softmax with ``y`` -- and the loss itself when ``loss`` is asked for (else ``None``).

        A row's input is its information set's features, so the rows of one information set
        share one forward and one backward pass (:func:`grouped_gradient`): the network runs
        on the minibatch's distinct information sets only, with the rows' output gradients
        summed per information set (advantage: ``2/B (W_k out_k - sum_i w_i y_i)``, ``W_k``
        the rows' total weight; policy: ``1/B (p_k sum_i w_i sum(y_i) - sum_i w_i y_i)``).
        The same gradient as row by row, in a fraction of the arithmetic where information
        sets repeat (Kuhn: 6 per player against minibatches of 256); only the rounding
        differs."""
        info = np.ascontiguousarray(info, dtype=np.int64)
        sizes, act, gout, gin, uniq, inv, total, mass, s = self._scratch(len(info))
        grouped_gradient(self.mlp.theta, self.mlp.grad, sizes, self.features, self.num_actions,
                         self.role == POLICY, info, np.ascontiguousarray(y, dtype=np.float64),
                         np.ascontiguousarray(w, dtype=np.float64), self.slot, act, gout, gin,
                         uniq, inv, total, mass, s)
        value = None
        if loss:
            with one_blas_thread():
                out = self.mlp(self.features[info])
            legal = self.legal[info]
            if self.role == POLICY:
                prob = masked_softmax(out, legal)
                logp = np.where(legal, np.log(np.where(legal, prob, 1.0)), 0.0)
                value = float(np.mean(w * -(y * logp).sum(axis=1)))
            else:
                d = (out - y) * legal
                value = float(np.mean(w * (d * d).sum(axis=1)))
        return value, self.mlp.grad

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
        b = min(int(batch), n)
        # every minibatch drawn at once (the same rows as one draw a step: the generator
        # keeps its half-used 32-bit words in its state)
        idx = rng.integers(0, n, size=(int(steps), b))
        self._steps(memory, n, targets, weights, idx)
        self.known[:] = True

    def _steps(self, memory: Reservoir, n: int, targets: np.ndarray, weights: np.ndarray,
               idx: np.ndarray) -> None:
        """One Adam step per row of ``idx`` (the minibatches), in one kernel."""
        steps, b = idx.shape
        b1, b2, _ = ADAM
        ts = range(self.opt.t + 1, self.opt.t + int(steps) + 1)  # as Adam.step computes them
        step_size = np.array([self.opt.lr / (1.0 - b1 ** t) for t in ts])
        c2 = np.array([math.sqrt(1.0 - b2 ** t) for t in ts])
        fit_steps(self.mlp.theta, self.mlp.grad, self.opt.m, self.opt.v, step_size, c2,
                  np.array(ADAM), *self._fit_args(memory, n), targets, weights, idx,
                  self.slot, *self._scratch(b)[1:])
        self.opt.t += int(steps)

    def _fit_args(self, memory: Reservoir, n: int) -> tuple[Any, ...]:
        return (np.array(self.mlp.sizes, dtype=np.int64), self.features, self.num_actions,
                self.role == POLICY, memory.info[:n].astype(np.int64))

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


class EmbedModel(NetModel):
    """:class:`NetModel` with the card and bet network of the Deep CFR paper
    (:class:`rcfr.solvers.deep.embed.EmbedNet`, ``--hidden``'s first width) in place of the
    perceptron; its gradients in numpy, once per distinct information set of a minibatch as
    :meth:`NetModel.gradients`."""

    def __init__(self, features: np.ndarray, num_actions: np.ndarray, width: int,
                 hidden: list[int], role: str, lr: float, layout: Any) -> None:
        super().__init__(features, num_actions, width, hidden, role, lr)
        self.layout = layout

    def reset(self, seed: int) -> None:
        from .embed import EmbedNet

        self.mlp = EmbedNet(self.layout, self.hidden[0], self.width,  # type: ignore[assignment]
                            np.random.default_rng(int(seed)))
        self.opt = Adam(self.mlp.theta.size, self.lr)

    def gradients(self, info: np.ndarray, y: np.ndarray, w: np.ndarray,
                  loss: bool = False) -> tuple[float | None, np.ndarray]:
        B = len(info)
        uniq, inv = np.zeros(B, dtype=np.int64), np.zeros(B, dtype=np.int64)
        total, mass, s = np.zeros(B), np.zeros(B), np.zeros((B, self.width))
        U = group_rows(np.asarray(info, dtype=np.int64), np.asarray(w, dtype=np.float64),
                       np.ascontiguousarray(y, dtype=np.float64), self.slot, uniq, inv, total,
                       mass, s)
        uniq, total, mass, s = uniq[:U], total[:U], mass[:U], s[:U]
        with one_blas_thread():
            out, cache = self.mlp.forward(self.features[uniq])
        legal = self.legal[uniq]
        value = None
        if self.role == POLICY:
            prob = masked_softmax(out, legal)
            g = (prob * mass[:, None] - s) * legal / B
            if loss:
                logp = np.where(legal, np.log(np.where(legal, prob, 1.0)), 0.0)
                value = float(np.mean(w * -(y * logp[inv]).sum(axis=1)))
        else:
            g = (total[:, None] * out - s) * legal * (2.0 / B)
            if loss:
                d = (out[inv] - y) * legal[inv]
                value = float(np.mean(w * (d * d).sum(axis=1)))
        with one_blas_thread():
            return value, self.mlp.backward(cache, g)

    def _steps(self, memory: Reservoir, n: int, targets: np.ndarray, weights: np.ndarray,
               idx: np.ndarray) -> None:
        for rows in idx:
            self.gradients(memory.info[rows], targets[rows], weights[rows])
            self.adam_step()


BACKENDS = ("numpy", "torch")
NETWORKS = ("mlp", "embed")


def make_model(kind: str, features: np.ndarray, num_actions: np.ndarray, width: int,
               hidden: list[int], role: str, lr: float, backend: str = "numpy",
               layout: Any = None) -> TabularModel | NetModel | TorchNetModel:
    """A model of the family; ``layout`` (a :class:`~rcfr.solvers.deep.embed.CardLayout`)
    chooses the card and bet network."""
    if kind == "tabular":
        return TabularModel(len(num_actions), width, role)
    if layout is not None:
        return EmbedModel(features, num_actions, width, hidden, role, lr, layout)
    cls = TorchNetModel if backend == "torch" else NetModel
    return cls(features, num_actions, width, hidden, role, lr)

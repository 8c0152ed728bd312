"""The small multilayer perceptrons of the neural solvers (NFSP's Q and average-policy
networks, the Deep CFR family's advantage and strategy networks) in numpy float64: ReLU
hidden layers and a linear output, gradients by backpropagation, plain SGD or Adam.

Why not PyTorch: at these sizes (a hidden layer or two of 64, minibatches of 128-256) a training
step is a handful of small matrix products, and PyTorch's per-operation and autograd overhead
made each step five to ten times slower than the arithmetic (``benchmarks/bench_fictitious.py``,
``benchmarks/bench_deep_cfr.py``).  The arithmetic is PyTorch's: weights and biases drawn
uniformly in ``+-1/sqrt(fan_in)`` (``torch.nn.Linear``'s default), Adam as ``torch.optim.Adam``
(Kingma & Ba 2015, Alg. 1); tested against PyTorch's autograd to 1e-12.  Matrix products run
on one BLAS thread while a solver learns (:func:`one_blas_thread`), so a seed fixes the result
whatever the machine's thread count.

Parameters live in one flat vector ``theta`` (``params`` are views of it: ``W0, b0, W1, b1,
...``) and the gradients in ``grad`` (views ``grads``), so optimisers and checkpoints see one
array each.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from numba import njit

from ..core.statecheck import typed

ADAM = (0.9, 0.999, 1e-8)  # PyTorch's defaults (Kingma & Ba 2015)


_CONTROLLER: list = []  # threadpoolctl's controller, made once: finding the libraries costs ms


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Matrix products on one BLAS thread inside the block (threadpoolctl, which scikit-learn
    installs): the order of every sum is then fixed."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    with _CONTROLLER[0].limit(limits=1, user_api="blas"):
        yield


def _views(flat: np.ndarray, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    out, at = [], 0
    for sh in shapes:
        n = math.prod(sh)
        out.append(flat[at:at + n].reshape(sh))
        at += n
    return out


class FlatParameters:
    """A network whose parameters are one flat vector ``theta``: its checkpoint state."""

    theta: np.ndarray

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}theta": self.theta}

    def load_state(self, prefix: str, arrays: dict[str, np.ndarray]) -> None:
        self.theta[...] = typed(arrays[f"{prefix}theta"], "f", self.theta.shape,
                                f"{prefix}theta")


class MLP(FlatParameters):
    """``sizes[0]`` inputs, ReLU hidden layers ``sizes[1:-1]``, ``sizes[-1]`` linear outputs;
    parameters drawn from ``rng`` (layer by layer: weights, then biases)."""

    def __init__(self, sizes: list[int], rng: np.random.Generator) -> None:
        self.sizes = [int(s) for s in sizes]
        shapes: list[tuple[int, ...]] = []
        for k in range(len(self.sizes) - 1):
            shapes += [(self.sizes[k], self.sizes[k + 1]), (self.sizes[k + 1],)]
        self.theta = np.zeros(sum(math.prod(sh) for sh in shapes))
        self.params = _views(self.theta, shapes)
        self.grad = np.zeros_like(self.theta)
        self.grads = _views(self.grad, shapes)
        for k in range(len(self.sizes) - 1):
            bound = 1.0 / math.sqrt(self.sizes[k])
            self.params[2 * k][...] = rng.uniform(-bound, bound, shapes[2 * k])
            self.params[2 * k + 1][...] = rng.uniform(-bound, bound, shapes[2 * k + 1])

    @property
    def layers(self) -> int:
        return len(self.params) // 2

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """The outputs on the rows of ``x``, and each layer's input (for :meth:`backward`)."""
        inputs = []
        h = x
        for k in range(self.layers):
            inputs.append(h)
            h = h @ self.params[2 * k] + self.params[2 * k + 1]
            if k < self.layers - 1:
                np.maximum(h, 0.0, out=h)
        return h, inputs

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.forward(x)[0]

    def backward(self, inputs: list[np.ndarray], grad_out: np.ndarray) -> np.ndarray:
        """The loss gradient with respect to every parameter into :attr:`grad`, given its
        gradient ``grad_out`` with respect to the outputs of the :meth:`forward` call that
        returned ``inputs``."""
        g = grad_out
        for k in range(self.layers - 1, -1, -1):
            np.matmul(inputs[k].T, g, out=self.grads[2 * k])
            np.sum(g, axis=0, out=self.grads[2 * k + 1])
            if k:
                g = (g @ self.params[2 * k].T) * (inputs[k] > 0.0)
        return self.grad

    def sgd_step(self, lr: float) -> None:
        """Plain SGD on the gradients of the last :meth:`backward`."""
        self.theta -= lr * self.grad

    def copy_from(self, other: MLP) -> None:
        self.theta[...] = other.theta


@njit(cache=True)
def _adam(theta, grad, m, v, step_size, c2, b1, b2, eps):
    for k in range(theta.shape[0]):
        g = grad[k]
        m[k] = b1 * m[k] + (1.0 - b1) * g
        v[k] = b2 * v[k] + (1.0 - b2) * g * g
        theta[k] -= step_size * m[k] / (math.sqrt(v[k]) / c2 + eps)


class Adam:
    """Adam's moments for a flat parameter vector of ``size``; :meth:`step` updates
    ``theta`` in place as ``torch.optim.Adam`` does (Kingma & Ba 2015, Alg. 1)."""

    def __init__(self, size: int, lr: float) -> None:
        self.lr = float(lr)
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.t = 0

    def step(self, theta: np.ndarray, grad: np.ndarray) -> None:
        b1, b2, eps = ADAM
        self.t += 1
        _adam(theta, grad, self.m, self.v, self.lr / (1.0 - b1 ** self.t),
              math.sqrt(1.0 - b2 ** self.t), b1, b2, eps)

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}m": self.m, f"{prefix}v": self.v,
                f"{prefix}t": np.array([self.t], dtype=np.int64)}

    def load_state(self, prefix: str, arrays: dict[str, np.ndarray]) -> None:
        for name in ("m", "v"):
            getattr(self, name)[...] = typed(arrays[f"{prefix}{name}"], "f", self.m.shape,
                                             f"{prefix}{name}")
        self.t = int(typed(arrays[f"{prefix}t"], "iu", (1,), f"{prefix}t")[0])


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Row-wise softmax over the ``legal`` entries (the others get probability 0)."""
    z = np.where(legal, logits, -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def cross_entropy_grad(logits: np.ndarray, legal: np.ndarray, actions: np.ndarray
                       ) -> np.ndarray:
    """The gradient of the mean cross-entropy of ``actions`` under the legal-action softmax,
    with respect to the logits: ``(softmax - onehot) / batch``."""
    grad = masked_softmax(logits, legal)
    grad[np.arange(len(actions)), actions] -= 1.0
    grad /= len(actions)
    return grad


def squared_error_grad(outputs: np.ndarray, actions: np.ndarray, targets: np.ndarray
                       ) -> np.ndarray:
    """The gradient of ``mean((outputs[i, actions[i]] - targets[i])**2)`` with respect to the
    outputs (zero off the taken actions)."""
    rows = np.arange(len(actions))
    grad = np.zeros_like(outputs)
    grad[rows, actions] = 2.0 * (outputs[rows, actions] - targets) / len(actions)
    return grad

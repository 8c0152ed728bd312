"""NFSP's networks: small multilayer perceptrons (ReLU hidden layers, a linear output) in numpy
float64, trained by plain SGD on the two losses of Heinrich & Silver (2016, Alg. 1): the mean
squared Q-learning error of the taken action, and the cross-entropy of the average policy's
legal-action softmax.

Why not PyTorch: at NFSP's sizes (one hidden layer of 64, minibatches of 128) a training step
is a handful of small matrix products, and PyTorch's per-operation and autograd overhead made
each step about ten times slower than the arithmetic (``benchmarks/bench_fictitious.py``,
docs/performance.md).  The arithmetic is the same: weights and biases drawn uniformly in
``+-1/sqrt(fan_in)`` (PyTorch's ``Linear`` default), gradients by backpropagation.  Matrix
products run on one BLAS thread while a solver learns (:func:`one_blas_thread`), so a seed
fixes the result whatever the machine's thread count.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Matrix products on one BLAS thread inside the block (threadpoolctl, which scikit-learn
    installs): the order of every sum is then fixed."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


class MLP:
    """``sizes[0]`` inputs, ReLU hidden layers ``sizes[1:-1]``, ``sizes[-1]`` linear outputs;
    parameters drawn from ``rng``."""

    def __init__(self, sizes: list[int], rng: np.random.Generator) -> None:
        self.sizes = [int(s) for s in sizes]
        self.weights: list[np.ndarray] = []
        self.biases: list[np.ndarray] = []
        for k in range(len(self.sizes) - 1):
            bound = 1.0 / math.sqrt(self.sizes[k])
            self.weights.append(rng.uniform(-bound, bound, (self.sizes[k], self.sizes[k + 1])))
            self.biases.append(rng.uniform(-bound, bound, self.sizes[k + 1]))

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """The outputs on the rows of ``x``, and each layer's input (for :meth:`sgd_step`)."""
        inputs = []
        h = x
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            inputs.append(h)
            h = h @ w + b
            if k < last:
                np.maximum(h, 0.0, out=h)
        return h, inputs

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.forward(x)[0]

    def sgd_step(self, inputs: list[np.ndarray], grad: np.ndarray, lr: float) -> None:
        """One step of plain SGD given the loss gradient ``grad`` with respect to the outputs
        of the :meth:`forward` call that returned ``inputs`` (backpropagation; each layer's
        gradient is taken before its weights change)."""
        delta = grad
        for k in range(len(self.weights) - 1, -1, -1):
            w = self.weights[k]
            dw = inputs[k].T @ delta
            db = delta.sum(axis=0)
            if k:
                delta = (delta @ w.T) * (inputs[k] > 0.0)
            w -= lr * dw
            self.biases[k] -= lr * db

    def copy_from(self, other: MLP) -> None:
        for mine, theirs in zip(self.weights + self.biases, other.weights + other.biases,
                                strict=True):
            mine[...] = theirs

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        out = {f"{prefix}W{k}": w for k, w in enumerate(self.weights)}
        out.update({f"{prefix}b{k}": b for k, b in enumerate(self.biases)})
        return out

    def load_state(self, prefix: str, arrays: dict[str, np.ndarray]) -> None:
        for name, params in (("W", self.weights), ("b", self.biases)):
            for k, mine in enumerate(params):
                value = np.asarray(arrays[f"{prefix}{name}{k}"], dtype=np.float64)
                if value.shape != mine.shape:
                    raise ValueError(f"{prefix}{name}{k}: shape {value.shape}")
                mine[...] = value


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

"""A multilayer-perceptron regressor in PyTorch with scikit-learn's contract: the neural regret
estimator the thesis leaves to future work (Morrill 2016, ch. 5), as OpenSpiel's neural RCFR
and Deep CFR (Brown et al. 2019) use one.

PyTorch is an optional extra (``pip install -e '.[torch]'`` in the checkout); it is imported
on the first fit, so importing :mod:`rcfr` never needs it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state

from ..core.budget import check_network
from ..core.checks import parse_hidden
from ..core.errors import RcfrError, install_hint
from ._checks import (
    check_choice,
    check_fitted,
    check_float,
    check_int,
    check_targets,
    check_weights,
    check_X,
)

ACTIVATIONS = ("relu", "tanh", "elu", "gelu", "sigmoid")
OPTIMIZERS = ("adam", "adamw", "sgd", "rmsprop")
DEVICES = ("cpu", "cuda", "auto")
DTYPES = ("float32", "float64")
RCFR_DEFAULTS = {"learning_rate": 1e-2, "steps": 10}  # --regressor torch-mlp (rcfr_mlp)


def import_torch() -> Any:
    """The ``torch`` module, or a one-line :class:`RcfrError` saying how to install it."""
    try:
        import torch
    except ImportError:
        raise RcfrError(f"the torch-mlp regressor needs PyTorch: {install_hint('torch')}") \
            from None
    return torch


@contextmanager
def _repeatable(torch: Any) -> Iterator[None]:
    """One thread and deterministic algorithms within a fit or a prediction (the caller's
    settings restored after): a seed then gives the same numbers bit for bit whatever the
    thread count around it (on Leduc with external sampling, 2 threads and 1 differed)."""
    threads, determ = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    if threads != 1:
        torch.set_num_threads(1)
    if not determ:
        torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        if threads != 1:
            torch.set_num_threads(threads)
        if not determ:
            torch.use_deterministic_algorithms(False)


class TorchMLPRegressor(RegressorMixin, BaseEstimator):
    """A fully connected network ``d -> hidden[0] -> ... -> 1`` fit by minibatch gradient
    descent on the (sample-weighted) mean squared error.

    Parameters: ``hidden`` (layer widths), ``activation`` (``relu``, ``tanh``, ``elu``,
    ``gelu``, ``sigmoid``), ``optimizer`` (``adam``, ``adamw``, ``sgd``, ``rmsprop``),
    ``learning_rate``, ``epochs`` (passes over the data per fit) or ``steps`` (minibatch steps
    per fit; overrides ``epochs``), ``batch_size`` (``None``: the whole data set),
    ``weight_decay``, ``warm_start`` (a fit continues from the weights and optimizer state of
    the last one, as in scikit-learn's ``MLPRegressor``; :meth:`partial_fit` always does),
    ``random_state`` (the initial weights and the minibatch order), ``device`` (``cpu``,
    ``cuda``, or ``auto``: cuda when present), ``dtype`` (``float32`` or ``float64``: the
    network's arithmetic; predictions are float64 either way).  Features are standardised with
    the (weighted) mean and spread of the first fit's ``X``, kept for later warm fits.
    A full-batch fit trains on ``X``'s distinct rows, each weighted by its rows' total weight
    at their weighted mean target: the same loss up to a constant, so the same gradient, on
    fewer rows (Leduc's thesis features have 336 distinct rows of 1,092 per player).  Adam and
    AdamW use PyTorch's fused kernel.

    ``target_scale`` tells RCFR which targets to fit: ``"cumulative"`` regrets (the default:
    on Leduc, 100 iterations of RCFR+ with the thesis features reach exploitability 0.30 this
    way, 0.88 on average regrets) or ``"average"`` ones, ``R / t`` (bounded; regret matching
    does not depend on the scale).  ``complexity`` is the number of weights and biases.  Same
    seed gives identical fits and predictions on CPU whatever the thread count: each runs on
    one thread with deterministic algorithms (the caller's settings restored after).
    """

    def __init__(self, hidden: Any = (64, 64), activation: str = "relu",
                 optimizer: str = "adam", learning_rate: float = 1e-3, epochs: int = 200,
                 steps: int | None = None, batch_size: int | None = None,
                 weight_decay: float = 0.0, warm_start: bool = False,
                 random_state: Any = 0, device: str = "cpu", dtype: str = "float32",
                 target_scale: str = "cumulative") -> None:
        self.hidden = hidden
        self.activation = activation
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.epochs = epochs
        self.steps = steps
        self.batch_size = batch_size
        self.weight_decay = weight_decay
        self.warm_start = warm_start
        self.random_state = random_state
        self.device = device
        self.dtype = dtype
        self.target_scale = target_scale

    # -- building ---------------------------------------------------------------------------
    def _config(self) -> dict[str, Any]:
        return {
            "hidden": parse_hidden(self.hidden),
            "activation": check_choice("activation", self.activation, ACTIVATIONS),
            "optimizer": check_choice("optimizer", self.optimizer, OPTIMIZERS),
            "lr": check_float("learning_rate", self.learning_rate, 0.0),
            "epochs": check_int("epochs", self.epochs, 1),
            "steps": None if self.steps is None else check_int("steps", self.steps, 1),
            "batch": None if self.batch_size is None else check_int("batch_size",
                                                                     self.batch_size, 1),
            "decay": check_float("weight_decay", self.weight_decay, 0.0),
            "device": check_choice("device", self.device, DEVICES),
            "dtype": check_choice("dtype", self.dtype, DTYPES),
            "scale": check_choice("target_scale", self.target_scale, ("cumulative", "average")),
        }

    def _device(self, torch: Any, name: str) -> Any:
        if name == "auto":
            name = "cuda" if torch.cuda.is_available() else "cpu"
        if name == "cuda" and not torch.cuda.is_available():
            raise RcfrError("device 'cuda' was asked for but PyTorch sees no GPU")
        return torch.device(name)

    def _build(self, torch: Any, cfg: dict[str, Any], d: int) -> None:
        """A fresh network, optimizer and generator for ``d`` features."""
        nn = torch.nn
        act = {"relu": nn.ReLU, "tanh": nn.Tanh, "elu": nn.ELU, "gelu": nn.GELU,
               "sigmoid": nn.Sigmoid}[cfg["activation"]]
        self._dev = self._device(torch, cfg["device"])
        check_network(d, cfg["hidden"], 8 if cfg["dtype"] == "float64" else 4,
                      "the torch-mlp regressor's network")
        seed = int(check_random_state(self.random_state).randint(0, 2**31 - 1))
        gen = torch.Generator().manual_seed(seed)
        layers: list[Any] = []
        width = d
        for h in cfg["hidden"] + (1,):
            lin = nn.Linear(width, h)
            # PyTorch's default initialisation, drawn from our own generator
            nn.init.kaiming_uniform_(lin.weight, a=5 ** 0.5, generator=gen)
            bound = 1.0 / width ** 0.5
            nn.init.uniform_(lin.bias, -bound, bound, generator=gen)
            layers += [lin, act()]
            width = h
        self._dt = getattr(torch, cfg["dtype"])
        self._net = nn.Sequential(*layers[:-1]).to(device=self._dev, dtype=self._dt)
        params = self._net.parameters()
        lr, decay = cfg["lr"], cfg["decay"]
        fused = {"fused": True} if self._dev.type in ("cpu", "cuda") else {}
        self._opt = {"adam": lambda: torch.optim.Adam(params, lr=lr, weight_decay=decay,
                                                      **fused),
                     "adamw": lambda: torch.optim.AdamW(params, lr=lr, weight_decay=decay,
                                                        **fused),
                     "sgd": lambda: torch.optim.SGD(params, lr=lr, weight_decay=decay),
                     "rmsprop": lambda: torch.optim.RMSprop(params, lr=lr,
                                                            weight_decay=decay)}[cfg["optimizer"]]()
        self._gen = gen
        self._built = (cfg["hidden"], cfg["activation"], cfg["optimizer"], cfg["dtype"], d)

    def _tensor(self, torch: Any, A: np.ndarray) -> Any:
        Z = (A - self.x_mean_) / self.x_scale_
        # a copy in PyTorch's own (aligned) memory: numpy's alignment varies between runs
        return torch.tensor(Z, dtype=self._dt, device=self._dev)

    def _inputs(self, torch: Any, X: object, fresh: bool, w: Any = None) -> tuple:
        """The standardised tensor of ``X``'s distinct rows, the index of each row of ``X``
        among them (``None`` when all are distinct) and the full tensor; kept while ``X`` is
        the same float64 array (the solver loop refits new targets on one feature matrix).
        ``fresh``: a fit from new weights, which (re)sets the standardisation to ``X``'s
        weighted mean and spread."""
        c = getattr(self, "_xcache", None)
        if (c is not None and c[0] is X and isinstance(X, np.ndarray)
                and X.dtype == np.float64 and X.shape == c[1] and not fresh):
            return c[2]
        A = check_X(self, X, reset=fresh)
        if fresh:
            n = A.shape[0]
            weights = check_weights(w, n)
            self.x_mean_ = np.average(A, axis=0, weights=weights)
            spread = np.sqrt(np.average((A - self.x_mean_) ** 2, axis=0, weights=weights))
            self.x_scale_ = np.where(spread > 0, spread, 1.0)
        U, inverse = np.unique(A, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1) if U.shape[0] < A.shape[0] else None
        full = self._tensor(torch, A)
        out = (full if inverse is None else self._tensor(torch, U), inverse, full)
        self._xcache = (X, A.shape, out)
        return out

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> TorchMLPRegressor:
        """Train for ``epochs`` passes (or ``steps`` minibatch steps); from fresh weights
        unless ``warm_start`` and fitted before."""
        return self._fit(X, y, sample_weight, bool(self.warm_start))

    def partial_fit(self, X: np.ndarray, y: np.ndarray,
                    sample_weight: np.ndarray | None = None) -> TorchMLPRegressor:
        """Train as :meth:`fit` does, always continuing from the current weights."""
        return self._fit(X, y, sample_weight, True)

    def _fit(self, X: Any, y: Any, sample_weight: Any, warm: bool) -> TorchMLPRegressor:
        torch = import_torch()
        with _repeatable(torch):
            return self._fit_pinned(torch, X, y, sample_weight, warm)

    def _fit_pinned(self, torch: Any, X: Any, y: Any, sample_weight: Any,
                    warm: bool) -> TorchMLPRegressor:
        cfg = self._config()
        built = getattr(self, "_built", None)
        warm = warm and hasattr(self, "loss_") and built is not None and \
            built[:4] == (cfg["hidden"], cfg["activation"], cfg["optimizer"], cfg["dtype"])
        if not warm:
            self._dev = self._device(torch, cfg["device"])
            self._dt = getattr(torch, cfg["dtype"])
        Z, inverse, full = self._inputs(torch, X, fresh=not warm, w=sample_weight)
        n, d = full.shape
        t = check_targets(y, n)
        w = check_weights(sample_weight, n)
        if not warm:
            self._build(torch, cfg, d)
        for group in self._opt.param_groups:  # learning rate / decay may change between fits
            group["lr"], group["weight_decay"] = cfg["lr"], cfg["decay"]
        if inverse is not None and cfg["batch"] is None:
            # full batch over repeated rows: the (weighted) squared error of the rows equals,
            # up to a constant, that of the distinct rows weighted by their total weight, at
            # their weighted mean target -- the same gradient, on fewer rows
            m = Z.shape[0]
            wt = np.ones(n) if w is None else w
            total = np.bincount(inverse, weights=wt, minlength=m)
            t = np.bincount(inverse, weights=wt * t, minlength=m) / np.where(total > 0, total, 1)
            w, n = total, m
        else:
            Z = full
        dev = self._dev
        Y = torch.tensor(t, dtype=self._dt, device=dev)
        W = None if w is None else torch.tensor(w / w.mean(), dtype=self._dt, device=dev)
        batch = n if cfg["batch"] is None else min(cfg["batch"], n)
        per_epoch = -(-n // batch)
        steps = cfg["steps"] if cfg["steps"] is not None else cfg["epochs"] * per_epoch
        net, opt = self._net, self._opt
        net.train()
        order = None
        for k in range(steps):
            if batch == n:
                xb, yb, wb = Z, Y, W
            else:
                j = k % per_epoch
                if j == 0:
                    order = torch.randperm(n, generator=self._gen).to(dev)
                idx = order[j * batch:(j + 1) * batch]
                xb, yb, wb = Z[idx], Y[idx], None if W is None else W[idx]
            err = (net(xb).squeeze(1) - yb) ** 2
            loss = err.mean() if wb is None else (wb * err).sum() / wb.sum()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        self.n_steps_ = (self.n_steps_ if warm else 0) + steps
        self.loss_ = float(loss.detach())
        self.n_features_in_ = d
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The network's output for every row of ``X`` (float64)."""
        check_fitted(self, "loss_")
        torch = import_torch()
        with _repeatable(torch):
            Z, inverse, _ = self._inputs(torch, X, fresh=False)
            self._net.eval()
            with torch.inference_mode():
                out = self._net(Z).squeeze(1).cpu().numpy().astype(np.float64)
        return out if inverse is None else out[inverse]

    @property
    def complexity(self) -> int:
        """The number of weights and biases (0 before the first fit)."""
        if not hasattr(self, "_net"):
            return 0
        return int(sum(p.numel() for p in self._net.parameters()))

    # -- checkpoints (plain arrays, no pickle) ---------------------------------------------
    def state(self) -> dict[str, np.ndarray]:
        """Weights, optimizer state, generator state and feature scaling as plain arrays, so
        a resumed run continues exactly where it stopped."""
        check_fitted(self, "loss_")
        out = {"x_mean": self.x_mean_, "x_scale": self.x_scale_,
               "generator": self._gen.get_state().numpy().copy(),
               "counters": np.array([self.n_features_in_, self.n_steps_], dtype=np.int64),
               "loss": np.array(self.loss_)}
        for i, p in enumerate(self._net.parameters()):
            out[f"param_{i}"] = p.detach().cpu().numpy().copy()
        for i, st in self._opt.state_dict()["state"].items():
            for key, v in st.items():
                out[f"opt_{i}_{key}"] = np.asarray(v.detach().cpu().numpy()
                                                   if hasattr(v, "detach") else v).copy()
        return out

    def load_state(self, arrays: dict[str, np.ndarray]) -> TorchMLPRegressor:
        """Rebuild the network from :meth:`state`'s arrays (``ValueError`` if they do not
        fit this configuration)."""
        torch = import_torch()
        cfg = self._config()
        try:
            d, n_steps = (int(v) for v in np.asarray(arrays["counters"]).reshape(2))
            self._build(torch, cfg, d)
            params = list(self._net.parameters())
            with torch.no_grad():
                for i, p in enumerate(params):
                    v = torch.as_tensor(np.asarray(arrays[f"param_{i}"]), dtype=self._dt)
                    if v.shape != p.shape:
                        raise ValueError("shape")
                    p.copy_(v)
            sd = self._opt.state_dict()
            state: dict[int, dict[str, Any]] = {}
            for key, v in arrays.items():
                if key.startswith("opt_"):
                    i, name = key[4:].split("_", 1)
                    state.setdefault(int(i), {})[name] = torch.as_tensor(np.array(v))
            sd["state"] = state
            self._opt.load_state_dict(sd)
            self._gen.set_state(torch.as_tensor(np.asarray(arrays["generator"], np.uint8)))
            x_mean = np.array(arrays["x_mean"], dtype=np.float64)
            x_scale = np.array(arrays["x_scale"], dtype=np.float64)
            if x_mean.shape != (d,) or x_scale.shape != (d,):
                raise ValueError("shape")
            loss = float(np.asarray(arrays["loss"]).reshape(()))
        except (KeyError, TypeError, ValueError, RuntimeError):
            raise ValueError("not the state of this network (another configuration?)") \
                from None
        self.x_mean_, self.x_scale_ = x_mean, x_scale
        self.n_features_in_, self.n_steps_, self.loss_ = d, n_steps, loss
        self.__dict__.pop("_xcache", None)
        return self


def rcfr_mlp(hidden: Any = None, seed: int = 0) -> TorchMLPRegressor:
    """The network ``--regressor torch-mlp`` uses: ``hidden`` layers (default 64,64), Adam,
    a few full-batch steps per RCFR iteration, warm-started from the last iteration's
    weights."""
    return TorchMLPRegressor(hidden=(64, 64) if hidden is None else parse_hidden(hidden),
                             learning_rate=RCFR_DEFAULTS["learning_rate"],
                             steps=RCFR_DEFAULTS["steps"], warm_start=True, random_state=seed)

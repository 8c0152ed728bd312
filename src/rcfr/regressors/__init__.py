"""Regressors for regression CFR (Morrill 2016; D'Orazio et al. 2019).

Every regressor follows scikit-learn's habits: parameters are set in ``__init__`` and checked
in ``fit`` (bad ones raise a one-line :class:`~rcfr.core.errors.RcfrError`), ``fit(X, y,
sample_weight=None)`` returns the regressor, ``predict(X)`` returns a float vector, and
``complexity`` is its size: leaves for trees, weights for linear models.

* :class:`BestFirstTree` -- best-first regression tree with a leaf budget (thesis ch. 2);
* :class:`RecursivePartitioningTree` -- regression tree split while a node's mean error exceeds a
  threshold (thesis ch. 2);
* :class:`RidgeRegression` and :func:`tug_of_war_features` -- f-RCFR's linear estimator and its
  hashing features (D'Orazio et al. 2019, sec. 4.1);
* :class:`SklearnRegressor` -- any scikit-learn regressor;
* :class:`~rcfr.regressors.torch_mlp.TorchMLPRegressor` -- a PyTorch MLP (the ``torch`` extra;
  imported from its module so that ``import rcfr`` never needs PyTorch).

They are scikit-learn estimators (``clone``, ``check_estimator``); unfitted ``predict`` raises
:class:`NotFittedError` (an ``RcfrError`` and scikit-learn's ``NotFittedError``), and
``state()`` / ``load_state()`` turn a fitted model into plain arrays and back, for checkpoints.
"""

from ._checks import NotFittedError
from .best_first import BestFirstTree
from .recursive import RecursivePartitioningTree
from .ridge import RidgeRegression
from .sklearn_adapter import SklearnRegressor
from .tug_of_war import tug_of_war_features

__all__ = [
    "BestFirstTree",
    "NotFittedError",
    "RecursivePartitioningTree",
    "RidgeRegression",
    "SklearnRegressor",
    "tug_of_war_features",
]

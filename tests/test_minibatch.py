"""Minibatch regression under a sampled pass (issue 15): the regressor trains on the rows of
the sequences each pass touched, built lazily, never on a dense feature matrix."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rcfr.cli import main
from rcfr.core.errors import RcfrError
from rcfr.features import sequence_features
from rcfr.forms.compile import compile_game
from rcfr.solvers.mccfr import MCCFRSolver
from rcfr.solvers.regression import RegressionRegrets
from rcfr.solvers.run import make_solver

KUHN_UNIFORM = 11 / 24  # the uniform strategy's exploitability on Kuhn


class Lookup:
    """A tabular-capacity regressor on one-hot rows that trains incrementally: ``partial_fit``
    stores each row's target in its sequence's cell, ``predict`` reads the cells."""

    complexity = 0

    def __init__(self) -> None:
        self.rows_seen: list[np.ndarray] = []

    def partial_fit(self, X, y):
        X = np.asarray(X)
        if not hasattr(self, "values_"):
            self.values_ = np.zeros(X.shape[1])
        cols = X.argmax(axis=1)
        assert np.array_equal(X.sum(axis=1), np.ones(len(X)))  # one-hot rows
        self.values_[cols] = y
        self.rows_seen.append(cols)
        return self

    fit = partial_fit

    def predict(self, X):
        return self.values_[np.asarray(X).argmax(axis=1)]


@pytest.fixture(scope="module")
def leduc():
    return compile_game("leduc")


@pytest.mark.parametrize("rule,bootstrap", [("cfr", False), ("cfr+", False), ("cfr+", True)])
def test_minibatch_with_a_tabular_capacity_regressor_is_tabular_es(leduc, rule, bootstrap):
    """The untouched rows' targets do not change in a pass, so fitting the touched rows only
    (and predicting all) reproduces tabular external sampling bit for bit."""
    tab = MCCFRSolver(leduc, "es", rule=rule, seed=5).run(30)
    est = RegressionRegrets(Lookup(), "onehot", rule=rule, bootstrap=bootstrap, minibatch=True)
    mb = MCCFRSolver(leduc, "es", rule=rule, seed=5, estimator=est).run(30)
    assert mb.nodes_visited == tab.nodes_visited
    np.testing.assert_array_equal(mb.avg_weights_, tab.avg_weights_)
    np.testing.assert_array_equal(mb.strategy_, tab.strategy_)


def test_minibatch_fits_exactly_the_touched_information_sets(leduc):
    """The rows fitted after a pass are the sequences of the information sets with a nonzero
    sampled regret: a strict subset of the player's sequences, never a row twice."""
    regs = [Lookup(), Lookup()]
    est = RegressionRegrets(regs, "onehot", rule="cfr", minibatch=True)
    solver = MCCFRSolver(leduc, "es", seed=2, estimator=est)
    solver.setup()
    inst = np.zeros(leduc.num_sequences)
    solver.pass_.run((0,), solver.strategy_, 1.0, solver.avg_weights_, inst)
    lo, hi = est.bounds_[0]
    info = leduc.seq_infoset[lo:hi]
    want = np.flatnonzero(np.isin(info, np.unique(info[inst[lo:hi] != 0])))
    solver.iteration = 1
    est.update(0, inst, 1)
    assert 0 < want.size < hi - lo
    np.testing.assert_array_equal(est.fitted_rows_[0], lo + want)
    np.testing.assert_array_equal(np.sort(regs[0].rows_seen[-1]), want)


def test_es_with_the_network_runs_where_the_dense_matrix_is_refused(leduc):
    """With a budget the dense hashing matrix exceeds, the dense estimator is refused and the
    minibatch one trains the network on the touched rows and predicts in small chunks: its
    estimates are the network's predictions on the whole (lazily built) matrix."""
    pytest.importorskip("torch")
    from rcfr.regressors.torch_mlp import TorchMLPRegressor

    def net():
        return TorchMLPRegressor(hidden=(16,), learning_rate=1e-2, steps=5, random_state=0)

    budget = 20_000  # bytes: the dense hashing:3 matrix of leduc's 1,092 x 33 is 288,288
    with pytest.raises(RcfrError, match="minibatch"):
        MCCFRSolver(leduc, "es", seed=0, estimator=RegressionRegrets(
            net(), "hashing:3", rule="cfr+", max_memory=budget)).run(1)
    est = RegressionRegrets(net(), "hashing:3", rule="cfr+", minibatch=True, max_memory=budget)
    MCCFRSolver(leduc, "es", rule="cfr+", seed=0, estimator=est).run(10)
    for p in (0, 1):
        lo, hi = est.bounds_[p]
        assert 0 < est.fitted_rows_[p].size < hi - lo
        reg = est.regressors_[p]
        assert reg.n_steps_ == 10 * 5  # every iteration trained, warm
        whole = reg.predict(sequence_features(leduc, p, "hashing:3"))
        np.testing.assert_allclose(est.estimates[lo:hi], whole, rtol=1e-5, atol=1e-6)
        assert np.any(whole != 0)


def test_minibatch_options_are_checked(leduc):
    with pytest.raises(RcfrError, match="incrementally"):
        make_solver(leduc, "es", regressor="best-first", minibatch=True).run(1)
    with pytest.raises(RcfrError, match="incrementally"):  # its warm_start adds members
        make_solver(leduc, "es", regressor="sklearn:sklearn.ensemble.RandomForestRegressor",
                    minibatch=True).run(1)
    with pytest.raises(RcfrError, match="cfr or cfr"):
        MCCFRSolver(leduc, "es", rule="lcfr", estimator=RegressionRegrets(
            Lookup(), rule="lcfr", minibatch=True)).run(1)
    with pytest.raises(RcfrError, match="sampling schemes"):
        make_solver(leduc, "rcfr+", regressor="torch-mlp", minibatch=True)


@pytest.mark.parametrize("args", [("-a", "rcfr+", "--regressor", "torch-mlp"),
                                  ("-a", "es",), ("-a", "es", "--regressor", "ridge")])
def test_cli_refuses_minibatch_where_it_does_not_apply(capsys, args):
    code = main(["solve", "kuhn", *args, "--minibatch", "--iterations", "2"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("error: ")


def test_cli_es_with_a_minibatch_regressor(capsys):
    """``--minibatch`` reaches the estimator: ES on Kuhn with scikit-learn's SGD regressor
    (partial_fit) on one-hot rows."""
    code = main(["solve", "kuhn", "-a", "es", "--regressor",
                 "sklearn:sklearn.linear_model.SGDRegressor", "--features", "onehot",
                 "--minibatch", "--iterations", "20", "--seed", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["iterations"] == 20 and out["exploitability"] < KUHN_UNIFORM

"""The neural regressor (optional extra rcfr[torch]): scikit-learn's contract, warm starts,
exact checkpoints, and RCFR+ on Kuhn poker with it."""

import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.core.fileio import read_npz, write_npz
from rcfr.regressors.torch_mlp import TorchMLPRegressor, parse_hidden
from rcfr.solvers.rcfr import RCFRSolver

torch = pytest.importorskip("torch")

# float64 so that predicting a subset of rows gives bit-for-bit the same values as predicting
# them among others (float32 matrix products round differently with the batch size: 1 ulp)
FULL_BATCH = TorchMLPRegressor(hidden=(16,), epochs=100, learning_rate=0.02, dtype="float64")
MINIBATCH = TorchMLPRegressor(hidden=(8, 8), batch_size=16, epochs=10, learning_rate=0.01,
                              dtype="float64")


def expected_failures(estimator):
    if estimator.batch_size is not None:
        return {"check_sample_weight_equivalence_on_dense_data":
                "minibatches of a weighted sample are not those of its repetition (full-batch "
                "training passes this check)"}
    return {}


@pytest.fixture(autouse=True)
def deterministic_torch():
    """One thread and deterministic kernels: same seed, same numbers, on CPU."""
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    yield
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(deterministic)


@parametrize_with_checks([FULL_BATCH, MINIBATCH], expected_failed_checks=expected_failures)
def test_check_estimator(estimator, check):
    check(estimator)


def data(seed, n=80, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.sin(X[:, 0]) + X[:, 1] * X[:, 2]


def test_importing_rcfr_does_not_import_torch():
    code = ("import sys, rcfr, rcfr.regressors, rcfr.regressors.torch_mlp, rcfr.solvers; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_fits_a_smooth_function_and_counts_its_weights():
    X, y = data(0)
    model = TorchMLPRegressor(hidden=(32, 16), epochs=300, learning_rate=0.01).fit(X, y)
    assert model.score(X, y) > 0.9
    assert model.complexity == (4 * 32 + 32) + (32 * 16 + 16) + (16 + 1)
    assert model.n_steps_ == 300 and model.predict(X).dtype == np.float64


def test_clone_and_not_fitted():
    model = TorchMLPRegressor(hidden="8,8", activation="tanh", optimizer="sgd", steps=5)
    twin = clone(model)
    assert twin.get_params() == model.get_params()
    with pytest.raises(NotFittedError):
        twin.predict(np.zeros((2, 3)))
    X, y = data(1)
    np.testing.assert_array_equal(clone(model).fit(X, y).predict(X), model.fit(X, y).predict(X))


@pytest.mark.parametrize("batch_size", [None, 16])
def test_warm_start_continues_where_the_last_fit_stopped(batch_size):
    X, y = data(2)
    kw = dict(hidden=(8,), epochs=5, batch_size=batch_size, learning_rate=0.01)
    warm = TorchMLPRegressor(warm_start=True, **kw).fit(X, y).fit(X, y)
    once = TorchMLPRegressor(**{**kw, "epochs": 10}).fit(X, y)  # the same steps in one fit
    np.testing.assert_array_equal(warm.predict(X), once.predict(X))
    assert warm.n_steps_ == once.n_steps_
    cold = TorchMLPRegressor(**kw).fit(X, y).fit(X, y)  # warm_start=False: starts over
    np.testing.assert_array_equal(cold.predict(X), TorchMLPRegressor(**kw).fit(X, y).predict(X))
    partial = TorchMLPRegressor(**kw).fit(X, y).partial_fit(X, y)
    np.testing.assert_array_equal(partial.predict(X), once.predict(X))


def test_a_checkpoint_resumes_training_exactly(tmp_path):
    X, y = data(3)
    kw = dict(hidden=(8, 8), epochs=3, batch_size=20, learning_rate=0.01, warm_start=True)
    model = TorchMLPRegressor(**kw).fit(X, y, sample_weight=np.linspace(0.5, 2, len(y)))
    write_npz(tmp_path / "mlp.npz", model.state(), {"format": "test.mlp", "version": 1})
    arrays, _ = read_npz(tmp_path / "mlp.npz", "test.mlp")
    resumed = TorchMLPRegressor(**kw).load_state(arrays)
    np.testing.assert_array_equal(resumed.predict(X), model.predict(X))
    assert resumed.complexity == model.complexity and resumed.n_steps_ == model.n_steps_
    # weights, Adam's moments and the minibatch generator all came back
    np.testing.assert_array_equal(resumed.fit(X, y).predict(X), model.fit(X, y).predict(X))
    with pytest.raises(ValueError, match="not the state of this network"):
        TorchMLPRegressor(**{**kw, "hidden": (8,)}).load_state(arrays)


@pytest.mark.parametrize("params, message", [
    (dict(hidden="64,x"), "hidden layers must be widths"),
    (dict(hidden=(0,)), "width must be >= 1"),
    (dict(activation="swish"), "unknown activation 'swish'"),
    (dict(optimizer="lbfgs"), "unknown optimizer 'lbfgs'"),
    (dict(learning_rate=-1.0), "learning_rate must be a finite number >= 0"),
    (dict(steps=0), "steps must be >= 1"),
    (dict(batch_size=0), "batch_size must be >= 1"),
    (dict(dtype="float16"), "unknown dtype"),
])
def test_parameters_are_checked_in_fit(params, message):
    model = TorchMLPRegressor(**params)
    X, y = data(4, n=10)
    with pytest.raises(RcfrError, match=message):
        model.fit(X, y)


def test_parse_hidden():
    assert parse_hidden("64, 32") == (64, 32) and parse_hidden(16) == (16,)
    assert parse_hidden(()) == () and parse_hidden([8, 8]) == (8, 8)


def test_rcfr_plus_with_the_neural_regressor_solves_kuhn(kuhn):
    def run():
        solver = RCFRSolver(kuhn, "rcfr+", regressor="torch-mlp", hidden="16", seed=3)
        return solver.run(100)

    first, second = run(), run()
    avg = first.average_policy().probs
    # measured 0.00782 after 100 iterations (0.00391 after 200, 0.00177 after 500); issue 15
    # asks for < 0.02 within 2,000
    assert rcfr.exploitability(kuhn, first.average_policy()) < 0.012
    np.testing.assert_array_equal(avg, second.average_policy().probs)  # same seed, same run
    assert first.complexity == 2 * (16 + 16 + 17) + 2 * 16 * (kuhn.num_sequences // 2 - 1)


def test_an_rcfr_checkpoint_resumes_the_network_exactly(kuhn, tmp_path):
    def solver():
        return RCFRSolver(kuhn, "rcfr+", regressor="torch-mlp", hidden="8", seed=1)

    straight = solver().run(12)
    first = solver().run(7)
    first.save_checkpoint(tmp_path / "ck.npz")
    resumed = solver().load_checkpoint(tmp_path / "ck.npz").run(5)
    np.testing.assert_array_equal(resumed.average_policy().probs,
                                  straight.average_policy().probs)
    np.testing.assert_array_equal(resumed.current_policy().probs,
                                  straight.current_policy().probs)

import numpy as np
import pytest

import rcfr


@pytest.fixture(scope="session")
def kuhn():
    return rcfr.compile_game("kuhn")


@pytest.fixture(scope="session")
def leduc():
    return rcfr.compile_game("leduc")


@pytest.fixture(scope="session")
def leduc_canonical():
    return rcfr.compile_game("leduc(canonical=true)")


def random_policy(tree, seed):
    """A random fully mixed behavioural profile."""
    rng = np.random.default_rng(seed)
    return rcfr.TabularPolicy.from_weights(tree, rng.random(tree.num_sequences) + 1e-3)

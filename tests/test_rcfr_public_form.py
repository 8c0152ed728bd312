"""Regression CFR on the public form: the shared loop takes the public tree's full-width pass,
and the regressors see the same sequences (the contract) as on the history form."""

from __future__ import annotations

import numpy as np
import pytest

import rcfr
from rcfr.cli import main
from rcfr.forms.public.tree import compile_public
from rcfr.policy import convert_policy
from rcfr.solvers.run import make_solver


@pytest.mark.parametrize("game, tol", [("leduc", 1e-12), ("liars_dice(faces=3)", 1e-9)])
def test_rcfr_gives_the_history_forms_strategies(game, tol):
    """RCFR with ridge regression on tug-of-war hashing features (D'Orazio et al. 2019): the
    features are functions of the information state and action, so both forms fit the same
    rows in another order (measured: equal to 3e-14 on Leduc, 1e-11 on three-face Bluff(1,1)
    after 20 iterations)."""
    history, public = rcfr.compile_game(game, "history"), compile_public(game)
    a = make_solver(history, "rcfr", regressor="ridge", features="hashing:10").run(20)
    b = make_solver(public, "rcfr", regressor="ridge", features="hashing:10").run(20)
    assert not b.fused_ and b.average_policy().metadata["form"] == "public"
    got, want = b.average_policy().probs, convert_policy(a.average_policy(), public).probs
    assert np.abs(got - want).max() < tol
    assert rcfr.exploitability(public, b.average_policy()) == pytest.approx(
        rcfr.exploitability(history, a.average_policy()), abs=1e-9)


def test_sampling_with_a_regressor_on_the_public_form():
    """External sampling with ridge regression on Kuhn's public form: 3,000 iterations reach
    0.006-0.015 over seeds 0-2 (uniform play: 0.458)."""
    s = make_solver(compile_public("kuhn"), "es", regressor="ridge",
                           features="hashing:10", seed=0).run(3000)
    assert not s.fused_ and rcfr.exploitability(s.tree, s.average_policy()) < 0.03


def test_history_only_features_are_refused_on_the_public_form(capsys):
    code = main(["solve", "leduc", "-a", "rcfr+", "--form", "public", "-n", "5"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1
    assert "the thesis features read the history form's nodes" in err
    code = main(["solve", "leduc", "-a", "rcfr+", "--form", "public", "-n", "5", "--features",
                 "onehot", "--json"])
    assert code == 0, capsys.readouterr().err

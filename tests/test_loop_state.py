"""The fused passes run on the loop's state alone (rcfr.forms.loop_state.LoopState): a pass
given a state built by hand, with no solver, computes what the solver's fused run computes, bit
for bit, and returns the new counters; and a form says what it offers through ``supports``."""

from __future__ import annotations

import numpy as np
import pytest

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.core.links import parse_link
from rcfr.core.rules import parse_rule
from rcfr.forms import Capability, compile_game
from rcfr.forms.loop_state import Counters, LoopState
from rcfr.forms.sampling import ES, seed_state
from rcfr.policy import TabularPolicy
from rcfr.solvers.loop import UNLIMITED


def _state(tree, rule: str, rng=None) -> LoopState:
    """A fresh loop state over ``tree`` (uniform strategy, zero tables), with no solver."""
    S = tree.num_sequences
    extra = {} if rng is None else {"rng": rng}
    return LoopState(0, 0, True, parse_rule(rule).averaging, parse_rule(rule).params,
                     parse_link(None).kind, parse_link(None).param, np.zeros(S), np.zeros(S),
                     np.zeros(S), TabularPolicy.uniform(tree).probs.copy(), np.zeros(S),
                     np.zeros(S), **extra)


@pytest.fixture(scope="module")
def forms():
    return compile_game("kuhn"), compile_game("kuhn", form="public")


def test_a_full_width_pass_runs_on_a_loop_state_alone(forms):
    """CFR+ in two calls (4 + 6 iterations) on a hand-built state: the solver's tables bit for
    bit, and the counters a full-width iteration adds (both players' passes, every history)."""
    for tree in forms:
        solver = rcfr.CFRSolver(tree, "cfr+").run(10)
        state = _state(tree, "cfr+")
        pass_ = tree.full_width_pass()
        after = pass_.run_fused(state, 4, UNLIMITED)
        assert after == Counters(4, 4 * 2 * tree.num_nodes)
        after = pass_.run_fused(state._replace(iteration=after.iteration,
                                               nodes_visited=after.nodes_visited), 6, UNLIMITED)
        assert after == Counters(10, 10 * 2 * tree.num_nodes)
        assert (solver.iteration, solver.nodes_visited) == after
        for mine, theirs in ((state.strategy, solver.strategy_),
                             (state.avg_weights, solver.avg_weights_),
                             (state.regrets, solver.estimator_.regrets)):
            assert np.array_equal(mine, theirs)
        assert state.avg_weights.any()


def test_a_sampled_pass_draws_from_the_state_generator(forms):
    """External sampling on a hand-built state with its own generator word: the solver's run
    for the same seed bit for bit (generator included), while the pass's own generator is
    left as it was; a node budget stops after the whole iteration that reaches it."""
    for tree in forms:
        solver = rcfr.MCCFRSolver(tree, "es", seed=11).run(25)
        pass_ = tree.sampled_pass(ES, 0.05, 1e6, 1000.0, 3)
        own = pass_.rng.copy()
        state = _state(tree, "cfr", rng=seed_state(11))
        state = state._replace(avg_power=0.0)  # (MCCFR averages uniformly with cfr)
        after = pass_.run_fused(state, 25, UNLIMITED)
        assert after == (solver.iteration, solver.nodes_visited) and after.iteration == 25
        assert np.array_equal(pass_.rng, own)
        assert state.rng[0] == solver.rng_[0] != seed_state(11)[0]
        assert np.array_equal(state.avg_weights, solver.avg_weights_)
        assert np.array_equal(state.regrets, solver.estimator_.regrets)
        budget = pass_.run_fused(_state(tree, "cfr", rng=seed_state(11)), UNLIMITED, 50)
        assert budget.nodes_visited >= 50 and budget.iteration >= 1


def test_forms_say_what_they_offer(forms):
    """One node per history on the history form only; sampled passes on both; threaded
    sampling on the public form; re-solving where the subgame layer registered a re-solver
    (both forms); names are checked."""
    import rcfr.subgame  # noqa: F401 (registers the re-solvers)

    history, public = forms
    offers = {tree.form: {c for c in Capability if tree.supports(c)} for tree in forms}
    assert offers == {
        "history": {Capability.HISTORY_NODES, Capability.SAMPLED_PASSES, Capability.RESOLVING,
                    Capability.REGRET_PRUNING},
        "public": {Capability.SAMPLED_PASSES, Capability.THREADED_SAMPLING,
                   Capability.RESOLVING}}
    assert history.supports("history nodes") and not public.supports("history nodes")
    with pytest.raises(RcfrError, match="unknown capability 'history_nodes'"):
        history.supports("history_nodes")

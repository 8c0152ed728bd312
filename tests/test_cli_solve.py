"""``rcfr solve``'s schedule and messages: a target's own evaluation points, the options the
fictitious-play and Deep CFR drivers take (from the declarations), and the refusals of
options a run would otherwise ignore."""

from __future__ import annotations

import json
import math
from itertools import pairwise

import pytest
from conftest import one_line_error
from conftest import run_cli as run

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.run.schedule import TARGET_RATIO
from rcfr.solvers.run import make_solver


def _first_reaching(target: float) -> int:
    """The first iteration of CFR+ on Kuhn whose average is within ``target``."""
    exact = rcfr.solve("kuhn", "cfr+", 100_000, 1, target_exploitability=target)
    assert exact.target_reached
    return exact.iterations


def test_a_target_sets_its_own_schedule(capsys):
    """Without --eval-every a target is checked on its own geometric points, so a run stops
    at most about a tenth past the first iteration that meets it (it was checked every tenth
    of -n: 10,000 iterations here)."""
    first = _first_reaching(0.01)
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "100000",
                         "--target-exploitability", "0.01", "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["target_reached"] is True and info["exploitability"] <= 0.01
    stop = info["iterations"]
    assert first <= stop <= first + max(5, math.ceil((TARGET_RATIO - 1) * first))
    points = [it for it, _ in info["curve"]]
    assert points[-1] == stop and dict(info["curve"])[points[-2]] > 0.01
    # the points grow geometrically: a few dozen evaluations, not one an iteration
    assert len(points) < 40 and all(b >= a * TARGET_RATIO for a, b in pairwise(points))
    # the same stop from the API, and on a node budget
    assert rcfr.solve("kuhn", "cfr+", 100_000, target_exploitability=0.01).iterations == stop
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "--nodes", "10000000",
                         "--target-exploitability", "0.01", "--json")
    info = json.loads(out)
    assert code == 0 and info["target_reached"] and info["nodes_visited"] < 100_000


def test_targets_with_rounds_are_refused(capsys):
    line = one_line_error(*run(capsys, "solve", "liars_dice(dice=2,dice2=1)", "--rounds",
                               "loser", "-n", "5", "--target-exploitability", "0.1")[::2])
    assert "--target-exploitability" in line and "--rounds" in line


@pytest.mark.parametrize("algorithm", ["fsp", "nfsp"])
def test_simultaneous_is_refused_where_there_are_no_alternating_updates(capsys, algorithm):
    line = one_line_error(*run(capsys, "solve", "kuhn", "-a", algorithm, "-n", "2",
                               "--simultaneous")[::2])
    assert line.startswith("error: --simultaneous:") and algorithm in line


def test_the_api_takes_episodes():
    """rcfr.solve(..., episodes=N) runs nfsp for N episodes (it was refused as an option of
    the regret algorithms); other algorithms refuse it with their budgets named."""
    result = rcfr.solve("kuhn", "nfsp", episodes=200, envs=8)
    assert 200 <= result.iterations < 200 + 8
    with pytest.raises(RcfrError, match="--episodes is the budget of nfsp; cfr takes"):
        rcfr.solve("kuhn", "cfr", episodes=10)


def test_what_a_driver_takes_is_what_the_declarations_say():
    """dream takes --epsilon (declared for it beside os and as); sd-cfr and cfr refuse it
    naming every algorithm that takes it."""
    make_solver("kuhn", "dream", epsilon=0.3, traversals=2)
    with pytest.raises(RcfrError, match="--epsilon applies to dream/os/as, not sd-cfr"):
        make_solver("kuhn", "sd-cfr", epsilon=0.3)
    with pytest.raises(RcfrError, match="--epsilon applies to the sampling schemes os/as "
                                        "and dream, not cfr"):
        make_solver("kuhn", "cfr", epsilon=0.3)
    with pytest.raises(RcfrError, match="--eval-every is a run's option"):
        make_solver("kuhn", "xfp", eval_every=3)


def test_solve_help_lists_the_options_by_family(capsys):
    """solve --help prints one panel per family (plain text: the app has no rich markup),
    each declared option under the panel its declaration derives."""
    from rcfr.solvers.options import OPTIONS, PANELS

    code, out, _ = run(capsys, "solve", "--help")
    assert code == 0
    section, where = None, {}
    for line in out.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            section = line[:-1]
        elif line.startswith("  -"):
            for flag in line.split()[:2]:
                where[flag.rstrip(",").split("/")[0]] = section
    titles = [t for t in where.values() if t]
    for panel in PANELS:
        assert any(t.startswith(panel) for t in titles), panel
    for o in OPTIONS:
        if o.cli:
            assert where[o.flag].startswith(o.panel), (o.flag, where[o.flag])
    assert where["--eta"].startswith("Fictitious play") and where["--q-lr"].startswith(
        "Deep CFR") and where["--leaves"].startswith("Regression")
    assert where["--out"].startswith("Files") and where["--actors"].startswith("Distributed")

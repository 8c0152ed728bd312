"""The one solver factory: :func:`make_solver` builds a solver by its algorithm's name, with
the options :mod:`rcfr.solvers.options` declares for it (and refuses the ones it does not);
:func:`tables` says which tables the memory guard counts.  The run engine
(:mod:`rcfr.run.engine`) runs what it builds."""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import RcfrError
from ..core.rules import (
    DCFR_DEFAULTS,
    DCFR_PLUS_DEFAULTS,
    HORIZON_DEFAULT,
    HS_DEFAULTS,
    PDCFR_DEFAULTS,
    SAPCFR_DEFAULTS,
    UpdateRule,
    parse_rule,
)
from ..forms.base import Form
from ..forms.compile import compile_game
from ..forms.sampling import SCHEMES
from .ddcfr import DDCFRSolver
from .deep import DEEP_ALGORITHMS, make_deep_solver
from .fp import FP_ALGORITHMS, make_fp_solver
from .loop import ALGORITHMS, CFRSolver, RegretSolver
from .mccfr import MCCFRSolver
from .options import (
    ALL_ALGORITHMS,
    AVERAGE_OPTIONS,
    FP_OPTIONS,
    NUMERIC_OPTIONS,
    OPTION,
    OPTIONS,
    RCFR_OPTIONS,
    RULE_OPTIONS,
    RUN,
    SCHEME_OPTIONS,
)
from .rcfr import RCFR_ALGORITHMS, RCFRSolver, make_estimator
from .scheduled import ScheduledSolver


def _rule_for(key: str, rule: str | UpdateRule | None, options: dict) -> UpdateRule:
    """The update rule of ``algorithm`` ``key`` with DCFR's ``alpha``, ``beta``, ``gamma``
    options filled in."""
    if key in ALGORITHMS:
        if rule is not None:
            raise RcfrError(f"-a {key} is itself an update rule; --rule applies to rcfr and the "
                            f"sampling schemes")
        rule = key
    base = parse_rule(rule)
    names = RULE_OPTIONS.get(base.name, ())
    given = {k: options[k] for k in names if options.get(k) is not None}
    if not given:
        return base
    if isinstance(rule, UpdateRule) or ":" in str(rule):
        raise RcfrError(f"give {base.name}'s parameters in the rule {rule} or as options, not both")
    if "gamma" in given and options.get("averaging") is not None:
        raise RcfrError(f"--gamma is {base.name}'s averaging power; give --gamma or --averaging")
    values = [given.get(k, d) for k, d in zip(names, RULE_DEFAULTS[base.name], strict=True)]
    return parse_rule(f"{base.name}:{','.join(str(float(v)) for v in values)}")


# the parameters of the rules that take options, in the order of their options
RULE_DEFAULTS = {"dcfr": DCFR_DEFAULTS, "pdcfr+": PDCFR_DEFAULTS, "dcfr+": DCFR_PLUS_DEFAULTS,
                 "sapcfr+": SAPCFR_DEFAULTS,
                 "hs-dcfr": HS_DEFAULTS, "hs-pcfr+": HS_DEFAULTS, "ddcfr": (HORIZON_DEFAULT,)}


def make_solver(game: Form | str, algorithm: str, *, rule: str | UpdateRule | None = None,
                **options) -> RegretSolver:
    """A solver for ``algorithm`` on ``game``: :func:`solver_recipe`'s checks, then the solver
    built on the game."""
    return solver_recipe(algorithm, rule=rule, **options)(game)


def check_solver(algorithm: str, *, rule: str | UpdateRule | None = None, **options) -> None:
    """Refuse what :func:`make_solver` would refuse for these options, without a game (a
    sweep's ``--dry-run`` checks every run this way, compiling nothing)."""
    solver_recipe(algorithm, rule=rule, **options)


def solver_recipe(algorithm: str, *, rule: str | UpdateRule | None = None,
                  **options) -> Callable[[Form | str], RegretSolver]:
    """The checked configuration of a solver, as a function that builds it on a game, for
    ``algorithm``: ``cfr``, ``cfr+``, ``lcfr``, ``dcfr``, ``pcfr+``, ``pdcfr+`` (tabular, one per
    update rule; DCFR takes ``alpha``, ``beta``, ``gamma``), ``rcfr``,
    ``rcfr+`` (regression CFR, which takes the regressor options and a ``rule``) or ``cs``,
    ``es``, ``os``, ``as`` (Monte Carlo CFR: ``epsilon`` for os/as, ``beta``, ``tau`` for as;
    a ``rule``; with a ``regressor`` its regrets are estimated by regression from the sampled
    targets; ``dtype="float32"``: single-precision tables).  An option the algorithm would
    ignore is refused (which algorithms, schemes and rules take which options is declared in
    :mod:`rcfr.solvers.options`)."""
    key = str(algorithm).strip().lower()
    if key not in ALL_ALGORITHMS:
        raise RcfrError(f"unknown algorithm {algorithm!r}; use one of {', '.join(ALL_ALGORITHMS)}")
    unknown = sorted(k for k in options if k not in OPTION)
    if unknown:
        raise RcfrError(f"unknown option {unknown[0]!r} for {key} (the options are declared in "
                        "rcfr.solvers.options; e.g. alpha, averaging, epsilon, seed, dtype)")
    for k in ("dtype", "storage", "lock", "prune"):
        if options.get(k) is None:
            options.pop(k, None)
    given = {k for k, v in options.items() if v is not None and v is not False}
    dtype = OPTION["dtype"]
    if "dtype" in given and key not in dtype.algorithms:
        raise RcfrError(f"{dtype.flag} sets the tables of the tabular solvers "
                        f"{'/'.join(dtype.algorithms)}, not {key}")
    storage = OPTION["storage"]
    if "storage" in given and key not in storage.algorithms:
        raise RcfrError(f"{storage.flag} sets the tables of the full-width solvers "
                        f"{'/'.join(storage.algorithms)}, not {key}")
    lock = OPTION["lock"]
    if "lock" in given and key not in lock.algorithms:
        raise RcfrError(f"{lock.flag} locks nodes of the full-width solvers "
                        f"{'/'.join(lock.algorithms)}, not {key}")
    prune = OPTION["prune"]
    if "prune" in given and key not in prune.algorithms:
        raise RcfrError(f"{prune.flag} prunes the full-width passes of "
                        f"{'/'.join(prune.algorithms)}, not {key}")
    if "alpha" in given and (options.get("regressor") or "").strip().lower() == "ridge":
        raise RcfrError(f"{OPTION['alpha'].flag} is DCFR's; the ridge penalty is "
                        f"{OPTION['ridge_alpha'].flag}")
    if key in FP_ALGORITHMS:
        return _make_fp(key, rule, options, given)
    if key in DEEP_ALGORITHMS:
        return _make_deep(key, rule, options, given)
    for k in FP_OPTIONS:
        if k in given:
            raise RcfrError(f"{OPTION[k].flag} applies to {'/'.join(OPTION[k].algorithms)}, "
                            f"not {key}")
        options.pop(k, None)
    rule_ = _rule_for(key, rule, options)
    rule_opts = RULE_OPTIONS.get(rule_.name, ())
    scheme_opts = SCHEME_OPTIONS.get(key, ())
    for k in NUMERIC_OPTIONS:
        if k in given and k in rule_opts and k in scheme_opts:
            raise RcfrError(f"{OPTION[k].flag} would mean both {rule_.name}'s {k} and {key}'s")
        if k in given and k not in rule_opts and k not in scheme_opts:
            schemes, rules = OPTION[k].schemes, OPTION[k].rules
            users = ([f"the sampling schemes {'/'.join(schemes)}"] if schemes else []) + (
                [f"the rules {'/'.join(rules)}"] if rules else []) + (
                ["/".join(OPTION[k].algorithms)] if OPTION[k].algorithms else [])
            raise RcfrError(f"{OPTION[k].flag} applies to {' and '.join(users)}, not {key}"
                            + (f" with the {rule_.name} rule" if key not in ALGORITHMS else ""))
    rest = {k: v for k, v in options.items() if k not in NUMERIC_OPTIONS}
    regression = {k: rest.pop(k) for k in RCFR_OPTIONS if k in rest}
    average = {k: rest.pop(k) for k in AVERAGE_OPTIONS if k in rest}
    average_given = [OPTION[k] for k in AVERAGE_OPTIONS if k in given]
    if average_given and key not in average_given[0].algorithms:
        raise RcfrError(f"{average_given[0].flag} applies to "
                        f"{' and '.join(average_given[0].algorithms)}, not {key}")
    if "ridge_alpha" in regression:
        regression["alpha"] = regression.pop("ridge_alpha")
    regression_given = [k for k in RCFR_OPTIONS if k in given]
    rule_arg = None if rule is None and key not in ALGORITHMS else rule_
    if key in SCHEMES:
        scheme = {k: options[k] for k in scheme_opts if k in given}

        def sampled(game):
            estimator = None
            if regression_given:
                tree = compile_game(game)
                estimator = make_estimator(
                    tree, regression.get("regressor") or "best-first", rule=rule_,
                    seed=int(options.get("seed") or 0),
                    **{k: v for k, v in regression.items()
                       if k != "regressor" and v is not None and v is not False})
                game = tree
            return MCCFRSolver(game, key, estimator=estimator, rule=rule_arg, **scheme, **rest)

        return sampled
    if key in RCFR_ALGORITHMS:
        if regression.pop("minibatch", None):
            minibatch = OPTION["minibatch"]
            raise RcfrError(f"{minibatch.flag} fits the sequences a sampled pass touched; use "
                            f"it with the sampling schemes {', '.join(minibatch.algorithms)}")
        return lambda game: RCFRSolver(game, key, rule=rule_arg, **regression, **average,
                                       **rest)
    if regression_given:
        raise RcfrError(f"{OPTION[regression_given[0]].flag} applies to rcfr, rcfr+ and "
                        f"the sampling schemes, not {key}")
    if rule_.name == "ddcfr":
        return lambda game: DDCFRSolver(game, rule_, **rest)
    if rule_.scheduled:
        return lambda game: ScheduledSolver(game, rule_, **rest)
    return lambda game: CFRSolver(game, rule_, **rest)


def _takes(key: str) -> tuple[str, ...]:
    """What an algorithm of the fictitious-play or Deep CFR family takes: the seed and the
    options declared for it (:data:`rcfr.solvers.options.OPTIONS`, the one list)."""
    return ("seed", *(o.name for o in OPTIONS if key in o.algorithms))


def _users(o) -> str:
    """Who takes option ``o``, as its refusal names them."""
    return "/".join((*o.algorithms, *o.schemes, *o.rules)) or "the regret algorithms"


def _refuse_ignored(key: str, rule, given: set, takes: tuple[str, ...]) -> None:
    """Refuse the options ``key`` of the second or third driver would ignore."""
    if rule is not None:
        raise RcfrError(f"{OPTION['rule'].flag} applies to rcfr and the sampling schemes, "
                        f"not {key}")
    for k in sorted(given, key=lambda k: list(OPTION).index(k) if k in OPTION else -1):
        if k not in takes and k != "alternating":
            o = OPTION.get(k)
            if o is None:
                raise RcfrError(f"unknown option {k!r} for {key}")
            if o.group == RUN:
                raise RcfrError(f"{o.flag} is a run's option (rcfr.solve, rcfr solve), not "
                                f"{key}'s solver's")
            raise RcfrError(f"{o.flag} applies to {_users(o)}, not {key}")


# the fictitious-play algorithms that update both players from the same games at once
_ONE_STEP = {"fsp": "fsp's players learn from the same sampled games at once",
             "nfsp": "nfsp's agents learn from the same self-play games at once"}


def _make_fp(key: str, rule, options: dict, given: set):
    """A solver of the fictitious-play family (:mod:`rcfr.solvers.fp`) for a game; options it
    would ignore are refused."""
    takes = _takes(key)
    _refuse_ignored(key, rule, given, takes)
    if options.get("alternating") is False and key in _ONE_STEP:
        raise RcfrError(f"{OPTION['alternating'].flag}: {_ONE_STEP[key]}; there are no "
                        f"alternating updates to turn off")
    kwargs = {k: options[k] for k in takes if options.get(k) is not None}
    if key not in _ONE_STEP and options.get("alternating") is not None:
        kwargs["alternating"] = options["alternating"]
    return lambda game: make_fp_solver(game, key, **kwargs)


def _make_deep(key: str, rule, options: dict, given: set):
    """A solver of the Deep CFR family (:mod:`rcfr.solvers.deep`) for a game; options it
    would ignore are refused."""
    takes = _takes(key)
    _refuse_ignored(key, rule, given, takes)
    if options.get("alternating") is False:
        raise RcfrError(f"{OPTION['alternating'].flag}: {key} updates the players in turn "
                        f"(alternating), as the Deep CFR paper")
    kwargs = {k: options[k] for k in takes if options.get(k) is not None}
    return lambda game: make_deep_solver(game, key, **kwargs)


def tables(algorithm: str, options: dict, released: bool = False) -> str | None:
    """The tables the memory guard counts (:func:`rcfr.core.budget.check_public`): the compact
    full-width ones, the sampled solvers' float32 ones (``"...-released"`` for a run evaluated
    only at its end, after :meth:`~rcfr.solvers.loop.RegretSolver.release_average`), the
    full-width float32 ones, the full-width predictive rules' (a prediction table more), else
    float64."""
    key = str(algorithm).strip().lower()
    single, rule = options.get("dtype") == "float32", key.partition(":")[0] in ALGORITHMS
    if options.get("storage") == "int16":
        return "int16-released" if released else "int16"
    if single and key in SCHEMES:
        return "float32-released" if released else "float32"
    if rule and parse_rule(key).predictive:
        return "predictive-float32" if single else "predictive"
    return "float32-width" if single and rule else None

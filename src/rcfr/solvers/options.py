"""The options of a run, declared once: one :class:`Option` per option that defines a solver
run (its name, type, default, help text, the algorithms, sampling schemes or update rules that
take it, its command-line spelling and its checks).

Everything else is derived from :data:`OPTIONS`: ``rcfr solve``'s options (:mod:`rcfr.cli`),
the fields of :class:`rcfr.run.spec.RunSpec` and their checks, and which options
:func:`rcfr.solvers.run.make_solver` refuses for an algorithm that would ignore them
(:data:`RCFR_OPTIONS`, :data:`AVERAGE_OPTIONS`, :data:`SCHEME_OPTIONS`, :data:`RULE_OPTIONS`,
:data:`NUMERIC_OPTIONS`).  The game is not an option (it is a run's argument), nor is what only
says where a run writes its files (outputs, checkpoints: the command line's own)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..core.checks import MAX_COUNT  # (re-exported: counts reach numba as 64-bit integers)
from ..core.errors import RcfrError
from ..core.names import (
    ALGORITHMS,
    DEEP_ALGORITHMS,
    FORMS,
    FP_ALGORITHMS,
    PRUNE_NAMES,
    RCFR_ALGORITHMS,
    REGRESSORS,
    RULES,
    SCHEDULED_RULES,
    SCHEMES,
    STORAGE_NAMES,
    TABLE_DTYPE_NAMES,
)

ALL_ALGORITHMS = (*ALGORITHMS, *RCFR_ALGORITHMS, *SCHEMES, *FP_ALGORITHMS, *DEEP_ALGORITHMS)
MAX_SEED = 2**63 - 1

# what an option is for: the run itself (not passed to make_solver), the solver, the
# regressors (regression CFR and the sampling schemes), the average-strategy model (regression
# CFR) and the numeric parameters of the sampling schemes and update rules
RUN, SOLVER, REGRESSION, AVERAGE, NUMERIC = "run", "solver", "regression", "average", "numeric"
_SAME = object()  # cli_default: the same as default

# the help panels of rcfr solve, one per family of options (Option.panel derives them)
BUDGET_PANEL = "Algorithm, budget and evaluation"
REGRET_PANEL = "Regret algorithms: cfr, cfr+, lcfr, dcfr, pcfr+, pdcfr+, dcfr+, sapcfr+, " \
               "hs-dcfr, hs-pcfr+, ddcfr, rcfr, rcfr+, cs, es, os, as"
REGRESSION_PANEL = "Regression: rcfr, rcfr+, and cs/es/os/as with --regressor"
FP_PANEL = "Fictitious play: fp, xfp, fsp, nfsp"
DEEP_PANEL = "Deep CFR: deep-cfr, sd-cfr, dream"
GAME_PANEL = "Game, form and resources"
PANELS = (BUDGET_PANEL, REGRET_PANEL, REGRESSION_PANEL, FP_PANEL, DEEP_PANEL, GAME_PANEL)


@dataclass(frozen=True)
class Option:
    """One option of a run.

    ``default`` is what a run holds when the option is not given; ``None`` leaves the option
    out of the run's identity (:attr:`rcfr.run.spec.RunSpec.hash`) and to the solver's own
    default.  ``cli`` is the command line's spelling (long flag first; empty: not on the
    command line), ``cli_default`` its default there when it differs, and ``invert`` marks a
    flag that sets the option false (``--simultaneous`` for ``alternating``).  ``algorithms``,
    ``schemes`` and ``rules`` say who takes the option (empty: see ``group``).  ``low``,
    ``high`` (``low_open``: ``low`` itself is refused) and ``choices`` are checked wherever a
    value comes in; ``bound`` words the range in the error message.  ``identity=False`` marks
    how a run executes, not what it computes (the thread count): never part of its hash.
    ``help_panel`` overrides the help panel :attr:`panel` derives."""

    name: str
    type: type
    help: str
    default: Any = None
    group: str = SOLVER
    cli: tuple[str, ...] = ()
    cli_default: Any = _SAME
    invert: bool = False
    algorithms: tuple[str, ...] = ()
    schemes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] = ()
    bound: str | None = None
    identity: bool = True
    help_panel: str | None = None

    @property
    def panel(self) -> str:
        """The family ``rcfr solve --help`` lists the option under: given, else derived from
        who takes it (the fictitious-play or Deep CFR algorithms only, the regressors, the
        run) and, for the rest, the regret algorithms."""
        if self.help_panel is not None:
            return self.help_panel
        takers = set(self.algorithms)
        if takers and not (self.schemes or self.rules):
            if takers <= set(FP_ALGORITHMS):
                return FP_PANEL
            if takers <= {*FP_ALGORITHMS, *DEEP_ALGORITHMS}:
                return DEEP_PANEL
        if self.group in (REGRESSION, AVERAGE):
            return REGRESSION_PANEL
        return BUDGET_PANEL if self.group == RUN else REGRET_PANEL

    @property
    def flag(self) -> str:
        """The long command-line flag, as error messages name the option."""
        if self.cli:
            return self.cli[0].split("/")[0]
        return "--" + self.name.replace("_", "-")

    @property
    def cli_name(self) -> str:
        """The command-line parameter's name (the flag's, for an inverted flag)."""
        return self.flag[2:].replace("-", "_") if self.invert else self.name

    @property
    def on_cli_default(self) -> Any:
        """The default on the command line (an unset flag: off)."""
        if self.cli_default is not _SAME:
            return self.cli_default
        if self.type is bool:
            return bool(self.default) and not self.invert
        return self.default

    @property
    def recorded(self) -> bool:
        """Whether a run always records the option (else only when it is given)."""
        return self.default is not None

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` (of the option's type), or None."""
        if value is None:
            return None
        if self.type is str and not value.strip():
            return "must not be empty"
        if self.type is float and not math.isfinite(value):
            return f"must be a finite number, got {value}"
        if self.choices and value not in self.choices:
            return f"must be one of {', '.join(self.choices)}, got {value!r}"
        low = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        high = self.high is not None and value > self.high
        if not (low or high):
            return None
        if self.bound is not None:
            words = self.bound
        elif low:
            words = "positive" if self.low == 1 and not self.low_open else \
                f"{'>' if self.low_open else '>='} {self.low:g}"
        else:
            words = f"at most {self.high:,}"
        return f"must be {words}, got {value}"

    def check(self, value: Any, label: str | None = None) -> None:
        """Refuse a bad ``value`` with one line that starts with ``label`` (default: the
        command-line flag)."""
        problem = self.problem(value)
        if problem is not None:
            raise RcfrError(f"{self.flag if label is None else label} {problem}")


_TAKE_REGRESSORS = (*RCFR_ALGORITHMS, *SCHEMES)
_NFSP = ("nfsp",)
_DEEP = DEEP_ALGORITHMS

OPTIONS: tuple[Option, ...] = (
    Option("algorithm", str, f"One of: auto, {', '.join(ALL_ALGORITHMS)} (auto: the update "
           "rule best on the game's kind in the convergence suite, printed; cfr ... ddcfr: "
           "tabular, "
           "one per update rule; lcfr/dcfr: Linear/Discounted CFR, pcfr+/pdcfr+: predictive "
           "(discounted) CFR+, dcfr+: CFR+ with DCFR's discount; hs-dcfr/hs-pcfr+: DCFR and "
           "PCFR+ with hyperparameter schedules; ddcfr: DCFR with the learned DDCFR policy; "
           "rcfr/rcfr+: regression CFR; cs/es/os/as: Monte Carlo CFR with "
           "chance, external, outcome or average strategy sampling; fp: normal-form "
           "fictitious play; xfp/fsp: extensive-form and sampled fictitious (self-)play; "
           "nfsp: neural fictitious self-play; deep-cfr/sd-cfr/dream: Deep CFR, Single Deep CFR "
           "and DREAM).",
           default="cfr+", group=RUN, cli=("--algorithm", "-a")),
    Option("rule", str, f"rcfr and cs/es/os/as: the update rule, one of {', '.join(RULES)} "
           "(default cfr; rcfr+ is rcfr with cfr+).", cli=("--rule",),
           algorithms=_TAKE_REGRESSORS),
    Option("iterations", int, "Iterations to run (with --resume: further iterations, added "
           "to the checkpoint's; default 1000).", group=RUN, cli=("--iterations", "-n"),
           cli_default=None,
           low=1, high=MAX_COUNT),
    Option("nodes", int, "Run until this many histories have been visited, instead of "
           "--iterations.", group=RUN, cli=("--nodes",), low=1, high=MAX_COUNT),
    Option("episodes", int, "nfsp: games of self-play to run, instead of --iterations (one "
           "nfsp iteration is one episode; the games are played in batches, so a run ends "
           "with the batch that reaches the count and reports the episodes it played).",
           group=RUN, cli=("--episodes",), low=1,
           high=MAX_COUNT),
    Option("epsilon", float, "os/as/dream: exploration (default 0.5 for os and dream, 0.05 "
           "for as).",
           group=NUMERIC, cli=("--epsilon",), schemes=("os", "as"), algorithms=("dream",)),
    Option("alpha", float, "dcfr/pdcfr+/dcfr+: exponent of the positive-regret discount "
           "(default 1.5); sapcfr+: the asymmetry, the prediction's step 1/(1+alpha) (default "
           "2).", group=NUMERIC, cli=("--alpha",), rules=("dcfr", "pdcfr+", "dcfr+", "sapcfr+")),
    Option("beta", float, "dcfr: exponent of the negative-regret discount (default 0); as: the "
           "sampling bonus beta (default 1e6).", group=NUMERIC, cli=("--beta",),
           schemes=("as",), rules=("dcfr",)),
    Option("gamma", float, "dcfr/pdcfr+/dcfr+: averaging power (default 2; dcfr+: 4).",
           group=NUMERIC, cli=("--gamma",), rules=("dcfr", "pdcfr+", "dcfr+")),
    Option("gamma0", float, "hs-dcfr/hs-pcfr+: the schedule's first averaging power, lowered "
           "by 5 over the horizon (default 30; the paper's other schedule: 15).",
           group=NUMERIC, cli=("--gamma0",), rules=("hs-dcfr", "hs-pcfr+"), low=5),
    Option("horizon", int, "hs-dcfr/hs-pcfr+/ddcfr: the iterations the schedule spans "
           "(default 1000, the papers'; past it the parameters stay).", group=NUMERIC,
           cli=("--horizon",), rules=("hs-dcfr", "hs-pcfr+", "ddcfr"), low=1,
           high=2**40),
    Option("tau", float, "as: tau (default 1000).", group=NUMERIC, cli=("--tau",),
           schemes=("as",)),
    Option("eval_every", int, "Evaluate the average strategy every K iterations (default: ten "
           "times in a run, or a target's own points; 0: only at the end).", default=0, group=RUN,
           cli=("--eval-every",), cli_default=None, low=0, high=MAX_COUNT),
    Option("eval_nodes", int, "Evaluate the average strategy every time this many more "
           "histories have been visited (0: only at the end).", default=0, group=RUN,
           low=0, high=MAX_COUNT),
    Option("target_exploitability", float, "Stop once the average strategy's exploitability "
           "is at most this (game units), checked at points about 10% apart (evaluation "
           "about a tenth of the run), or at each --eval-every point if given.", group=RUN,
           cli=("--target-exploitability",), low=0, low_open=True),
    Option("target_mbb", float, "Stop once the exploitability is at most this many mbb/g "
           "(poker games), checked as --target-exploitability.", group=RUN,
           cli=("--target-mbb",), low=0, low_open=True),
    Option("seed", int, "Random seed, >= 0 (default 0; with --resume: the checkpoint's; "
           "recorded; full-width CFR is deterministic).",
           default=0, cli=("--seed",), cli_default=None, low=0, high=MAX_SEED,
           bound="a whole number from 0 to 2**63 - 1", help_panel=BUDGET_PANEL),
    Option("alternating", bool, "Simultaneous instead of alternating updates.", default=True,
           cli=("--simultaneous",), invert=True),
    Option("averaging", str, "uniform, linear or quadratic (default: the rule's: uniform for "
           "cfr, linear for cfr+ and lcfr, t^gamma for dcfr, quadratic for pcfr+; uniform for "
           "rcfr/rcfr+ and the sampling schemes with cfr or cfr+).", cli=("--averaging",)),
    Option("link", str, "Link function: poly:P (P > 1), rm (= poly:2, regret matching) or "
           "exp:T (softmax with temperature T > 0).", cli=("--link",)),
    # the regressors' options, in the order make_solver names the first one it refuses
    Option("regressor", str, f"rcfr and cs/es/os/as: {', '.join(REGRESSORS)} (default "
           "best-first; the sampling schemes are tabular without one); sklearn: names a "
           "scikit-learn regressor class (a RegressorMixin subclass, made with no arguments; "
           "nothing else is called).", group=REGRESSION,
           cli=("--regressor",), algorithms=_TAKE_REGRESSORS),
    Option("leaves", int, "best-first/recursive regressors: leaf budget of the regression "
           "trees, both players together (default: the game's sequences).", group=REGRESSION,
           cli=("--leaves",), algorithms=_TAKE_REGRESSORS),
    Option("features", str, "regressors: thesis, onehot or hashing:K (default: thesis for "
           "poker, onehot otherwise; hashing:5 for ridge); nfsp: the observation: infostate "
           "(OpenSpiel's information-state tensor; the default on kuhn, leduc and openspiel: "
           "games), onehot (the default elsewhere) or hashing:K; deep-cfr/sd-cfr/dream: their "
           "networks' input, as nfsp.", group=REGRESSION,
           cli=("--features",), algorithms=(*_TAKE_REGRESSORS, *_NFSP, *_DEEP)),
    Option("bootstrap", bool, "regressors: bootstrapped targets (thesis Algorithm 2) instead "
           "of a stored regret table.", default=False, group=REGRESSION, cli=("--bootstrap",),
           algorithms=_TAKE_REGRESSORS),
    Option("threshold", float, "--regressor recursive: split while a node's mean squared "
           "error on average regrets exceeds this.", group=REGRESSION, cli=("--threshold",),
           algorithms=_TAKE_REGRESSORS),
    Option("criterion", str, "regression trees: squared_error (default) or absolute_error.",
           group=REGRESSION, cli=("--criterion",), algorithms=_TAKE_REGRESSORS),
    Option("ridge_alpha", float, "--regressor ridge: the ridge penalty (default 1e-3).",
           group=REGRESSION, cli=("--ridge-alpha",), algorithms=_TAKE_REGRESSORS),
    Option("hidden", str, "--regressor torch-mlp: hidden-layer widths, e.g. 64,64 (the "
           "default); nfsp: its networks' (default 64, the NFSP paper's Leduc networks); "
           "deep-cfr/sd-cfr/dream: theirs (default 64).",
           group=REGRESSION, cli=("--hidden",), algorithms=(*_TAKE_REGRESSORS, *_NFSP, *_DEEP)),
    Option("minibatch", bool, "sampling schemes with a regressor that trains incrementally "
           "(torch-mlp): fit only the sequences each pass touched, no dense feature matrix.",
           group=REGRESSION, cli=("--minibatch/--no-minibatch",), algorithms=SCHEMES),
    Option("dtype", str, "cfr ... pdcfr+ and cs/es/os/as: float64 (default) or float32 regret "
           "and strategy tables (half the memory; recorded in checkpoints).", cli=("--dtype",),
           algorithms=(*ALGORITHMS, *SCHEMES), choices=TABLE_DTYPE_NAMES),
    Option("storage", str, "cfr, cfr+, lcfr, dcfr (full width): float (default; tables of "
           "--dtype) or int16 (regrets as int16, average-strategy sums as uint16, one scale "
           "per information set, stochastic rounding seeded by --seed; about a fifth of "
           "float64's table bytes; recorded in checkpoints).", cli=("--storage",),
           algorithms=("cfr", "cfr+", "lcfr", "dcfr"), choices=STORAGE_NAMES),
    Option("lock", str, "cfr ... pdcfr+, rcfr, rcfr+ (full width): node locking: hold "
           "information sets' strategies fixed and solve the rest: a TOML lock file (nodes by "
           "action path as "
           "rcfr inspect --node names them, per hand class or combo, or information sets by "
           "key) or FILE.npz:P (player P's whole strategy in a strategy file); exploitability "
           "is then the locked game's (what the players gain deviating at their free "
           "information sets).", cli=("--lock",),
           algorithms=(*ALGORITHMS, *RCFR_ALGORITHMS)),
    Option("prune", str, "cfr ... pdcfr+ (full width): partial (skip the terminals the "
           "opponent cannot reach: exact, the unpruned run bit for bit; the default on the "
           "public form), none (the default on the history form) or regret (regret-based "
           "pruning too: cfr on the history form; not bit for bit).",
           cli=("--prune",), algorithms=ALGORITHMS, choices=PRUNE_NAMES),
    Option("average_regressor", str, "rcfr: also fit the average strategy with this regressor "
           "(same names as --regressor); the exploitability reported is its strategy's, the "
           "tabular average's beside it.", group=AVERAGE, cli=("--average-regressor",),
           algorithms=tuple(RCFR_ALGORITHMS)),
    Option("average_leaves", int, "--average-regressor trees: leaf budget, both players "
           "together.", group=AVERAGE, cli=("--average-leaves",),
           algorithms=tuple(RCFR_ALGORITHMS)),
    Option("average_target", str, "--average-regressor: strategy (default; reach-weighted), "
           "weights (cumulative strategy weights) or bootstrap (those, bootstrapped: no "
           "table).", group=AVERAGE, cli=("--average-target",),
           algorithms=tuple(RCFR_ALGORITHMS)),
    # the fictitious-play family (rcfr.solvers.fp)
    Option("step", str, "fp/xfp/fsp: the average's step size alpha_t: harmonic (1/(t+1), "
           "the default), power:P ((t+1)^-P) or const:A.", cli=("--step",),
           algorithms=("fp", "xfp", "fsp")),
    Option("fsp_episodes", int, "fsp: episodes sampled per iteration for each player's "
           "learners (n = m of Heinrich et al. 2015, Alg. 1; default 1000).",
           cli=("--fsp-episodes",), algorithms=("fsp",), low=1, high=MAX_COUNT),
    Option("eta", float, "nfsp: anticipatory parameter, the probability an agent plays its "
           "epsilon-greedy best response in an episode (default 0.1).", cli=("--eta",),
           algorithms=_NFSP, low=0, high=1),
    Option("rl_lr", float, "nfsp: the DQN's learning rate (default 0.1).", cli=("--rl-lr",),
           algorithms=_NFSP, low=0, low_open=True),
    Option("sl_lr", float, "nfsp: the average-policy network's learning rate (default "
           "0.005).", cli=("--sl-lr",), algorithms=_NFSP, low=0, low_open=True),
    Option("batch_size", int, "nfsp: minibatch size of both networks (default 128); "
           "deep-cfr/sd-cfr/dream: of their networks (default 256).",
           cli=("--batch-size",), algorithms=(*_NFSP, *_DEEP), low=1, high=MAX_COUNT),
    Option("rl_memory", int, "nfsp: capacity of the circular memory M_RL (default 200000).",
           cli=("--rl-memory",), algorithms=_NFSP, low=1, high=MAX_COUNT),
    Option("sl_memory", int, "nfsp: capacity of the reservoir memory M_SL (default "
           "2000000).", cli=("--sl-memory",), algorithms=_NFSP, low=1, high=MAX_COUNT),
    Option("learn_every", int, "nfsp: an agent's own steps between its learning steps (each "
           "updates both networks on one minibatch; default 64).", cli=("--learn-every",),
           algorithms=_NFSP, low=1, high=MAX_COUNT),
    Option("target_every", int, "nfsp: learning steps between target-network refreshes "
           "(default 300).", cli=("--target-every",), algorithms=_NFSP, low=1,
           high=MAX_COUNT),
    Option("eps_start", float, "nfsp: the best response's exploration at the start, decaying "
           "as 1/sqrt(episodes) (default 0.06).", cli=("--eps-start",), algorithms=_NFSP,
           low=0, high=1),
    Option("envs", int, "nfsp: games stepped at once (batched self-play; default 128).",
           cli=("--envs",), algorithms=_NFSP, low=1, high=1 << 20),
    # the Deep CFR family (rcfr.solvers.deep)
    Option("traversals", int, "deep-cfr/sd-cfr/dream: traversals per player and iteration "
           "(default 375).", cli=("--traversals",), algorithms=_DEEP, low=1, high=MAX_COUNT),
    Option("train_steps", int, "deep-cfr/sd-cfr/dream: minibatch steps that train an "
           "advantage network each iteration (default 375).", cli=("--train-steps",),
           algorithms=_DEEP, low=1, high=MAX_COUNT),
    Option("policy_steps", int, "deep-cfr/dream: minibatch steps that train the average-"
           "strategy network (default 2500).", cli=("--policy-steps",),
           algorithms=("deep-cfr", "dream"), low=1, high=MAX_COUNT),
    Option("memory", int, "deep-cfr/sd-cfr/dream: capacity of each reservoir memory, in rows "
           "(default 100000).", cli=("--memory",), algorithms=_DEEP, low=1, high=MAX_COUNT),
    Option("lr", float, "deep-cfr/sd-cfr/dream: Adam's learning rate (default 0.01).",
           cli=("--lr",), algorithms=_DEEP, low=0, low_open=True),
    Option("warm_start", bool, "deep-cfr/sd-cfr/dream: keep training the advantage networks "
           "instead of re-initialising them every iteration.", cli=("--warm-start",),
           algorithms=_DEEP),
    Option("baseline", str, "dream: the history baseline, net (DREAM's learned Q-network, "
           "the default) or table (VR-MCCFR's running averages).", cli=("--baseline",),
           algorithms=("dream",), choices=("net", "table")),
    Option("baseline_rate", float, "dream --baseline table: the rate of the baselines' "
           "exponential averages (default 0.2).", cli=("--baseline-rate",),
           algorithms=("dream",), low=0, high=1, low_open=True),
    Option("q_steps", int, "dream: minibatch steps that train the Q-network baseline each "
           "iteration (default: --train-steps).", cli=("--q-steps",), algorithms=("dream",),
           low=1, high=MAX_COUNT),
    Option("q_lr", float, "dream: the Q-network's learning rate (default: --lr).",
           cli=("--q-lr",), algorithms=("dream",), low=0, low_open=True),
    Option("q_memory", int, "dream: capacity of the Q-network's circular memory, in (h, a) "
           "pairs (default 100000).", cli=("--q-memory",), algorithms=("dream",), low=1,
           high=MAX_COUNT),
    Option("network", str, "deep-cfr/sd-cfr/dream: the advantage and average networks, mlp "
           "(a perceptron of --hidden, the default) or embed (the Deep CFR paper's card and bet "
           "network, --hidden's first width; kuhn and leduc).", cli=("--network",),
           algorithms=_DEEP, choices=("mlp", "embed")),
    Option("backend", str, "deep-cfr/sd-cfr/dream: the networks' implementation, numpy (the "
           "default) or torch (PyTorch on one thread, deterministic).", cli=("--backend",),
           algorithms=_DEEP, choices=("numpy", "torch")),
    Option("warm_from", str, "cfr ... dcfr+: warm-start from this strategy file (of this "
           "game or another: a smaller stack, an abstraction's lifted strategy; mapped by "
           "information-set key) with the regrets and average weight of Brown & Sandholm "
           "(2016); -n then counts the iterations after it.", group=RUN, cli=("--warm-from",)),
    Option("warm_iterations", int, "--warm-from: the iterations the warm strategy stands for "
           "(default: (uniform's / its exploitability)^2, the iterations CFR's bound takes to "
           "reach it).", group=RUN, cli=("--warm-iterations",), low=1, high=10**8),
    Option("abstraction", str, "Solve an abstract game and play it in the full game: "
           "identity; leduc's JQK, J.QK, JQ.K, J.Q.K; wager abstractions null, P, HP, PD, HPD "
           "or bets:0.5,1,2 (pot fractions); a hold'em spot's buckets:K, actions:BETS[/RAISES] "
           "(its bet sizes, e.g. actions:60%,a/2.5x) or both, joined by +.", group=RUN,
           cli=("--abstraction",), help_panel=GAME_PANEL),
    Option("form", str, "Compiled form: history, public (poker and dice games) or auto (the "
           "public form where the history form would not fit).", group=RUN, cli=("--form",),
           cli_default="auto", choices=FORMS, help_panel=GAME_PANEL),
    Option("threads", int, "Threads of the public form's full-width kernels and exact "
           "evaluation (default: the cores available); any count gives the same numbers bit "
           "for bit.", group=RUN, cli=("--threads",), low=1, high=4096, identity=False,
           help_panel=GAME_PANEL),
)

OPTION: dict[str, Option] = {o.name: o for o in OPTIONS}
# what make_solver sorts the options by (issue 22: derived, never listed by hand)
RCFR_OPTIONS = tuple(o.name for o in OPTIONS if o.group == REGRESSION)
# the options only the fictitious-play and Deep CFR families take (make_solver refuses them
# elsewhere)
FP_OPTIONS = tuple(o.name for o in OPTIONS if o.algorithms and not (o.schemes or o.rules)
                   and set(o.algorithms) <= {*FP_ALGORITHMS, *DEEP_ALGORITHMS})
AVERAGE_OPTIONS = tuple(o.name for o in OPTIONS if o.group == AVERAGE)
SCHEME_OPTIONS = {s: tuple(o.name for o in OPTIONS if s in o.schemes) for s in SCHEMES}
RULE_OPTIONS = {r: names for r in (*RULES, *SCHEDULED_RULES)
                if (names := tuple(o.name for o in OPTIONS if r in o.rules))}
# the schemes' options first, then the rules' (the order make_solver checks them in)
NUMERIC_OPTIONS = (tuple(o.name for o in OPTIONS if o.group == NUMERIC and o.schemes)
                   + tuple(o.name for o in OPTIONS if o.group == NUMERIC and not o.schemes))


def solver_options(values: dict[str, Any]) -> dict[str, Any]:
    """The keyword options of :func:`rcfr.solvers.run.make_solver` among ``values`` (by
    option name): those set, a flag only when on (unless the run always records it)."""
    out: dict[str, Any] = {}
    for o in OPTIONS:
        value = values.get(o.name)
        if o.group == RUN or value is None or (value is False and not o.default):
            continue
        out[o.name] = value
    return out

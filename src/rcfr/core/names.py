"""The names the run options choose from (algorithms, rules, sampling schemes, forms, table
dtypes), declared here once, apart from the modules that implement them, so that the command
line can describe its options without importing numba, scipy or scikit-learn (``rcfr
--help``).  The implementing modules import their names from here."""

from __future__ import annotations

# update rules (rcfr.core.rules)
RULES = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+", "dcfr+", "sapcfr+")
# the scheduled rules: parameters that change with the iteration (rcfr.core.schedules; the
# learned DDCFR policy, rcfr.solvers.ddcfr), full width only
SCHEDULED_RULES = ("hs-dcfr", "hs-pcfr+", "ddcfr")
# the tabular algorithms: every update rule, named for it, with its own averaging
# (rcfr.solvers.loop)
ALGORITHMS = (*RULES, *SCHEDULED_RULES)
# regression CFR and its regressors (rcfr.solvers.rcfr)
RCFR_ALGORITHMS = {"rcfr": "cfr", "rcfr+": "cfr+"}
REGRESSORS = ("tabular", "best-first", "recursive", "ridge", "torch-mlp", "sklearn:<module.Class>")
# Monte Carlo CFR's sampling schemes and their kernel codes (rcfr.forms.sampling)
CS, ES, OS, AS = 0, 1, 2, 3
SCHEMES = {"cs": CS, "es": ES, "os": OS, "as": AS}
# the second and third drivers (rcfr.solvers.fp, rcfr.solvers.deep)
FP_ALGORITHMS = ("fp", "xfp", "fsp", "nfsp")
EPISODIC = ("nfsp",)  # one iteration is one episode (the --episodes budget)
DEEP_ALGORITHMS = ("deep-cfr", "sd-cfr", "dream")
# compiled forms (rcfr.forms.compile) and the tabular solvers' table dtypes
FORMS = ("auto", "history", "public")
TABLE_DTYPE_NAMES = ("float64", "float32")
# the full-width tabular solvers' storage: float tables (of the dtype) or compressed integers
STORAGE_NAMES = ("float", "int16")
# the full-width passes' pruning (rcfr.forms.loop_state): none, partial (exact) or regret
# (regret-based pruning, with partial)
PRUNE_NAMES = ("none", "partial", "regret")

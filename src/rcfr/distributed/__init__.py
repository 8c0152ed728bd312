"""One game solved across several Ray actors: the public tree split at a cut
(:mod:`rcfr.forms.public.split`), the trunk kept by the driver and the subgames' tables by the
actors, bit-identical to the single-process full-width solver."""

from .solver import DistributedSolver, solve_distributed

__all__ = ["DistributedSolver", "solve_distributed"]

"""A blueprint saved as an abstract game's strategy, read and lifted to the real game: what
``rcfr resolve``, ``rcfr play`` and ``rcfr match`` do with ``--abstraction`` (Brown & Sandholm
2017: the blueprint is solved in the abstraction, the re-solving happens in the real game)."""

from __future__ import annotations

import os

from ..forms.base import Form
from ..policy import TabularPolicy
from .solve import abstract_form, lift_policy


def load_lifted(full: Form, path: str | os.PathLike,
                abstraction: str | None = None) -> TabularPolicy:
    """The strategy file ``path`` as a strategy of the compiled ``full`` game: read as a
    strategy of ``full``'s ``abstraction`` (e.g. a spot's ``buckets:8``, what ``solve
    --out-abstract`` writes) and lifted (:func:`.solve.lift_policy`: each real hand plays its
    class's strategy), or as ``full``'s own where ``abstraction`` is ``None``."""
    if abstraction is None:
        return TabularPolicy.load(path, full)
    abstract = abstract_form(full, abstraction)
    return lift_policy(full, abstract, TabularPolicy.load(path, abstract)).convert(full)

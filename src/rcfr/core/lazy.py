"""Packages whose exports load on first use (PEP 562), so that importing one submodule (the
run options, for ``rcfr --help``) does not import every sibling (numba kernels, scikit-learn)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``exports`` maps each exported name to
    the module (relative to ``package``) it is imported from when first asked for."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        vars(sys.modules[package])[name] = value  # once: later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__


class Deferred:
    """A stand-in for ``module.name`` (``module`` relative to ``package``) that imports it on
    first use: calling the stand-in calls it, its attributes are the target's.  The command
    line holds its numerical functions this way, so building the command table (``rcfr
    --help``) imports none of them."""

    def __init__(self, module: str, name: str, package: str | None = None) -> None:
        self._where = (module, name, package)

    def target(self) -> Any:
        module, name, package = self._where
        return getattr(importlib.import_module(module, package), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.target()(*args, **kwargs)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self.target(), attr)

"""``python -m rcfr`` and the ``rcfr`` command: ``--version`` answers at once; everything else
loads the command line (:mod:`rcfr.cli`, which imports the solvers)."""

from __future__ import annotations

import sys


def entry() -> None:
    """The ``rcfr`` console script."""
    if sys.argv[1:] == ["--version"]:  # without importing numpy, numba or scikit-learn
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("rcfr")
        except PackageNotFoundError:  # pragma: no cover - run from a source tree
            text = "unknown"
        sys.stdout.write(f"rcfr {text}\n")
        sys.exit(0)
    from .cli import entry as run

    run()


if __name__ == "__main__":
    entry()

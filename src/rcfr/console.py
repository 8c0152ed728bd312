"""The command line's two consoles (standard output and standard error), shared by the
commands in :mod:`rcfr.cli` and :mod:`rcfr.experiments.commands`."""

from rich.console import Console

out = Console(markup=False, highlight=False, soft_wrap=True)
err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)

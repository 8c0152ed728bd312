"""The command line's two consoles (standard output and standard error), shared by the
commands in :mod:`rcfr.cli` and :mod:`rcfr.experiments.commands`."""

from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.table import Table

out = Console(markup=False, highlight=False, soft_wrap=True)
err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)


def print_table(headers: Sequence[str], rows: Iterable[Sequence[str]],
                no_wrap: Sequence[int] = ()) -> None:
    """A table on standard output: drawn by Rich on a terminal; tab-separated values (a header
    line, then one line per row) when the output is piped or redirected, so that no number or
    header is cut to fit 80 columns."""
    if out.is_terminal:
        table = Table(*headers)
        for i in no_wrap:
            table.columns[i].no_wrap = True
        for row in rows:
            table.add_row(*row)
        out.print(table)
        return
    lines = ["\t".join(headers), *("\t".join(row) for row in rows)]
    out.file.write("\n".join(lines) + "\n")  # (Rich would expand the tabs)
    out.file.flush()

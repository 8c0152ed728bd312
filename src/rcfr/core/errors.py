"""The one exception type users see: a clear, one-line message about bad input."""


class RcfrError(ValueError):
    """Bad input (unknown game, bad parameter, wrong file): the CLI prints it on one line."""


def install_hint(extra: str) -> str:
    """How to install an optional extra: rcfr installs from its checkout, not a package index."""
    return (f"pip install -e '.[{extra}]' in the rcfr checkout (or `make test`, whose .venv has "
            f"every extra)")

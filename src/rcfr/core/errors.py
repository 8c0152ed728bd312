"""The one exception type users see: a clear, one-line message about bad input."""


class RcfrError(ValueError):
    """Bad input (unknown game, bad parameter, wrong file): the CLI prints it on one line."""

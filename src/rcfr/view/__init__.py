"""The strategy viewer (``rcfr view``): a static HTML page that walks a strategy node by node.

For a game with a public form (Kuhn, Leduc, one-card poker, liar's dice, 2-NL Hold'em(k)) the
page walks the public tree -- a breadcrumb of public actions and chance outcomes, and at each
decision node a grid of the acting player's private states x actions (probability as colour and
number), each state's reach and, where included, its counterfactual value and best-response
gain; with a second strategy, the difference at every node.  For other games it shows the
information sets as a table.  The page is plain HTML, CSS and JavaScript (no library, no build
step): :mod:`rcfr.view.site` writes it, :mod:`rcfr.view.data` builds what it loads.
:mod:`rcfr.view.batch` writes the aggregate report of a batch of boards (``rcfr spots``) as
one page of the same kind.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..forms.view import view_form
from ..policy import TabularPolicy
from .batch import write_batch_view
from .site import read_site, serve, write_view


def view(game, strategy: str | os.PathLike, out: str | os.PathLike, *,
         compare: str | os.PathLike | None = None, values: bool | None = None,
         form: str = "auto", max_memory=None) -> dict:
    """Load ``strategy`` (and ``compare``) for ``game`` (its public form where it has one) and
    write the viewer's site into ``out`` (:func:`rcfr.view.site.write_view`)."""
    tree = view_form(game, form, max_memory)
    policy = TabularPolicy.load(strategy, tree)
    other = TabularPolicy.load(compare, tree) if compare is not None else None
    names = [Path(strategy).name] + ([Path(compare).name] if compare is not None else [])
    return write_view(policy, out, compare=other, values=values, names=names)


__all__ = ["read_site", "serve", "view", "write_batch_view", "write_view"]

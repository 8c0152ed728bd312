"""MkDocs hook: render the Sphinx roles in rcfr's docstrings as cross-references.

rcfr's docstrings cite other objects with Sphinx roles, e.g.
``:func:`rcfr.kernels.terminal_values``` or ``:class:`~rcfr.TabularPolicy```.  mkdocstrings
renders docstrings as Markdown, where such a role would come out as the literal text
``:func:`` followed by a code span.  This hook adds a small Markdown extension that turns each
role into an *optional* autorefs cross-reference:

* ``:role:`target``` becomes a link to ``target`` showing ``target`` in code;
* ``:role:`~a.b.c``` becomes a link to ``a.b.c`` showing only ``c`` (Sphinx's ``~``);
* ``:role:`title <target>``` becomes a link to ``target`` showing ``title``;
* a name without a package (``:meth:`run```) is looked up in the scope of the object whose
  docstring it is in, as mkdocstrings-python's ``scoped_crossrefs`` does for Markdown links.

The references are optional (``<autoref optional ...>``): a target that is not in the
documentation (a private helper, a module without an API page) is rendered as a plain code
span by mkdocs-autorefs instead of failing the strict build.

RST's literal-block marker (a paragraph ending in ``::``) is shown as a single colon.

The extension is added in ``on_config`` with a high priority, before mkdocstrings copies the
Markdown extensions for its own renderer, so it applies to docstrings and to pages alike.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

ROLES = ("func", "class", "mod", "meth", "data", "attr", "obj", "exc", "const", "type")

# :role:`target`, :py:role:`target`, with an optional "title <target>" form.
ROLE_RE = r":(?:py:)?(?:" + "|".join(sorted(set(ROLES))) + r"):`(?P<body>[^`]+)`"
TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$")
FENCE = re.compile(r"^\s*(```|~~~)")
LITERAL_MARKER = re.compile(r"(?<=[\w)\]])::$")
AUTOREFS = "mkdocs-autorefs"  # mkdocs_autorefs.AutorefsInlineProcessor.name


class RoleProcessor(InlineProcessor):
    """``:role:`target``` -> ``<autoref optional identifier="target"><code>..</code></autoref>``."""

    def handleMatch(self, m: re.Match[str], data: str):  # noqa: N802 (Markdown's API)
        body = m.group("body").strip()
        titled = TITLED.match(body)
        if titled:
            title, target = titled.group("title"), titled.group("target").strip()
        else:
            target = body
            short = target.startswith("~")
            target = target.lstrip("~").strip()
            # Sphinx shows the last component for ``~``; a trailing "()" is only decoration.
            title = target.rsplit(".", 1)[-1] if short else target
        target = target.removesuffix("()")
        ref = etree.Element("autoref")
        # While mkdocstrings renders a docstring, autorefs' processor holds a hook that knows
        # the object being rendered: it resolves a name in that object's scope (``run`` in a
        # method's docstring is its class's ``run``; with scoped_crossrefs) and adds the
        # context that error messages cite.
        autorefs = self.md.inlinePatterns[AUTOREFS] if AUTOREFS in self.md.inlinePatterns else None
        hook = getattr(autorefs, "hook", None)
        if hook is not None:
            # A full path is kept as written: scoped lookup of its first name could find a
            # submodule of the same name (``rcfr.solvers.rcfr`` for ``rcfr.tree``).
            package = getattr(getattr(hook, "current_object", None), "package", None)
            if target.split(".", 1)[0] != getattr(package, "name", None):
                target = hook.expand_identifier(target)
            ref.attrib.update(hook.get_context().as_dict())
        ref.set("optional", "")
        ref.set("identifier", target)
        code = etree.SubElement(ref, "code")
        code.text = title
        return ref, m.start(0), m.end(0)


class LiteralMarkerPreprocessor(Preprocessor):
    """A paragraph ending in RST's ``::`` ends in ``:`` (the indented block below is code)."""

    def run(self, lines: list[str]) -> list[str]:
        out, fenced = [], False
        for line in lines:
            if FENCE.match(line):
                fenced = not fenced
            elif not fenced and not line.lstrip().startswith(":::"):
                line = LITERAL_MARKER.sub(":", line)
            out.append(line)
        return out


class SphinxRolesExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's API)
        # Above the backtick processor (190), so the role and its code span are one match.
        md.inlinePatterns.register(RoleProcessor(ROLE_RE, md), "rcfr_sphinx_roles", 195)
        md.preprocessors.register(LiteralMarkerPreprocessor(md), "rcfr_rst_literal", 5)


@event_priority(100)  # before mkdocstrings reads the Markdown extensions
def on_config(config):
    mathjax_source()  # a missing MathJax fails before the build, not after it
    config.markdown_extensions.append(SphinxRolesExtension())
    return config


# -- the Reproduction page ------------------------------------------------------------------------
# docs/reproduction.md holds the page's prose and the marker below; the claims table, the runs,
# the figures and the Bluff variants table are rendered in its place from the committed data
# (docs/data/reproduction.json, docs/data/bluff_variants.json) by
# rcfr.experiments.report.render_docs_page: no solving, milliseconds.  The data is regenerated
# from a results store by rcfr.experiments.report.write_docs_report.
REPRODUCTION_MARKER = "<!-- reproduction-report -->"


def on_page_markdown(markdown, page, config, files):
    if REPRODUCTION_MARKER not in markdown:
        return markdown
    from pathlib import Path

    from rcfr.experiments.report import render_docs_page

    return markdown.replace(REPRODUCTION_MARKER, render_docs_page(Path(config["docs_dir"])))


# -- MathJax, served from the site itself ---------------------------------------------------------
# The math is typeset by MathJax 3 from the docs extra's `django-static-mathjax` wheel (MathJax's
# own files, no Django needed): copied into the site at build time, so pages render offline
# and nothing third-party is committed.  mkdocs.yml's extra_javascript names the copy.
MATHJAX_DIR = "js/mathjax"
MATHJAX_PARTS = ("tex-mml-chtml.js", "input", "output", "ui", "a11y", "sre", "adaptors")


def mathjax_source():
    """The installed MathJax's ``es5`` folder, or a PluginError saying how to install it."""
    from importlib.util import find_spec
    from pathlib import Path

    from mkdocs.exceptions import PluginError

    spec = find_spec("mathjax")
    es5 = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5" \
        if spec and spec.submodule_search_locations else None
    if es5 is None or not (es5 / MATHJAX_PARTS[0]).is_file():
        raise PluginError("MathJax is not installed: pip install -e '.[docs]' in the rcfr "
                          "checkout (`make docs` does it)")
    return es5


def on_post_build(config, **_):
    import shutil
    from pathlib import Path

    es5, target = mathjax_source(), Path(config["site_dir"]) / MATHJAX_DIR
    target.mkdir(parents=True, exist_ok=True)
    for part in MATHJAX_PARTS:
        if (es5 / part).is_dir():
            shutil.copytree(es5 / part, target / part, dirs_exist_ok=True)
        else:
            shutil.copy2(es5 / part, target / part)

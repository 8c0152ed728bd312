"""Writing the viewer's static site (and reading back what its page loads, for tests).

The site is a folder: ``index.html`` (the page: HTML, CSS and JavaScript from
``rcfr/view/assets/`` inlined, with the game's structure as JSON in a
``<script type="application/json" id="rcfr-data">`` element) and, for a game of more than
:data:`~rcfr.view.data.SMALL_SEQUENCES` sequences, ``data/c<N>.js``: chunks of node records the
page loads lazily with ``<script>`` tags (JSONP: ``rcfrChunk(N, {...})``), which load from a
``file://`` page as from a server.  A small game's records are inlined: one self-contained file.
The folder is written beside its destination and renamed into place, so it is never left half
written.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from functools import partial
from importlib import resources
from pathlib import Path

from ..core.errors import RcfrError
from ..forms.base import Form
from ..forms.view import public_nodes
from ..policy import TabularPolicy
from . import data as D

SITE_FILES = {"index.html", "data"}  # what a site folder holds (a folder of other files is
# never replaced)


def asset(name: str) -> str:
    """The text of ``rcfr/view/assets/NAME`` (package data)."""
    return resources.files("rcfr.view").joinpath("assets", name).read_text(encoding="utf-8")


def script_json(text: str) -> str:
    """JSON text safe inside a ``<script>`` element."""
    return text.replace("</", "<\\/")


def _build(folder: Path, tree: Form, policies: list[TabularPolicy], names: list[str],
           values: bool | None, title: str) -> dict:
    small = tree.num_sequences <= D.SMALL_SEQUENCES
    values = small if values is None else values
    profiles = [D.profile(tree, policies[0], values)]
    if len(policies) > 1:
        profiles.append(D.profile(tree, policies[1], False))
    view = public_nodes(tree)
    meta: dict = {
        "title": title, "game": str(tree.game), "strategies": names,
        "sequences": tree.num_sequences, "infosets": tree.num_infosets,
        "values": bool(values), "compare": len(policies) > 1, "lazy": not small,
        "summary": profiles[0].summary,
    }
    if view is not None:
        meta["mode"] = "public"
        structure = D.public_structure(view)
        rules = D.distilled_rules(tree, view, policies[0])
        if rules is not None:
            meta["distilled"] = rules
        # per-class EV, equity and EQR in a spot's grid (each node costs an evaluation)
        extra = D.spot_classes(tree, profiles[0].probs) if values and small else None
        chunks = D.public_chunks(tree, view, profiles, extra)
    else:
        meta["mode"] = "table"
        structure = None
        chunks = D.table_chunks(tree, profiles)
    bounds: list[int] = []
    inline: list[str] = []
    if not small:
        (folder / "data").mkdir()
    for c, (first, text) in enumerate(chunks):
        bounds.append(first)
        if small:
            inline.append(text)
        else:
            (folder / "data" / f"c{c}.js").write_text(f"rcfrChunk({c},{text});\n",
                                                       encoding="utf-8")
    meta["chunks"] = bounds
    blob = ('{"meta":' + json.dumps(meta) + ',"tree":' + json.dumps(structure)
            + ',"chunks":[' + ",".join(inline) + "]}")
    page = (asset("viewer.html")
            .replace("/*RCFR_CSS*/", asset("viewer.css"))
            .replace("/*RCFR_JS*/", asset("dom.js") + asset("viewer.js"))
            .replace("RCFR_TITLE", html_escape(title))
            .replace("RCFR_DATA", script_json(blob)))
    (folder / "index.html").write_text(page, encoding="utf-8")
    return meta


def html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _check_destination(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise RcfrError(f"{out} exists and is not a folder")
    if out.is_dir():
        extra = {p.name for p in out.iterdir()} - SITE_FILES
        if extra:
            raise RcfrError(f"{out} holds files other than a viewer's ({sorted(extra)[0]}); "
                            "name a new or empty folder with -o")


def write_view(policy: TabularPolicy, out: str | os.PathLike, *,
               compare: TabularPolicy | None = None, values: bool | None = None,
               names: list[str] | None = None) -> dict:
    """Write the viewer's site for ``policy`` (and ``compare``, on the same tree) into the folder
    ``out`` (replacing an earlier viewer site there, atomically); return the page's metadata.
    ``values``: include counterfactual values and best-response gains (default: for games of
    at most :data:`~rcfr.view.data.SMALL_SEQUENCES` sequences)."""
    tree = policy.tree
    if compare is not None and compare.tree is not tree:
        compare = compare.convert(tree) if compare.tree.fingerprint() != tree.fingerprint() \
            else TabularPolicy(tree, compare.probs, compare.metadata)
    policies = [policy] + ([compare] if compare is not None else [])
    names = names or [f"strategy {k + 1}" for k in range(len(policies))]
    title = f"{tree.game}: " + " vs ".join(names)
    return write_site(out, lambda folder: _build(folder, tree, policies, names, values, title))


def write_site(out: str | os.PathLike, build: Callable[[Path], dict]) -> dict:
    """``build(folder)`` into a new folder beside ``out``, then renamed into place (replacing
    an earlier viewer site there; a folder of other files is refused); ``build``'s result."""
    _check_destination(Path(out))
    out = Path(os.path.realpath(out))  # a symlink's target is replaced; the link stays
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    try:
        meta = build(tmp)
        os.chmod(tmp, 0o755)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=parent))
            os.replace(out, old / "site")
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return meta


_DATA = re.compile(r'<script type="application/json" id="rcfr-data">(.*?)</script>', re.S)
_CHUNK = re.compile(r"^rcfrChunk\((\d+),(.*)\);\s*$", re.S)


def read_site(folder: str | os.PathLike) -> dict:
    """What the page at ``folder`` loads: ``{"meta", "tree", "chunks"}`` with every chunk
    (inline or in ``data/``) parsed, in order."""
    folder = Path(folder)
    m = _DATA.search((folder / "index.html").read_text(encoding="utf-8"))
    if m is None:
        raise RcfrError(f"{folder} holds no viewer page")
    site = json.loads(m[1])
    if site["meta"]["lazy"]:
        chunks = []
        for c in range(len(site["meta"]["chunks"])):
            text = (folder / "data" / f"c{c}.js").read_text(encoding="utf-8")
            mc = _CHUNK.match(text)
            if mc is None or int(mc[1]) != c:
                raise RcfrError(f"{folder}/data/c{c}.js is not chunk {c}")
            chunks.append(json.loads(mc[2]))
        site["chunks"] = chunks
    return site


def serve(folder: str | os.PathLike, port: int = 8000, host: str = "127.0.0.1") -> None:
    """Serve ``folder`` on ``http://host:port/`` with Python's :mod:`http.server` until
    interrupted: Ctrl-C's ``KeyboardInterrupt`` closes the server and goes on to the caller
    (the command line exits 130).  The page works without it, from ``file://``."""
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    with http.server.ThreadingHTTPServer((host, port), handler) as httpd:
        print(f"serving {folder} on http://{host}:{httpd.server_address[1]}/ (Ctrl-C stops)",
              flush=True)
        httpd.serve_forever()

"""The architecture's rules (docs/architecture.md): the import layers hold (import-linter's
contract in .importlinter), no module of rcfr takes part in an import cycle, and no code outside
rcfr/forms asks which compiled form a tree has."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "rcfr"


def _cycles() -> list[list[str]]:
    grimp = pytest.importorskip("grimp")
    # no cache: grimp's cache outlived edits here and hid a cycle
    graph = grimp.build_graph("rcfr", exclude_type_checking_imports=True, cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if not w.startswith("rcfr"):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for module in sorted(graph.modules):
        if module.startswith("rcfr") and module not in index:
            visit(module)
    return found


def test_no_import_cycles_inside_rcfr():
    graph = __import__("grimp").build_graph("rcfr", cache_dir=None)
    assert len(list(graph.modules)) > 80  # non-vacuous
    assert _cycles() == []


def test_the_layer_contract_holds():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed (make test installs it)")
    out = subprocess.run([exe, "--no-cache", str(ROOT / ".importlinter")], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 kept, 0 broken" in out.stdout


# how code would ask which form a tree has: the tree classes in isinstance, the form's name
# compared with a string, or read with getattr
FORM_TESTS = re.compile(
    r"isinstance\([^)]*\b(PublicTree|GameTree)\b"
    r"|\.form\s*[!=]=|[!=]=\s*[\"'](public|history)[\"']|[\"'](public|history)[\"']\s*[!=]="
    r"|getattr\([^)]*[\"']form[\"']")


def _code_lines(path: Path) -> dict[int, str]:
    """Each line's code without its strings and comments (docstrings may name the forms)."""
    lines: dict[int, list[str]] = {}
    with path.open("rb") as f:
        for tok in tokenize.tokenize(f.readline):
            if tok.type in (tokenize.STRING, tokenize.COMMENT):
                if tok.type == tokenize.STRING and len(tok.string) < 12:  # a short literal
                    lines.setdefault(tok.start[0], []).append(tok.string)
                continue
            lines.setdefault(tok.start[0], []).append(tok.string)
    return {n: " ".join(parts) for n, parts in lines.items()}


def test_no_code_outside_forms_tests_the_form():
    offenders = []
    files = [p for p in sorted(PACKAGE.rglob("*.py")) if PACKAGE / "forms" not in p.parents]
    assert len(files) > 60
    for path in files:
        for n, code in _code_lines(path).items():
            if FORM_TESTS.search(code.replace(" . ", ".").replace("( ", "(")):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {code}")
    assert offenders == []
    # the pattern finds what it is meant to find (so the check is not vacuous)
    assert FORM_TESTS.search('if isinstance(tree, PublicTree):')
    assert FORM_TESTS.search('if getattr(tree, "form", None) == "public":')
    assert FORM_TESTS.search('if form == "history":')


def _forms_code() -> list[tuple[str, int, str]]:
    files = sorted((PACKAGE / "forms").rglob("*.py"))
    assert len(files) > 20
    return [(str(p.relative_to(ROOT)), n, code) for p in files
            for n, code in _code_lines(p).items()]


# how a pass would reach into a solver: a name ``solver`` (a parameter or a variable), or the
# solver's fitted attributes (``estimator_``, ``rule_``, ``strategy_``, ``_inst``, ...)
SOLVER_ACCESS = re.compile(
    r"\bsolver\b|\.(estimator_|rule_|link_|avg_power_|strategy_|avg_weights_|_inst|pass_|"
    r"fused_|rng_|lazy_)\b")


def test_no_code_in_forms_reads_or_writes_a_solver():
    """The fused passes get the loop's state (rcfr.forms.loop_state.LoopState) and return its
    new counters; nothing in rcfr/forms names a solver or its attributes."""
    offenders = [f"{path}:{n}: {code}" for path, n, code in _forms_code()
                 if SOLVER_ACCESS.search(code.replace(" . ", ".").replace(" _", "_"))]
    assert offenders == []
    assert SOLVER_ACCESS.search("def run_fused(self, solver, max_iters, node_budget):")
    assert SOLVER_ACCESS.search("s.iteration += 1; est = s.estimator_")
    assert SOLVER_ACCESS.search("run(s._inst, s.rule_.params)")
    assert not SOLVER_ACCESS.search("run(state.inst, state.rule, self.resolver_probs)")


def test_the_passes_are_typed_against_the_contract():
    """No module of rcfr/forms imports a concrete tree for its annotations only (the passes
    take a Form): no TYPE_CHECKING import circle inside the forms."""
    offenders = [f"{path}:{n}: {code}" for path, n, code in _forms_code()
                 if "TYPE_CHECKING" in code]
    assert offenders == []


def test_capabilities_are_asked_through_supports():
    """No code outside rcfr/forms reads ``history_nodes`` (or probes a pass for
    ``set_threads``): what a form offers is asked through ``Form.supports``."""
    offenders, asking = [], set()
    files = [p for p in sorted(PACKAGE.rglob("*.py")) if PACKAGE / "forms" not in p.parents]
    for path in files:
        for n, code in _code_lines(path).items():
            if re.search(r"\bhistory_nodes\b|[\"']set_threads[\"']", code):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {code}")
            if re.search(r"\.\s*supports\s*\(", code):
                asking.add(path.name)
    assert offenders == []
    assert {"xfp.py", "batched_games.py", "dream.py", "deep_cfr.py", "registry.py",
            "engine.py", "distill.py", "mccfr.py"} <= asking  # (the check is not vacuous)

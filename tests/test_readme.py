"""The README's promises, run as printed: every line of its command-line block in a fresh
folder (in-process, through ``rcfr.cli.main``), its figure block, its Python block with the
numbers its comments give, its games table against ``rcfr games``, and ``make test`` building
the documentation with ``make docs``' very command.

Not run here: the Install block (``make demo``, ``make test``, ``make docs`` build
environments; CI runs ``make test`` itself). A line that needs an extra that is not installed
is skipped with the extra's name; a line broken by a known bug is marked xfail with the bug.
"""

import importlib.util
import io
import json
import re
import shlex
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from rcfr.cli import main

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()

# extras a line needs: (a substring of the line, the module, the extra)
EXTRAS = (("--distributed ray", "ray", "ray"),)
# lines broken today by a known bug: a substring of the line -> the xfail mark; remove each
# once its bug is fixed
BROKEN: dict = {}
# lines that read or write the results store: run together, in order, in one test below
STORE = "--db results.db"


def section(title: str) -> str:
    """The README's text under the ``## title`` heading, to the next one."""
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end >= 0 else None]


def block(title: str, lang: str = "sh") -> str:
    """The first fenced ``lang`` block of a section."""
    found = re.search(rf"```{lang}\n(.*?)```", section(title), re.S)
    assert found, f"no {lang} block under {title}"
    return found.group(1)


def commands(title: str) -> list[str]:
    """The ``rcfr ...`` lines of a section's sh block, comments removed."""
    lines = [shlex.split(line, comments=True) for line in block(title).splitlines()]
    return [shlex.join(words) for words in lines if words]


def run_line(line: str, capsys, monkeypatch, stdin: str = "") -> str:
    """Run one README line (``rcfr ARGS``) in-process; its standard output if it exits 0."""
    words = shlex.split(line)
    assert words[0] == "rcfr", line
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(words[1:])
    cap = capsys.readouterr()
    assert code == 0 and "error:" not in cap.err, f"{line}: exit {code}\n{cap.err}"
    return cap.out


def marks(line: str) -> list:
    out = [pytest.mark.skipif(importlib.util.find_spec(module) is None,
                              reason=f"needs the {extra} extra (pip install -e '.[{extra}]')")
           for key, module, extra in EXTRAS if key in line]
    out += [mark for key, mark in BROKEN.items() if key in line]
    return out


CLI_LINES = commands("Command line")
SINGLE = [pytest.param(line, marks=marks(line), id=line.split("  ")[0][:60])
          for line in CLI_LINES if STORE not in line]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A fresh folder holding what the block's first lines write (``leduc.npz``)."""
    return tmp_path_factory.mktemp("readme")


def test_the_command_block_is_what_this_test_runs():
    assert len(CLI_LINES) >= 12 and all(line.startswith("rcfr ") for line in CLI_LINES)
    # the figure, then the report of the store's runs and the report with the papers' claims
    assert sum(STORE in line for line in CLI_LINES) == 3


@pytest.mark.parametrize("line", SINGLE)
def test_readme_command(line, workdir, capsys, monkeypatch):
    monkeypatch.chdir(workdir)
    writer = next(x for x in CLI_LINES if "-o leduc.npz" in x)
    if "leduc.npz" in line and line != writer and not (workdir / "leduc.npz").is_file():
        run_line(writer, capsys, monkeypatch)
    out = run_line(line, capsys, monkeypatch, stdin="0\n" * 200)
    words = shlex.split(line)
    if words[1] == "lp" and words[2] == "kuhn":
        value = float(re.search(r"value to player 0\s+(\S+)", out).group(1))
        assert abs(value + 1 / 18) < 1e-8, out  # Kuhn poker's value, -1/18
    if words[1] == "evaluate":
        assert "exploitability" in out
    if words[1] == "play":
        assert "you played 10 hand(s)" in out
    if words[1] == "resolve":  # "safely": not more exploitable than the blueprint
        blueprint, resolved = (float(re.search(rf"{k} exploitability\s+(\S+)", out).group(1))
                               for k in ("blueprint", "re-solved"))
        assert resolved <= blueprint, out
    if "-o" in words:
        assert (workdir / words[words.index("-o") + 1]).exists()


def test_readme_figure_and_report(tmp_path, capsys, monkeypatch):
    """The figure block (29 runs of Morrill's Figure 4.1, quick), then the command block's
    figure and report lines on the same store: they plot and report without running again."""
    monkeypatch.chdir(tmp_path)
    (figure,) = commands("A reproduced figure")
    run_line(figure, capsys, monkeypatch)
    assert (tmp_path / "thesis_4_1_quick.png").read_bytes()[:4] == b"\x89PNG"
    for line in (x for x in CLI_LINES if STORE in x):
        out = run_line(line, capsys, monkeypatch)
        assert "0 to run" in out or "report" in out, out
    assert (tmp_path / "fig4_1.png").is_file() and (tmp_path / "report" / "report.html").is_file()


def test_readme_python_block_prints_what_its_comments_say(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = block("Python", "python")
    expected = [re.search(r"#\s*(-?[\d.]+)\.\.\.", line).group(1)
                for line in code.splitlines() if line.startswith("print(")]
    printed = io.StringIO()
    with redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})
    lines = printed.getvalue().split()
    assert len(expected) == len(lines) == 3
    for want, got in zip(expected, lines, strict=True):
        assert got.startswith(want), (want, got)


def _number(cell: str) -> int | None:
    cell = cell.strip().strip("*")
    return int(cell.replace(",", "")) if cell else None


def test_the_games_table_is_what_rcfr_games_prints(capsys):
    """Every row of the README's games table with sizes, against ``rcfr games --json`` (the
    default listing plus the rows the README says to name)."""
    named = re.search(r"list those by name: `rcfr games ([^`]*)`",
                      " ".join(section("Games").split()))
    assert named, "the README says how to list the rows the default listing leaves out"
    rows = {}
    for args in ([], shlex.split(named.group(1))):
        code, out = main(["games", "--json", *args]), capsys.readouterr().out
        assert code == 0
        listed = json.loads(out)
        rows.update(zip(args or [r["name"] for r in listed], listed, strict=True))
    table = [line.split("|")[1:-1] for line in section("Games").splitlines()
             if line.startswith("| `") and not line.startswith("| `openspiel:")]
    assert len(table) >= 12
    for name, _, _, histories, infosets, sequences, public in table:
        row = rows[name.strip().strip("`")]
        assert (_number(histories), _number(infosets), _number(sequences),
                _number(public)) == (row["histories"], row["infosets"], row["sequences"],
                                     row["public_nodes"]), name


def _recipe(target: str) -> str:
    """The commands ``make -n TARGET`` would run (nothing is run)."""
    done = subprocess.run(["make", "-n", "--no-print-directory", target], cwd=REPO,
                          capture_output=True, text=True, check=True)
    return done.stdout


def test_make_test_builds_the_docs_with_make_docs_command():
    """``make test`` must fail whenever ``make docs`` would: the same mkdocs command, strict,
    with no warning hidden (``--quiet`` hid the warnings that failed ``make docs``)."""
    def build(target):
        return [line for line in _recipe(target).splitlines() if "mkdocs build" in line]

    docs, test = build("docs"), build("test")
    assert len(docs) == 1 and test == docs
    assert "--strict" in docs[0] and "--quiet" not in docs[0] and "-q" not in docs[0].split()


def test_the_complexity_figure_keeps_its_legend_off_the_points():
    """Morrill's Figure 4.1 as the README shows it: the legend hid the J.Q.K abstraction's
    point (68.75%, 621 mbb/g) in both panels; it now stands outside both panels."""
    from matplotlib.transforms import Bbox

    from rcfr.experiments.figures import draw_figure

    series = {name: {"requested": [0.1, 0.5, 0.8], "used": [0.1, 0.49, 0.7],
                     "exploitability": [0.7, 0.1, 0.02], "ci95": [None] * 3, "seeds": [1] * 3}
              for name in ("BF", "BF_BS", "BF+", "BF+_BS", "RP", "RP+")}
    abstractions = [{"label": label, "algorithm": "cfr+", "complexity_share": share,
                     "exploitability": e}
                    for label, share, e in (("JQK", 0.23, 1.2), ("J.QK", 0.46, 0.73),
                                            ("JQ.K", 0.46, 0.46), ("J.Q.K", 0.6875, 0.621))]
    data = {"figure": "rcfr_complexity", "scale": 1000.0, "unit": "exploitability (mbb/g)",
            "game": "leduc(canonical=true)", "name": "thesis_4_1_quick", "series": series,
            "abstractions": abstractions,
            "references": [{"label": "FULL+ (CFR+)", "exploitability": 0.007}]}
    fig = draw_figure(data)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert len(legends) == 1
    box = legends[0].get_window_extent(renderer)
    for ax in fig.axes:
        assert not Bbox.intersection(box, ax.get_window_extent(renderer)), ax.get_title()

"""docs/real_cards.md's "Bet sizes off the abstraction": its commands and its Python run as
printed (in a fresh folder, in order), with the numbers its tables give."""

import io
import re
import shlex
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from rcfr.cli import main

DOC = (Path(__file__).resolve().parents[1] / "docs" / "real_cards.md").read_text()
SECTION = DOC[DOC.index("\n## Bet sizes off the abstraction\n"):]
SECTION = SECTION[:SECTION.index("\n## ", 1)]


def _table(first: str) -> list[list[str]]:
    """The rows of the section's table whose header starts with ``first``."""
    return next(t[1:] for t in _tables() if t[0][0].startswith(first))


def _tables() -> list[list[list[str]]]:
    tables, rows = [], []
    for line in SECTION.splitlines() + [""]:
        if line.startswith("|---"):
            continue
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            tables.append(rows)
            rows = []
    return tables


def test_the_commands_run_as_printed(tmp_path, capsys, monkeypatch):
    block = re.search(r"```sh\n(.*?)```", SECTION, re.S).group(1)  # (the first: river_small)
    lines = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    assert [w[1] for w in lines] == ["solve", "solve", "solve", "play", "improve", "evaluate"]
    monkeypatch.chdir(tmp_path)
    outs = []
    for words in lines:
        monkeypatch.setattr(sys, "stdin", io.StringIO("bet 100\ncall\n" * 10))
        code = main(words[1:])
        cap = capsys.readouterr()
        assert code == 0 and "error:" not in cap.err, f"{words}: {cap.err}"
        outs.append(cap.out)
    table = [float(row[1]) for row in _table("strategy in `holdem_spot(spot=river_small)`")]
    expl = [float(re.search(r"exploitability\s+(\S+)", out).group(1)) for out in outs[:3]]
    assert expl == pytest.approx([table[0], table[1], table[3]], abs=1e-5)
    assert "bet 50% (5)" in outs[4] and "added bet 50%: 2 new branches" in outs[4]
    improved = re.search(r"improved\s+(\S+)", outs[4]).group(1)
    assert float(improved) == pytest.approx(table[4], abs=1e-5)
    assert float(re.search(r"exploitability\s+(\S+)", outs[5]).group(1)) == pytest.approx(
        table[4], abs=1e-5)
    assert (tmp_path / "hands.phhs").read_text().count("cbr 100") == 5


def test_the_python_runs_as_printed():
    code = re.search(r"```python\n(.*?)```", SECTION, re.S).group(1)
    buf = io.StringIO()
    with redirect_stdout(buf):
        exec(compile(code, "real_cards.md", "exec"), {})
    got = [float(x) for line in buf.getvalue().splitlines() for x in line.split(")")[-1].split()]
    rows = _table("blueprint")
    want = [float(r[k]) for r in rows if r[0] == "`actions:25%,a`" for k in (2, 3)]
    assert len(want) == 4
    assert got == pytest.approx(want, abs=1e-5)


def test_the_off_tree_commands_run_as_printed(tmp_path, capsys, monkeypatch):
    """`rcfr resolve --off-tree all`: the gains of the nested Resolve table and the
    exploitabilities of the first table; `rcfr play --resolve` re-solves the human's bet."""
    block = next(b for b in re.findall(r"```sh\n(.*?)```", SECTION, re.S) if "--off-tree" in b)
    lines = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    assert [w[1] for w in lines] == ["solve", "resolve", "play"]
    monkeypatch.chdir(tmp_path)
    outs = []
    for words in lines:
        monkeypatch.setattr(sys, "stdin", io.StringIO("bet 100\ncall\n" * 10))
        code = main(words[1:])
        cap = capsys.readouterr()
        assert code == 0 and "error:" not in cap.err, f"{words}: {cap.err}"
        outs.append(cap.out)
    got = outs[1]
    assert outs[2].count("re-solving after the off-tree bet 100 (nested resolve") == 1
    assert "you played 3 hand(s)" in outs[2]
    rows = [r for r in _table("blueprint") if r[0] == "`actions:25%,a`"]
    want = [float(r[k]) for r in rows for k in (2, 3)]
    trans = [float(x) for x in re.findall(r"translation\s+(\S+)", got)]
    nested = [float(x) for x in re.findall(r"nested\s+(\S+)\s+\(", got)]
    assert len(trans) == len(nested) == 2
    pairs = [x for pair in zip(trans, nested, strict=True) for x in pair]
    assert pairs == pytest.approx(want, abs=1e-5)
    table = [float(row[1]) for row in _table("strategy in `holdem_spot(spot=river_small)`")]
    assert float(re.search(r"blueprint exploitability\s+(\S+)", got).group(1)) == \
        pytest.approx(table[1], abs=1e-4)
    assert float(re.search(r"re-solved exploitability\s+(\S+)", got).group(1)) == \
        pytest.approx(table[2], abs=1e-5)
    assert (tmp_path / "nested.npz").exists()

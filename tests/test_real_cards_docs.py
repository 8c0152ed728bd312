"""docs/real_cards.md's command block, run as printed (in-process, in a fresh folder, in
order: later lines read the strategies earlier ones write), with the numbers its comments
give."""

import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from rcfr.cli import main

DOC = (Path(__file__).resolve().parents[1] / "docs" / "real_cards.md").read_text()


def command_block() -> list[str]:
    section = DOC[DOC.index("\n## Solving a spot\n"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    words = [shlex.split(line, comments=True) for line in block.splitlines()]
    return [shlex.join(w) for w in words if w]


def test_solving_a_spot_runs_as_printed(tmp_path, capsys, monkeypatch):
    lines = command_block()
    assert len(lines) == 7 and all(line.startswith("rcfr ") for line in lines)
    monkeypatch.chdir(tmp_path)
    outs = {}
    for line in lines:
        words = shlex.split(line)
        monkeypatch.setattr(sys, "stdin", io.StringIO("0\n" * 50))
        code = main(words[1:])
        cap = capsys.readouterr()
        assert code == 0 and "error:" not in cap.err, f"{line}: exit {code}\n{cap.err}"
        outs[words[1]] = outs.get(words[1], "") + cap.out
    assert "7,347" in outs["games"] and "1,303,301" in outs["games"]
    assert "% of the pot" in outs["solve"] and "% of the pot" in outs["evaluate"]
    assert (tmp_path / "river-view" / "index.html").is_file()
    assert "you played 3 hand(s)" in outs["play"]
    blueprint, resolved = (float(re.search(rf"{k} exploitability\s+(\S+)", outs["resolve"])
                                 .group(1)) for k in ("blueprint", "re-solved"))
    assert resolved <= blueprint
    assert "(safe)" in outs["resolve"]


@pytest.mark.parametrize("spot", ["basic_flop", "basic_turn", "basic_river", "river_small",
                                  "turn_small"])
def test_every_packaged_spot_loads(spot):
    from rcfr import load_game

    assert str(load_game(f"holdem_spot(spot={spot})")) == f"holdem_spot(spot={spot})"


def test_abstraction_and_resolving_runs_as_printed(tmp_path, capsys, monkeypatch):
    """The section's commands, with the table's exploitabilities (the blueprint's printed by
    solve and by both re-solves; the re-solved ones in the table's order)."""
    section = DOC[DOC.index("\n## Abstraction and re-solving\n"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    lines = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    section = section[:section.index("\n## ", 1)]
    table = [float(v) for v in re.findall(r"^\|[^|]+\| ([\d.]+) \|", section, re.M)][:3]
    assert len(lines) == 4 and len(table) == 3  # (the first table: turn_small's)
    monkeypatch.chdir(tmp_path)
    outs = []
    for words in lines:
        assert main(words[1:]) == 0
        outs.append(capsys.readouterr().out)
    assert re.search(r"\b312\b", outs[0])
    blueprint = float(re.search(r"exploitability\s+(\S+)", outs[1]).group(1))
    assert blueprint == pytest.approx(table[0], abs=1e-5)
    for out, want in zip(outs[2:], table[1:], strict=True):
        got = {k: float(re.search(rf"{k} exploitability\s+(\S+)", out).group(1))
               for k in ("blueprint", "re-solved")}
        assert got["blueprint"] == pytest.approx(table[0], abs=1e-5)
        assert got["re-solved"] == pytest.approx(want, abs=1e-5)
    assert "(safe)" in outs[3]

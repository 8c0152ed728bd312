"""Many boards at once (rcfr spots): boards up to suit isomorphism against brute force, the
texture sample, isomorphic flops solved to the same values, the aggregate against its boards,
a stopped batch resumed, and bad input."""

import csv
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import one_line_error, run_cli

from rcfr import solve
from rcfr.experiments.spot_aggregate import aggregate, board_rows, by_texture, frequency_columns
from rcfr.experiments.spot_batch import STORE_FILE
from rcfr.experiments.store import Store
from rcfr.games.holdem.board_classes import (
    SUIT_PERMS,
    board_classes,
    canonical_board,
    merge_boards,
    permute_cards,
    range_symmetries,
)
from rcfr.games.holdem.board_textures import stratified_sample, texture
from rcfr.games.holdem.combos import parse_board
from rcfr.games.holdem.ranges import parse_range
from rcfr.view import read_site

DATA = Path(__file__).parent / "data" / "spots"
FLOP = DATA / "flop_narrow.toml"
RIVER = DATA / "river_narrow.toml"


def brute_classes(size: int, perms) -> dict[frozenset, int]:
    """Every board's class as the set of its images, counted: no masks, no tables."""
    classes: dict[frozenset, int] = {}
    for board in itertools.combinations(range(52), size):
        orbit = frozenset(frozenset(permute_cards(board, p)) for p in perms)
        classes[orbit] = classes.get(orbit, 0) + 1
    return classes


def test_the_22100_flops_fall_into_1755_classes_as_brute_force_finds():
    classes = board_classes(3)
    assert len(classes) == 1755 and sum(n for _, n in classes) == 22100
    brute = brute_classes(3, SUIT_PERMS)
    assert sorted(brute.values()) == sorted(n for _, n in classes)
    for board, n in classes:  # each representative's class has the count given
        orbit = frozenset(frozenset(permute_cards(board, p)) for p in SUIT_PERMS)
        assert brute[orbit] == n
    assert len(board_classes(4)) == 16432


def test_a_range_that_tells_suits_apart_merges_only_under_the_permutations_keeping_it():
    symmetric = parse_range("QQ+,AKs")
    assert len(range_symmetries(symmetric, parse_range("22+"))) == 24
    hearts = parse_range("QQ+,AhKh")  # AhKh: only the permutations fixing hearts keep it
    perms = range_symmetries(symmetric, hearts)
    assert len(perms) == 6 and all(p[2] == 2 for p in perms)
    classes = board_classes(3, perms)
    brute = brute_classes(3, perms)
    assert len(classes) == len(brute) > 1755 and sum(n for _, n in classes) == 22100
    b = [parse_board(t) for t in ("Ks7d2c", "Ks7c2d", "Ks7h2c", "Kd7s2c")]
    merged = merge_boards(b, perms, [1, 2, 3, 4])
    # Ks7d2c ~ Ks7c2d ~ Kd7s2c (clubs, diamonds and spades permuted); Ks7h2c has a heart
    assert sorted((w, len(given)) for _, w, given in merged) == [(3.0, 1), (7.0, 3)]
    full = merge_boards(b, SUIT_PERMS)
    assert len(full) == 1 and full[0][1] == 4.0
    assert canonical_board(parse_board("Ks7h2c")) == canonical_board(parse_board("Kc7d2s"))


@pytest.mark.parametrize("board, want", [
    ("AsKsQs", ("monotone", "unpaired", True, "A")),
    ("7c7d2h", ("rainbow", "paired", False, "7")),
    ("Ah5c4d", ("rainbow", "unpaired", True, "A")),  # the wheel: A, 4, 5 within A-5
    ("Kh8d3c", ("rainbow", "unpaired", False, "K")),
    ("9h9d9c", ("rainbow", "trips", False, "9")),
    ("Td9d6h", ("two-tone", "unpaired", True, "T")),
    ("Td9d6hQd", ("monotone", "unpaired", True, "Q")),
])
def test_textures(board, want):
    t = texture(parse_board(board))
    assert (t["suits"], t["pairing"], t["connected"], t["high"]) == want


def test_a_sample_by_texture_keeps_each_textures_share_of_the_flops():
    classes = board_classes(3)
    picks = stratified_sample(classes, 30)
    assert len(picks) == 30 and len({b for b, _ in picks}) == 30
    assert sum(w for _, w in picks) == pytest.approx(22100)
    def stratum(b):
        t = texture(b)
        return t["suits"], t["pairing"]
    for key in {stratum(b) for b, _ in classes}:
        want = sum(n for b, n in classes if stratum(b) == key)
        assert sum(w for b, w in picks if stratum(b) == key) == pytest.approx(want)
    assert {stratum(b) for b, _ in picks} == {stratum(b) for b, _ in classes}  # 6 strata
    with pytest.raises(Exception, match="give from 6"):
        stratified_sample(classes, 5)


def test_isomorphic_flops_give_the_same_values():
    """Two members of one class, solved: the same value and exploitability (to rounding);
    a board of another class: another value."""
    def solved(board):
        r = solve(f"holdem_spot(board={board},file={FLOP})", "cfr+", 30, form="public")
        return r.evaluation.value, r.evaluation.exploitability

    a, b = parse_board("Ks7d2c"), parse_board("Kh7c2s")
    assert canonical_board(a) == canonical_board(b)
    va, vb = solved("Ks7d2c"), solved("Kh7c2s")
    assert va == pytest.approx(vb, rel=1e-9, abs=1e-9)
    other = solved("QsJd2c")  # the in-position range's QQ and JJ make sets here
    assert abs(other[0] - va[0]) > 1


def test_a_stopped_batch_resumes_with_no_board_lost_or_repeated(river_batch):
    folder, batch, (before, after) = river_batch
    assert len(batch.boards) == 3 and [b.weight for b in batch.boards] == [2.0, 2.0, 1.0]
    assert list(before.values()).count("done") == 1  # stopped after its first board
    assert after.ran == 2 and after.done == 2
    with Store(folder / STORE_FILE, readonly=True) as store:
        rows = store.runs()
    assert sorted(r["hash"] for r in rows) == sorted(batch.run(b).hash for b in batch.boards)
    assert all(r["status"] == "done" and r["iterations"] == 20 for r in rows)


def test_the_aggregate_is_the_boards_figures_weighted_by_their_boards(river_batch):
    folder, batch, _ = river_batch
    _, rows = board_rows(folder)
    freq = frequency_columns(rows)
    assert freq == ["root: check", "root: bet 50", "root: allin 200"]
    columns = ["ev_oop", "ev_ip", "equity_oop", "equity_ip", *freq]
    total = aggregate(rows, columns)
    weights = np.array([r["weight"] for r in rows])
    for c in columns:
        values = np.array([r[c] for r in rows])
        assert total[c] == pytest.approx(weights @ values / weights.sum(), rel=1e-12)
    assert total["weight"] == 5 and total["boards"] == 3
    for r in rows:  # each board's EVs are its exact value (the store's) plus half the pot
        with Store(folder / STORE_FILE, readonly=True) as store:
            value = store.run(r["hash"])["value"]
        assert r["ev_oop"] == pytest.approx(50 + value, abs=1e-9)
        assert r["ev_oop"] + r["ev_ip"] == pytest.approx(100, abs=1e-9)
        assert r["equity_oop"] + r["equity_ip"] == pytest.approx(1, abs=1e-12)
        assert sum(r[c] for c in freq) == pytest.approx(1, abs=1e-9)
    paired = [t for t in by_texture(rows, columns) if t["value"] == "paired"]
    assert paired[0]["boards"] == 1 and paired[0]["ev_oop"] == pytest.approx(
        next(r["ev_oop"] for r in rows if r["board"].startswith("8")))


def test_the_command_reports_the_stored_batch_as_csv(river_batch, capsys, tmp_path):
    folder, batch, _ = river_batch
    code, out, err = run_cli(capsys, "spots", RIVER, "--flops", "3", "--out", folder,
                             "--report", "--sort", "ev_oop", "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["aggregate"]["boards"] == 3
    with open(info["files"]["boards"]) as handle:
        table = list(csv.DictReader(handle))
    assert [r["board"] for r in table] == [b.board for b in batch.boards]
    assert float(table[0]["ev_oop"]) == pytest.approx(info["boards"][0]["ev_oop"])
    assert Path(info["files"]["figure"]).stat().st_size > 0


@pytest.mark.parametrize("args, message", [
    (["--flops", "nofile.txt"], "cannot read 'nofile.txt'"),
    (["--flops", "BOARDS"], "line 2: a board has 5 cards, not 3"),
    (["--flops", "BOARDS", "--target", "-1"], "--target must be"),
])
def test_bad_input_is_one_error_line(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "BOARDS").write_text("Td9d6hQc2s\nKs7d2c\n")
    code, _, err = run_cli(capsys, "spots", RIVER, "--out", tmp_path / "out", *args)
    assert message in one_line_error(code, err)
    assert not (tmp_path / "out").exists()  # nothing written


def test_a_folder_of_another_spot_is_refused(river_batch, capsys, tmp_path):
    folder, _, _ = river_batch
    boards = tmp_path / "flops.txt"
    boards.write_text("Ks7d2c\n")
    code, _, err = run_cli(capsys, "spots", FLOP, "--flops", boards, "--out", folder)
    assert "holds a batch of holdem_spot(file=" in one_line_error(code, err)


def test_many_boards_runs_as_printed(tmp_path, capsys, monkeypatch):
    """docs/real_cards.md's "Many boards" commands, as printed, in a fresh folder."""
    import re
    import shlex

    doc = (Path(__file__).resolve().parents[1] / "docs" / "real_cards.md").read_text()
    section = doc[doc.index("\n## Many boards\n"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    lines = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    assert len(lines) == 4 and all(w[:2] == ["rcfr", "spots"] for w in lines[:3])
    assert lines[3][:2] == ["rcfr", "view"]
    monkeypatch.chdir(tmp_path)
    outs = []
    for words in lines:
        code, out, err = run_cli(capsys, *words[1:])
        assert code == 0 and "error:" not in err, f"{words}: exit {code}\n{err}"
        outs.append(out)
    assert "1,755 boards standing for 22,100" in outs[0] and not (tmp_path / "flops").exists()
    assert "6 of 6 boards solved" in outs[1] and "6 of 6 boards solved" in outs[2]
    table = list(csv.DictReader((tmp_path / "rivers" / "boards.csv").open()))
    assert len(table) == 6 and {"node: check", "node: bet 100"} <= set(table[0])
    assert sum(float(r["weight"]) for r in table) == pytest.approx(2598960)
    assert (tmp_path / "rivers" / "textures.png").is_file()
    page = read_site(tmp_path / "rivers-view")
    assert sorted(r[0] for r in page["boards"]) == sorted(r["board"] for r in table)
    # docs/viewer.md's batch block, in the same folder: its batch is the one above, resumed
    doc = (Path(__file__).resolve().parents[1] / "docs" / "viewer.md").read_text()
    section = doc[doc.index("\n## A batch of boards\n"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    lines = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    assert [w[:2] for w in lines] == [["rcfr", "spots"], ["rcfr", "view"]]
    for words in lines:
        code, out, err = run_cli(capsys, *words[1:])
        assert code == 0 and "error:" not in err, f"{words}: exit {code}\n{err}"
    assert "6 of 6 boards solved" in out
    assert len(read_site(tmp_path / "rivers-view")["boards"]) == 6

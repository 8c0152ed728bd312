"""``rcfr view FOLDER`` on a batch of ``rcfr spots``: the page holds every board's row and
every texture's with the numbers of boards.csv and textures.csv, sorts and filters in a real
headless Chromium, and a folder that is not a batch gives one error line and no page."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import one_line_error, run_cli
from test_view import browser, open_page  # noqa: F401 (the module's Chromium)

from rcfr.cli import main
from rcfr.view import read_site


@pytest.fixture(scope="module")
def batch_page(river_batch, tmp_path_factory):
    """The river batch's report (``rcfr spots --report``: boards.csv, textures.csv) and its
    page (``rcfr view``): (the CSVs' rows, the page's folder, what the page loads)."""
    folder, batch, _ = river_batch
    assert main(["spots", str(batch.path), "--flops", "3", "--out", str(folder), "--report",
                 "--json"]) == 0
    site = tmp_path_factory.mktemp("batch-view") / "site"
    assert main(["view", str(folder), "-o", str(site), "--json"]) == 0
    tables = {name: list(csv.DictReader((folder / f"{name}.csv").open()))
              for name in ("boards", "textures")}
    return tables, site, read_site(site)


def same(csv_text: str, shown) -> bool:
    """A CSV cell (repr of a float, a word, or empty) and the page's value are the same."""
    if csv_text == "":
        return shown is None
    if isinstance(shown, (int, float)) and not isinstance(shown, bool):
        return float(csv_text) == shown
    if csv_text in ("True", "False"):  # boards.csv's connected column
        return shown == ("connected" if csv_text == "True" else "disconnected")
    return csv_text == shown


def test_the_page_holds_every_boards_row_with_the_csvs_numbers(batch_page):
    tables, _, site = batch_page
    keys = [c["key"] for c in site["columns"]]
    assert {"board", "weight", "suits", "pairing", "connected", "high", "ev_oop", "ev_ip",
            "equity_oop", "equity_ip", "root: check", "root: bet 50",
            "root: allin 200"} <= set(keys)
    rows = {r[0]: r for r in site["boards"]}
    assert len(rows) == len(site["boards"]) == len(tables["boards"]) == 3
    for want in tables["boards"]:
        shown = rows[want["board"]]
        for k, key in enumerate(keys):
            assert same(want[key], shown[k]), (want["board"], key, want[key], shown[k])
        assert want["pairing"] in shown[-1]  # the texture names the filter matches
    assert site["meta"]["solved"] == 3 and site["meta"]["weight"] == 5


def test_the_page_holds_the_texture_summary_of_textures_csv(batch_page):
    tables, _, site = batch_page
    shown = site["textures"]
    assert [(t["texture"], t["value"]) for t in shown] == [
        (t["texture"], t["value"]) for t in tables["textures"]]
    for want, t in zip(tables["textures"], shown, strict=True):
        for key, text in want.items():
            assert same(text, t[key]), (want["value"], key, text, t[key])
    total = site["all"]
    assert total["boards"] == 3 and total["weight"] == 5
    paired = next(t for t in shown if t["value"] == "paired")
    board = next(r for r in tables["boards"] if r["pairing"] == "paired")
    assert paired["ev_oop"] == float(board["ev_oop"])  # one board: its own numbers


def test_the_page_sorts_and_filters_in_a_browser(batch_page, browser):  # noqa: F811
    """Open the page sorted by the out-of-position EV, largest first; click the header of
    the root's check frequency (largest first), then again (smallest first); choose the
    paired texture: one board. The texture table's rows and the page's console too."""
    tables, site_folder, site = batch_page
    boards = tables["boards"]

    def shown() -> list[str]:
        return browser.js("[...document.querySelectorAll('#boards tbody tr')]"
                          ".map(tr => tr.dataset.board)")

    def order(key: str, reverse: bool) -> list[str]:
        return [r["board"] for r in sorted(boards, key=lambda r: float(r[key]),
                                           reverse=reverse)]

    open_page(browser, site_folder, "#sort=ev_oop&dir=desc")
    assert shown() == order("ev_oop", True)
    cells = browser.js("[...document.querySelectorAll('#boards tbody tr')].map(tr => "
                       "[...tr.cells].map(td => td.dataset.v === undefined ? td.textContent"
                       " : Number(td.dataset.v)))")
    keys = [c["key"] for c in site["columns"]]
    by_board = {r["board"]: r for r in boards}
    for row in cells:
        want = by_board[row[0]]
        for key in ("weight", "ev_oop", "ev_ip", "equity_oop", "root: check"):
            assert row[keys.index(key)] == float(want[key])
    header = 'th[data-key="root: check"]'
    browser.click(f"#boards {header}", "#sort=root%3A%20check&dir=desc")
    assert shown() == order("root: check", True)
    browser.click(f"#boards {header}", "#sort=root%3A%20check&dir=asc")
    assert shown() == order("root: check", False)
    assert browser.js("(() => { const s = document.getElementById('texture');"
                      " s.value = 'paired'; s.dispatchEvent(new Event('change'));"
                      " return true; })()")
    browser.wait_ready("#sort=root%3A%20check&dir=asc&texture=paired")
    assert shown() == [r["board"] for r in boards if r["pairing"] == "paired"]
    values = browser.js("[...document.querySelectorAll('#textures tbody tr')]"
                        ".map(tr => tr.dataset.value)")
    assert values == [""] + [t["value"] for t in tables["textures"]]
    assert browser.errors() == []


def test_a_folder_that_is_not_a_batch_is_one_error_line(river_batch, tmp_path, capsys):
    site = tmp_path / "site"
    cases = [(tmp_path / "missing", "is not a folder"),
             (tmp_path, "holds no batch (batch.json)")]
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "batch.json").write_text("{}")
    cases.append((tmp_path / "junk", "is not a batch file"))
    (tmp_path / "unsolved").mkdir()
    folder, _, _ = river_batch
    (tmp_path / "unsolved" / "batch.json").write_text((folder / "batch.json").read_text())
    cases.append((tmp_path / "unsolved", "holds no results (runs.db)"))
    for where, message in cases:
        code, _, err = run_cli(capsys, "view", where, "-o", site)
        assert message in one_line_error(code, err)
    code, _, err = run_cli(capsys, "view", folder, "--compare", folder, "-o", site)
    assert "takes no --compare" in one_line_error(code, err)
    assert not site.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk", "unsolved"]
    json.loads((tmp_path / "junk" / "batch.json").read_text())  # left as it was

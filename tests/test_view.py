"""``rcfr view`` (issue 29): the data the page loads hold the strategy file's probabilities
exactly (Kuhn, Leduc), values that add up to the evaluator's, a 2-NL Hold'em(20) page is
written fast and in little memory, bad input gives one error line and no output, and the page
renders and navigates in a real headless Chromium (clicks through Leduc's public tree, compares
the table's cells and a screenshot's pixels with the expected values, no console errors)."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import tracemalloc
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import rcfr
from rcfr.cli import main
from rcfr.evaluate import best_response, evaluate
from rcfr.forms.view import view_form
from rcfr.view import data as D
from rcfr.view import read_site, write_view

PALETTE = ["#2563eb", "#16a34a", "#dc2626", "#d97706", "#9333ea", "#0891b2", "#db2777",
           "#65a30d", "#7c3aed", "#ea580c", "#0d9488", "#be123c"]  # viewer.js's


def shade(hex_color: str, p: float) -> tuple[int, int, int]:
    """viewer.js's cell colour: white blended with the action's colour by the probability."""
    c = [int(hex_color[i:i + 2], 16) for i in (1, 3, 5)]
    return tuple(int(np.floor(255 + (x - 255) * p + 0.5)) for x in c)


def random_policy(tree, seed: int) -> rcfr.TabularPolicy:
    rng = np.random.default_rng(seed)
    return rcfr.TabularPolicy.from_weights(tree, rng.random(tree.num_sequences) ** 3 + 1e-3)


def write_page(tmp_path: Path, game: str, seed: int = 0, *extra: str):
    tree = view_form(game)
    policy = random_policy(tree, seed)
    path = policy.save(tmp_path / f"{game}.npz")
    out = tmp_path / f"{game}-site"
    assert main(["view", game, str(path), "-o", str(out), *extra]) == 0
    return tree, policy, out


def node_records(site: dict) -> dict[int, dict]:
    records: dict[int, dict] = {}
    for chunk in site["chunks"]:
        records.update({int(u): r for u, r in chunk.items()})
    return records


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_every_probability_shown_is_the_files(tmp_path, game):
    tree, policy, out = write_page(tmp_path, game)
    site = read_site(out)
    assert site["meta"]["mode"] == "public" and not site["meta"]["lazy"]
    assert (out / "index.html").is_file() and not (out / "data").exists()  # one file
    loaded = rcfr.TabularPolicy.load(tmp_path / f"{game}.npz", tree)
    labels = tree.structure.labels
    seen = np.zeros(tree.num_sequences, dtype=int)
    records = node_records(site)
    decision = np.flatnonzero(tree.node_kind < 2)
    assert sorted(records) == decision.tolist()
    for u, rec in records.items():
        p = int(tree.node_kind[u])
        A = int(tree.node_num_actions[u])
        rows = site["tree"]["rowsets"][rec["rs"]]["labels"]
        assert rec["i0"] == tree.node_info_base[u]
        for k, label in enumerate(rows):
            i = rec["i0"] + k
            assert tree.infoset_public_node[i] == u and tree.infoset_player[i] == p
            assert label == labels[p][tree.infoset_private[i]]
            s = int(tree.infoset_seq_start[i])
            shown = rec["pr"][k * A:(k + 1) * A]
            assert shown == loaded.probs[s:s + A].tolist()  # exact, not rounded
            seen[s:s + A] += 1
        # the page's action names are the children's edges
        lo, hi = tree.node_child_start[u], tree.node_child_start[u + 1]
        names = [site["tree"]["names"][site["tree"]["edge"][v]] for v in range(lo, hi)]
        assert names == [tree.seq_action_names[int(tree.infoset_seq_start[rec["i0"]]) + a]
                         for a in range(A)]
    assert np.all(seen == 1)  # every probability once


def test_values_add_up_to_the_evaluators(tmp_path):
    tree, policy, out = write_page(tmp_path, "leduc", 3)
    site = read_site(out)
    ev = evaluate(tree, policy)
    assert site["meta"]["summary"]["exploitability"] == pytest.approx(ev.exploitability)
    records = node_records(site)
    value = np.zeros(tree.num_infosets)
    gain = np.zeros(tree.num_infosets)
    reach = np.zeros(tree.num_infosets)
    for rec in records.values():
        n = len(rec["cv"])
        value[rec["i0"]:rec["i0"] + n] = rec["cv"]
        gain[rec["i0"]:rec["i0"] + n] = rec["g"]
        reach[rec["i0"]:rec["i0"] + n] = rec["re"]
    assert np.all(gain >= 0)
    for p, sign in ((0, 1.0), (1, -1.0)):
        infos = tree.player_infosets(p)
        roots = [i for i in infos if tree.infoset_parent_seq[i] == tree.empty_seq(p)]
        assert np.all(reach[roots] == 1.0)
        # a player's root values sum to the expected payoff; with the gains, to the BR value
        assert value[roots].sum() == pytest.approx(sign * ev.value, abs=1e-5)
        br_value, _ = best_response(tree, policy, p)
        assert (value[roots] + gain[roots]).sum() == pytest.approx(br_value, abs=1e-5)


def test_compare_shows_both_strategies(tmp_path):
    tree = view_form("kuhn")
    a, b = random_policy(tree, 1), random_policy(tree, 2)
    pa, pb = a.save(tmp_path / "a.npz"), b.save(tmp_path / "b.npz")
    out = tmp_path / "cmp"
    assert main(["view", "kuhn", str(pa), "--compare", str(pb), "-o", str(out)]) == 0
    site = read_site(out)
    assert site["meta"]["compare"] and site["meta"]["strategies"] == ["a.npz", "b.npz"]
    for rec in node_records(site).values():
        A = len(rec["pr"]) // len(rec["re"])
        s = int(tree.infoset_seq_start[rec["i0"]])
        assert rec["pr"] == a.probs[s:s + len(rec["pr"])].tolist()
        assert rec["pr2"] == b.probs[s:s + len(rec["pr"])].tolist()
        assert A >= 2


def test_history_form_is_a_table_of_information_sets(tmp_path):
    tree = view_form("kuhn", "history")
    policy = random_policy(tree, 4)
    path = policy.save(tmp_path / "k.npz")
    out = tmp_path / "table"
    assert main(["view", "kuhn", str(path), "--form", "history", "-o", str(out)]) == 0
    site = read_site(out)
    assert site["meta"]["mode"] == "table" and site["tree"] is None
    rows = [r for chunk in site["chunks"] for r in chunk]
    assert [r["k"] for r in rows] == list(tree.infoset_keys)
    for r in rows:
        s = int(tree.infoset_seq_start[r["i"]])
        assert r["pr"] == policy.probs[s:s + len(r["pr"])].tolist()
        assert r["a"] == [tree.seq_action_names[s + a] for a in range(len(r["a"]))]


def test_layouts():
    holdem = D.layout(["AA", "AKs", "AKo", "72o", "32s"])
    assert holdem["type"] == "holdem"
    assert holdem["cell"] == [[0, 0], [0, 1], [1, 0], [12, 7], [11, 12]]
    cards = D.layout(["AhKh", "AhKd", "2c2d"])
    assert cards["type"] == "holdem" and cards["cell"] == [[0, 1], [1, 0], [12, 12]]
    grid = D.layout([f"{a}.{b}" for a in range(3) for b in range(5)])
    assert grid["type"] == "grid" and (len(grid["rows"]), len(grid["cols"])) == (3, 5)
    assert grid["cell"][7] == [1, 2]
    assert D.layout(["J", "Q", "K"]) == {"type": "list"}
    assert D.layout(["Js", "Jh"]) == {"type": "list"}


def test_large_games_write_lazy_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(D, "SMALL_SEQUENCES", 100)
    monkeypatch.setattr(D, "CHUNK_SEQUENCES", 500)
    tree, policy, out = write_page(tmp_path, "nl_holdem2(stack=6)", 5)
    site = read_site(out)
    meta = site["meta"]
    assert meta["lazy"] and not meta["values"] and len(meta["chunks"]) > 3
    assert len(list((out / "data").glob("c*.js"))) == len(meta["chunks"])
    for c, chunk in enumerate(site["chunks"]):
        assert min(int(u) for u in chunk) == meta["chunks"][c]
    records = node_records(site)
    for rec in records.values():
        n = len(rec["pr"])
        s = int(tree.infoset_seq_start[rec["i0"]])
        assert rec["pr"] == policy.probs[s:s + n].tolist()
    layouts = {r["layout"]["type"] for r in site["tree"]["rowsets"]}
    assert layouts == {"list", "grid"}  # preflop buckets; preflop x flop buckets


def test_nl_holdem_20_page_is_small(tmp_path):
    """2-NL Hold'em(20), public form (1.46M sequences): writing the page (compiling is not
    measured) takes under 200 MB more memory (tracemalloc's peak, which counts numpy's
    buffers).  Its time is printed, not asserted: speed belongs to benchmarks."""
    tree = view_form("nl_holdem2(stack=20)")
    assert tree.num_sequences > 1_400_000
    policy = rcfr.TabularPolicy.uniform(tree)
    tracemalloc.start()
    try:
        start = time.perf_counter()
        meta = write_view(policy, tmp_path / "k20")
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"2-NL Hold'em(20) page: {seconds:.1f} s, peak {peak / 1e6:.0f} MB traced, "
          f"{len(meta['chunks'])} chunks")
    assert peak < 200e6
    assert meta["lazy"] and not meta["values"]
    index = (tmp_path / "k20" / "index.html").stat().st_size
    chunks = [p.stat().st_size for p in (tmp_path / "k20" / "data").glob("c*.js")]
    assert index < 5e6 and max(chunks) < 2e6  # the first page loads fast; chunks stay small
    site = read_site(tmp_path / "k20")
    deep = max(int(u) for u in site["chunks"][-1])  # the last decision node, in the last chunk
    rec = site["chunks"][-1][str(deep)]
    A = int(tree.infoset_num_actions[rec["i0"]])
    assert rec["pr"][:A] == [1.0 / A] * A


def one_error_line(capsys, *args) -> str:
    code = main([str(a) for a in args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err
    return err


def test_bad_input_is_one_error_line_and_no_output(tmp_path, capsys):
    kuhn = view_form("kuhn")
    path = random_policy(kuhn, 0).save(tmp_path / "kuhn.npz")
    out = tmp_path / "site"
    one_error_line(capsys, "view", "kuhn", tmp_path / "missing.npz", "-o", out)
    one_error_line(capsys, "view", "leduc", path, "-o", out)  # another game's strategy
    one_error_line(capsys, "view", "no_such_game", path, "-o", out)
    one_error_line(capsys, "view", "kuhn", path, "--compare", tmp_path / "nope.npz", "-o", out)
    one_error_line(capsys, "view", "kuhn", path, "--form", "sideways", "-o", out)
    one_error_line(capsys, "view", "kuhn", path, "--port", "70000", "-o", out)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["kuhn.npz"]  # no temporary left behind
    # a folder of other files is never replaced; an earlier viewer site is
    (out / "notes").mkdir(parents=True)
    one_error_line(capsys, "view", "kuhn", path, "-o", out)
    assert [p.name for p in out.iterdir()] == ["notes"]
    (out / "notes").rmdir()
    assert main(["view", "kuhn", str(path), "-o", str(out)]) == 0
    assert main(["view", "kuhn", str(path), "-o", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kuhn.npz", "site"]


def test_interrupted_writing_leaves_nothing(tmp_path, monkeypatch):
    tree = view_form("kuhn")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(D, "public_structure", fail)
    with pytest.raises(OSError):
        write_view(random_policy(tree, 0), tmp_path / "site")
    assert list(tmp_path.iterdir()) == []


# -- a real browser --------------------------------------------------------------------------
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def find_chromium() -> str:
    """Debian's chromium, installed here if missing (as root, with apt); else skip."""
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    if os.name != "posix" or os.geteuid() != 0 or not shutil.which("apt-get"):
        reason = "chromium is not installed and cannot be (needs root and apt-get)"
        print(reason)
        pytest.skip(reason)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "install", "-y", "--no-install-recommends", "chromium"],
                ["apt-get", "update"],
                ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]):
        subprocess.run(cmd, env=env, capture_output=True, timeout=900)
        if shutil.which("chromium"):
            return shutil.which("chromium")
    reason = "apt-get could not install chromium"
    print(reason)
    pytest.skip(reason)


class DevTools:
    """A minimal Chrome DevTools protocol client over a hand-written WebSocket (RFC 6455:
    masked text frames out; text, continuation, ping and close frames in)."""

    def __init__(self, url: str) -> None:
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        data = b""
        while b"\r\n\r\n" not in data:
            data += self.sock.recv(4096)
        head, self.buf = data.split(b"\r\n\r\n", 1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        self.next_id = 0
        self.events: list[dict] = []

    def _read(self, n: int) -> bytes:
        while len(self.buf) < n:
            more = self.sock.recv(1 << 20)
            if not more:
                raise ConnectionError("DevTools closed the connection")
            self.buf += more
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _frame(self, opcode: int, data: bytes) -> None:
        head = bytearray([0x80 | opcode])
        n = len(data)
        if n < 126:
            head.append(0x80 | n)
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        body = (np.frombuffer(data, np.uint8)
                ^ np.resize(np.frombuffer(mask, np.uint8), n)).tobytes()
        self.sock.sendall(bytes(head) + mask + body)

    def _message(self) -> dict:
        parts = []
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            opcode = b0 & 0x0F
            if opcode == 9:  # ping
                self._frame(10, data)
                continue
            if opcode == 8:
                raise ConnectionError("DevTools closed the connection")
            parts.append(data)
            if b0 & 0x80:
                return json.loads(b"".join(parts))

    def call(self, method: str, **params):
        self.next_id += 1
        self._frame(1, json.dumps({"id": self.next_id, "method": method,
                                   "params": params}).encode())
        while True:
            msg = self._message()
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]
            self.events.append(msg)

    def js(self, expression: str):
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                        awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expression}: {res['exceptionDetails']}")
        return res["result"].get("value")

    def wait_ready(self, hash_: str, timeout: float = 15.0) -> None:
        """Until the page has rendered the route ``hash_`` (viewer.js sets data-ready)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            state = self.js("document.body && document.body.getAttribute('data-ready')")
            if state == hash_:
                return
            assert state != "error", self.js("document.getElementById('main').textContent")
            time.sleep(0.05)
        raise AssertionError(f"the page never rendered {hash_} (state {state!r})")

    def click(self, selector: str, hash_: str) -> None:
        assert self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                       " if (!e) return false; e.click(); return true; })()"), selector
        self.wait_ready(hash_)

    def errors(self) -> list[str]:
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(json.dumps(p["exceptionDetails"])[:300])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(json.dumps(p.get("args"))[:300])
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(p["entry"].get("text", "")[:300])
        return out


@pytest.fixture(scope="module")
def browser():
    exe = find_chromium()
    profile = tempfile.mkdtemp(prefix="rcfr-chromium-")
    proc = subprocess.Popen([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                             "--remote-debugging-port=0", "--window-size=1200,900",
                             "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        port, text, end = None, b"", time.monotonic() + 30
        while port is None and time.monotonic() < end and proc.poll() is None:
            if select.select([proc.stderr], [], [], 0.5)[0]:
                text += os.read(proc.stderr.fileno(), 65536)
                m = re.search(rb"DevTools listening on ws://127\.0\.0\.1:(\d+)/", text)
                port = int(m[1]) if m else None
        if port is None:
            pytest.skip(f"chromium did not start: {text[-500:].decode(errors='replace')}")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            pages = [t for t in json.load(r) if t["type"] == "page"]
        tab = DevTools(pages[0]["webSocketDebuggerUrl"])
        for domain in ("Runtime", "Log", "Page"):
            tab.call(f"{domain}.enable")
        tab.call("Emulation.setDeviceMetricsOverride", width=1200, height=900,
                 deviceScaleFactor=1, mobile=False)
        yield tab
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(tab: DevTools, folder: Path, hash_: str) -> None:
    tab.call("Page.navigate", url=(folder / "index.html").resolve().as_uri() + hash_)
    tab.wait_ready(hash_)


def table(tab: DevTools) -> list[dict]:
    return tab.js("""[...document.querySelectorAll('#strategy tbody tr')].map(tr => ({
        state: tr.dataset.state,
        probs: [...tr.querySelectorAll('td.prob')].map(td => ({
            text: td.childNodes[0].textContent, p: td.dataset.p,
            bg: getComputedStyle(td).backgroundColor,
            box: (r => [r.x, r.y, r.width, r.height])(td.getBoundingClientRect())}))}))""")


def expected_rows(tree, policy, u: int) -> list[tuple[str, list[float]]]:
    p = int(tree.node_kind[u])
    rows = []
    for i in np.flatnonzero(tree.infoset_public_node == u):
        s, A = int(tree.infoset_seq_start[i]), int(tree.infoset_num_actions[i])
        rows.append((tree.structure.labels[p][tree.infoset_private[i]],
                     policy.probs[s:s + A].tolist()))
    return rows


def check_table(tab: DevTools, tree, policy, u: int) -> list[dict]:
    shown = table(tab)
    want = expected_rows(tree, policy, u)
    assert [r["state"] for r in shown] == [w[0] for w in want]
    for row, (_, probs) in zip(shown, want, strict=True):
        for a, (cell, p) in enumerate(zip(row["probs"], probs, strict=True)):
            assert float(cell["p"]) == p
            assert abs(float(cell["text"]) - p) <= 0.0005 + 1e-12
            assert cell["bg"] == "rgb({}, {}, {})".format(*shade(PALETTE[a], p))
    return shown


def child(tree, u: int, name: str) -> int:
    for v in range(tree.node_child_start[u], tree.node_child_start[u + 1]):
        who = int(tree.node_kind[u]) if tree.node_kind[u] < 2 else -1
        if tree._states[u].action_to_string(who, int(tree.node_action[v])) == name:
            return v
    raise AssertionError(f"no {name} below node {u}")


def test_leduc_in_a_headless_browser(tmp_path, browser):
    """Navigate Leduc's public tree by clicks (root -> call -> call -> board Qh -> raise), check
    every shown probability at each step against the file, the breadcrumb, a screenshot's
    pixels in key cells, and that nothing was logged as an error."""
    from PIL import Image

    tree, policy, out = write_page(tmp_path, "leduc", 7)
    tab = browser
    open_page(tab, out, "#node=0")
    check_table(tab, tree, policy, 0)
    path = [0]
    for name in ("call", "call", "Qh", "raise"):
        v = child(tree, path[-1], name)
        tab.click(f'#main .acts a[data-node="{v}"]', f"#node={v}")
        path.append(v)
        crumbs = tab.js("[...document.querySelectorAll('#crumbs a, #crumbs .here')]"
                        ".map(e => e.textContent)")
        assert crumbs[-1] == name and crumbs[0] == "root"
        if tree.node_kind[v] < 2:
            shown = check_table(tab, tree, policy, v)
    assert tab.js("document.querySelector('#crumbs .here').textContent") == "raise"
    assert len(shown) == 5  # the board card Qh is no private state here
    # a screenshot: each action cell of the first row has its probability's colour
    png = base64.b64decode(tab.call("Page.captureScreenshot", format="png")["data"])
    image = Image.open(io.BytesIO(png)).convert("RGB")
    want = expected_rows(tree, policy, path[-1])
    for a, cell in enumerate(shown[0]["probs"]):
        x, y, w, h = cell["box"]
        pixel = image.getpixel((int(x + 3), int(y + h - 3)))  # padding, no text
        assert max(abs(c - e) for c, e in zip(pixel, shade(PALETTE[a], want[0][1][a]),
                                               strict=True)) <= 2, (a, pixel)
    # back to the root through the breadcrumb
    tab.click('#crumbs a[data-node="0"]', "#node=0")
    check_table(tab, tree, policy, 0)
    # a chance node lists the board cards
    v = child(tree, child(tree, 0, "call"), "call")
    open_page(tab, out, f"#node={v}")
    assert len(tab.js("[...document.querySelectorAll('#main .acts a')]")) == 6
    assert tab.errors() == []


def test_lazy_chunks_load_from_file_urls(tmp_path, browser, monkeypatch):
    """A page written in chunks (2-NL Hold'em(6), forced lazy) loads its node data with
    <script> tags from file://, shows the grid of bucket sequences and no errors."""
    monkeypatch.setattr(D, "SMALL_SEQUENCES", 100)
    monkeypatch.setattr(D, "CHUNK_SEQUENCES", 500)
    tree, policy, out = write_page(tmp_path, "nl_holdem2(stack=6)", 8)
    site = read_site(out)
    flop = [u for u, r in node_records(site).items()
            if site["tree"]["rowsets"][r["rs"]]["layout"]["type"] == "grid"]
    u = flop[-1]
    open_page(browser, out, f"#node={u}")
    assert browser.js("document.querySelectorAll('#grid .cell').length") == 25
    shown = table(browser)
    want = site["chunks"][-1][str(u)]["pr"] if str(u) in site["chunks"][-1] else None
    rec = node_records(site)[u]
    A = len(rec["pr"]) // len(rec["re"])
    assert [float(c["p"]) for c in shown[0]["probs"]] == rec["pr"][:A]
    assert want is None or want == rec["pr"]
    assert browser.js("document.querySelectorAll('script[src^=\"data/c\"]').length") >= 1
    assert browser.errors() == []


def test_distilled_rules_panel_beside_the_grid(tmp_path, browser):
    """A distilled strategy (``rcfr distill -o``) carries its text rules; the page shows, beside
    the private states, the rules of the acting player's round: round 1 at the root, round 2
    after the board card (Leduc, CART of depth 2 per round)."""
    from rcfr.distill import distill

    policy = rcfr.solve("leduc", "cfr+", 50).policy
    small = distill(policy, "cart", 2, per_round=True)
    path = small.policy.save(tmp_path / "small.npz")
    out = tmp_path / "site"
    assert main(["view", "leduc", str(path), "-o", str(out)]) == 0
    tree = view_form("leduc")
    u = child(tree, child(tree, child(tree, 0, "call"), "call"), "Qh")
    after_board = child(tree, u, "call") if tree.node_kind[u] >= 2 else u
    for node in (0, after_board):
        open_page(browser, out, f"#node={node}")
        player = int(tree.node_kind[node])
        want = next(p for p in small.parts if p.player == player
                    and p.round == (0 if node == 0 else 1))
        title = browser.js("document.querySelector('#rules h3').textContent")
        assert title == f"Distilled rules (cart, depth 2, round {want.round + 1})"
        assert browser.js("[...document.querySelectorAll('#rules li')].map(e => e.textContent)"
                          ) == want.rules
        assert browser.js("!!document.querySelector('.withrules #grid, .withrules #strategy')")
    assert browser.errors() == []
    plain = tmp_path / "plain"
    assert main(["view", "leduc", str(policy.save(tmp_path / "p.npz")), "-o", str(plain)]) == 0
    assert "distilled" not in read_site(plain)["meta"]

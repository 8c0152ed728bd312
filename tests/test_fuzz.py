"""Fuzzing the command line in-process (issue 9): mutated strategy and checkpoint files, and
malformed option values and game strings.  Every bad input must give exit code 2, one
``error:`` line on stderr, no traceback and no file left behind; a mutated file that is still
valid must work (exit 0) exactly when the API loads it."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import zipfile
from pathlib import Path

import numpy as np
import pytest

import rcfr
from rcfr.cli import main
from rcfr.core.errors import RcfrError
from rcfr.policy import TabularPolicy
from rcfr.solvers.run import make_solver

SEED = 20261122
N_BYTE_MUTANTS = 360  # plus the structured mutants below: > 500 files in all


def _run(capsys, args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _assert_refused(code: int, err: str, what) -> None:
    assert code == 2, (what, code, err)
    assert "Traceback" not in err, (what, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), (what, err)


def _listing(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


# -- the corpus of files --------------------------------------------------------------------------
def _arrays(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: np.array(data[k]) for k in data.files}
    return arrays, json.loads(str(arrays.pop("meta")[()]))


def _npz(arrays: dict, meta) -> bytes:
    buf = io.BytesIO()
    payload = dict(arrays)
    payload["meta"] = np.array(meta if isinstance(meta, str) else json.dumps(meta))
    np.savez_compressed(buf, **payload)
    return buf.getvalue()


def _byte_mutants(blob: bytes, rng: np.random.Generator, n: int) -> list[bytes]:
    out = []
    for i in range(n):
        data = bytearray(blob)
        kind = i % 6
        if kind in (0, 1, 2):  # flip 1 to 8 bytes
            for pos in rng.integers(0, len(data), size=int(rng.integers(1, 9))):
                data[pos] ^= int(rng.integers(1, 256))
        elif kind == 3:  # truncate
            data = data[: int(rng.integers(0, len(data)))]
        elif kind == 4:  # overwrite a run with zeros or junk
            lo = int(rng.integers(0, len(data)))
            hi = min(len(data), lo + int(rng.integers(1, 64)))
            data[lo:hi] = bytes(rng.integers(0, 256, size=hi - lo, dtype=np.uint8)) \
                if rng.random() < 0.5 else bytes(hi - lo)
        else:  # insert junk
            pos = int(rng.integers(0, len(data)))
            data[pos:pos] = bytes(rng.integers(0, 256, size=int(rng.integers(1, 32)),
                                               dtype=np.uint8))
        out.append(bytes(data))
    return out


def _structured_mutants(arrays: dict, meta: dict) -> list[bytes]:
    """Valid archives with damaged contents: headers and arrays that lie."""
    out = []
    for key in list(meta):
        for bad in (None, "x", -1, 1.5, [], {}, True, 10**30):
            out.append(_npz(arrays, {**meta, key: bad}))
        out.append(_npz(arrays, {k: v for k, v in meta.items() if k != key}))
    for text in ("", "{", "[]", "null", "1", '"x"', "{\"format\": 1}", "NaN", "{" * 5000):
        out.append(_npz(arrays, text))
    for name, value in arrays.items():
        flat = value.reshape(-1)  # a regressor's state holds 0-d arrays too
        for bad in (flat[:-1], np.concatenate([flat, flat]), value.astype(np.float32),
                    value.astype(np.int64), value.reshape(1, -1), np.full(value.shape, np.nan),
                    np.full(value.shape, -1.0), np.full(value.shape, np.inf), np.array(1.0),
                    np.zeros(0), np.array(["x"] * max(1, value.size))):
            if bad is value or name == "meta":
                continue
            out.append(_npz({**arrays, name: bad}, meta))
        out.append(_npz({k: v for k, v in arrays.items() if k != name}, meta))
    out.append(_npz({**arrays, "extra": np.zeros(3)}, meta))
    out.append(_npz({}, meta))
    buf = io.BytesIO()  # a zip archive that is not an .npz
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("meta.npy", b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f8', 'shape': (1")
    out.append(buf.getvalue())
    out += [b"", b"PK\x03\x04", b"\x93NUMPY" + bytes(100), b"not a file at all\n" * 10]
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """(kind, algorithm, mutated bytes) for a Kuhn strategy and cfr+, es and rcfr+
    checkpoints."""
    d = tmp_path_factory.mktemp("fuzz-base")
    tree = rcfr.compile_game("kuhn")
    bases = {}
    policy_file = d / "policy.npz"
    solver = make_solver(tree, "cfr+")
    solver.run(20)
    solver.average_policy().save(policy_file)
    bases[("policy", "")] = policy_file
    for alg in ("cfr+", "es", "rcfr+"):
        s = make_solver(tree, alg, seed=3)
        s.run(7)
        f = d / f"{alg}.ckpt.npz"
        s.save_checkpoint(f)
        bases[("checkpoint", alg)] = f
    rng = np.random.default_rng(SEED)
    items = []
    for (kind, alg), path in bases.items():
        blob = path.read_bytes()
        share = N_BYTE_MUTANTS // len(bases)
        items += [(kind, alg, b) for b in _byte_mutants(blob, rng, share)]
        items += [(kind, alg, b) for b in _structured_mutants(*_arrays(path))]
    return items


def _loads(kind: str, alg: str, path: Path) -> bool:
    """Whether the API accepts the file (the CLI must then succeed)."""
    try:
        if kind == "policy":
            TabularPolicy.load(path, "kuhn")
        else:
            make_solver(rcfr.compile_game("kuhn"), alg).load_checkpoint(path)
    except RcfrError:
        return False
    return True


def test_mutated_strategy_and_checkpoint_files(capsys, tmp_path, monkeypatch, corpus):
    assert len(corpus) >= 500
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "mutant.npz"
    out = tmp_path / "out.npz"
    refused, accepted = 0, []
    for i, (kind, alg, blob) in enumerate(corpus):
        target.write_bytes(blob)
        before = _listing(tmp_path)
        if kind == "policy":
            args = ["evaluate", "kuhn", target]
        else:
            args = ["solve", "kuhn", "-a", alg, "-n", 1, "--eval-every", 0, "--resume", target,
                    "--out", out]
        code, _, err = _run(capsys, args)
        if code == 0:
            assert _loads(kind, alg, target), (i, kind, alg, "accepted a damaged file")
            accepted.append(i)
            out.unlink(missing_ok=True)
        else:
            _assert_refused(code, err, (i, kind, alg))
            refused += 1
            assert _listing(tmp_path) == before, (i, kind, alg, "left a file behind")
    # what stays valid: byte flips in zip fields nobody reads, header values that only
    # record (seed, metadata, iterations), extra arrays, float32 copies of float64 arrays
    assert refused >= 0.8 * len(corpus)


# -- malformed options and game strings -------------------------------------------------------
BAD_COUNTS = ["0", "-1", "abc", "1.5", "99999999999999999999", "", "nan", "1e3"]
BAD_GAMES = [
    "", " ", "(", ")", "()", "kuhn(", "kuhn)", "kuhn((", "kuhn(x)", "kuhn(=1)", "kuhn(a=)",
    "kuhn(a=1", "kuhn a=1)", "kuhn((a=1))", "kuhn(,)", "kuhn(,,)", "kuhn(players=3)",
    "kuhn(foo=1)", "leduc(canonical=maybe)", "leduc(canonical=true,canonical=true)",
    "leduc(canonical=true,)", "leduc(suits=3)", "liars_dice(dice=0)", "liars_dice(dice=-1)",
    "liars_dice(dice=1.5)", "liars_dice(faces=1)", "liars_dice(dice=true)",
    "liars_dice(faces=[1])", "liars_dice(dice=99999999999999999999)", "liars_dice(dice=2,faces=6)",
    "liars_dice(dice=5)", "nl_one_card(cards=1)", "nl_one_card(stack=0)", "nl_one_card(ante=0)",
    "nl_one_card(stack=x)", "nl_one_card(stack=1000)", "nl_one_card(stack=99999999999999999999)",
    "goofspiel(num_cards=1)", "goofspiel(points_order=up)", "goofspiel(imp_info=2)",
    "goofspiel(num_cards=14)", "matrix", "matrix(payoffs=[[1,2],[3]])", "matrix(payoffs=[])",
    "matrix(payoffs=x)", "matrix(payoffs=[[NaN]])", "matrix(payoffs=[[1,2]],payoffs=[[1]])",
    "matrix(payoffs=[[1,2]", "matrix(payoffs=1 2;3)", "random_game(seed=x)",
    "random_game(depth=0,seed=1)", "random_game(seed=1,branching=0)", "random_game",
    "rps(n=3)", "rps(", "no_such_game", "no_such_game(a=1)", "KUHN", "kuhn()()",
    "kuhn(a=1,a=1)", "leduc(canonical=[true])", "liars_dice(dice=1e400)",
    "liars_dice(dice=[[[[[[[[[[1]]]]]]]]]])", "liars_dice(dice=" + "[" * 3000 + ")",
    "goofspiel(num_cards=" + "9" * 50 + ")",
]


def _option_cases(tmp: Path) -> list[list]:
    cases = []
    solve = ["solve", "kuhn"]
    for opt in ("-n", "--nodes", "--eval-every", "--seed"):
        for bad in BAD_COUNTS:
            if opt == "--eval-every" and bad in ("0", "1e3"):
                continue  # 0 is allowed there (evaluate only at the end)
            if opt == "--seed" and bad == "0":
                continue
            cases.append([*solve, opt, bad])
    cases += [[*solve, "--seed", v] for v in ("-99999999999999999999", "9223372036854775808")]
    for bad in ("0", "-1", "nan", "inf", "x", "", "-inf"):
        cases.append([*solve, "--checkpoint", tmp / "c.npz", "--checkpoint-every", bad])
    cases.append([*solve, "--checkpoint-every", "10"])
    for bad in ("cubic", "x", "", "-"):
        cases.append([*solve, "--averaging", bad])
    for bad in ("poly:1", "poly:x", "exp:0", "exp:-1", "poly:nan", "exp:inf", "foo", "poly:-2",
                "", "poly:0.5", "exp:nan", "poly:", "exp: "):
        cases.append([*solve, "--link", bad])
    for bad in ("hashing:0", "hashing:-1", "hashing:x", "hashing:99999999999999999999",
                "hashing:100000000", "foo", "thesis", "", "hashing"):
        cases.append([*solve, "-a", "rcfr", "--features", bad])
    for bad in ("0", "-1G", "lots", "1Q", "nan", "", "1", "inf"):
        cases.append([*solve, "--max-memory", bad])
    for bad in (tmp / "missing" / "x.npz", "/sys/x.npz", tmp, "/proc/x.npz"):
        for opt in ("--out", "--out-current", "--checkpoint"):
            cases.append([*solve, opt, bad])
    cases.append([*solve, "--out", tmp / "same.npz", "--checkpoint", tmp / "same.npz"])
    cases.append([*solve, "--out", tmp / "same.npz", "--out-current", tmp / "same.npz"])
    for bad in (tmp / "none.npz", tmp, "/dev/null", "/proc/version"):
        cases.append([*solve, "--resume", bad])
        cases.append(["evaluate", "kuhn", bad])
    for bad in ("foo", "", "CFR++", "rcfr-"):
        cases.append([*solve, "-a", bad])
    cases.append(["evaluate", "kuhn"])
    cases.append(["evaluate", "kuhn", tmp / "none.npz", "--uniform"])
    for bad in ("2", "-1", "x"):
        cases.append(["play", "kuhn", tmp / "none.npz", "--seat", bad])
    for opt in ("--hands", "--seed"):
        for bad in ("0", "-1", "99999999999999999999", "x") if opt == "--hands" else \
                ("-1", "x", "99999999999999999999"):
            cases.append(["play", "kuhn", tmp / "none.npz", opt, bad])
    for bad in ("foo", ""):
        cases.append(["figure", bad])
    figure = ["figure", "convergence_leduc", "--quick", "--db", tmp / "r.db", "-o",
              tmp / "f.png"]
    for bad in ("0", "-1", "1e30", "nan", "inf", "x", "-inf"):
        cases.append([*figure, "--share", bad])
    for bad in ("0", "-1", "x", "99999999999999999999"):
        cases.append([*figure, "--workers", bad])
    for bad in ("0", "-1", "nan", "inf", "x"):
        cases.append([*figure, "--checkpoint-every", bad])
    for bad in ("slurm", ""):
        cases.append([*figure, "--backend", bad])
    cases.append(["figure", "thesis_4_1", "--share", "0.5"])  # not a convergence figure
    cases.append([*figure, "--data", tmp / "f.png"])
    cases.append([*figure[:-1], "/sys/f.png"])
    cases.append([*figure, "--data", "/sys/f.json"])
    cases.append([*figure[:3], "--db", "/sys/r.db"])
    cases.append([*figure[:3], "--spec", tmp / "none.toml"])
    for bad in (tmp / "missing" / "x.npz", "/sys/x.npz", tmp):
        cases.append(["lp", "kuhn", "--out", bad])
    cases += [["--game-module", m, "games"] for m in ("no_such_module_x", "", "a..b", "os.x",
                                                       "missing_file.py")]
    cases += [["no-such-command"], ["solve"], ["solve", "kuhn", "--no-such-option"],
              ["solve", "kuhn", "-n"], ["games", "--json", "--json=1"]]
    return cases


HUGE = ["4611686018427387904", "99999999999999999999"]  # 2^62 (in range), past the range
BAD_INTS = ["0", "-1", "x", "", "nan", "1.5"]
BAD_FLOATS = ["x", "", "nan", "inf", "-1"]
# the fictitious-play and deep drivers' options (Heinrich et al. 2015 and 2016, Brown et al.
# 2019, Steinberger 2019, Steinberger et al. 2020): zero, negative, non-numeric and huge
# values; a huge size or step count must be refused by the memory guard before it is
# allocated, or as more minibatch rows than any machine trains on, never run until killed
DRIVER_OPTIONS = {
    "nfsp": {"--hidden": ["0", "-1", "x", "", "64,,64", *HUGE, "100000,100000"],
             "--rl-memory": [*BAD_INTS, *HUGE], "--sl-memory": [*BAD_INTS, *HUGE],
             "--batch-size": [*BAD_INTS, *HUGE], "--learn-every": BAD_INTS,
             "--target-every": BAD_INTS, "--envs": [*BAD_INTS, *HUGE],
             "--eta": [*BAD_FLOATS, "2"], "--eps-start": [*BAD_FLOATS, "2"],
             "--rl-lr": [*BAD_FLOATS, "0"], "--sl-lr": [*BAD_FLOATS, "0"],
             "--episodes": BAD_INTS},
    "fsp": {"--fsp-episodes": [*BAD_INTS, *HUGE], "--step": ["x", "", "power:0", "const:2"]},
    "xfp": {"--step": ["x", "power:nan", "const:0"]},
    "deep-cfr": {"--hidden": ["0", "x", *HUGE, "100000,100000"],
                 "--traversals": [*BAD_INTS, *HUGE], "--train-steps": [*BAD_INTS, *HUGE],
                 "--policy-steps": [*BAD_INTS, *HUGE], "--memory": [*BAD_INTS, *HUGE],
                 "--batch-size": [*BAD_INTS, HUGE[1]], "--lr": [*BAD_FLOATS, "0"],
                 "--network": ["x", ""], "--backend": ["x", ""]},
    "sd-cfr": {"--hidden": ["-1", *HUGE, "100000,100000"], "--memory": [*BAD_INTS, *HUGE],
               "--train-steps": [*BAD_INTS, *HUGE], "--traversals": HUGE, "-n": HUGE},
    "dream": {"--q-memory": [*BAD_INTS, *HUGE], "--q-steps": [*BAD_INTS, *HUGE],
              "--q-lr": [*BAD_FLOATS, "0"], "--baseline": ["x", ""],
              "--baseline-rate": [*BAD_FLOATS, "0", "2"], "--epsilon": [*BAD_FLOATS, "0"],
              "--hidden": [HUGE[0]], "--memory": HUGE},
}


def test_malformed_driver_options(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cases = [["solve", "kuhn", "-a", algorithm, option, bad, *([] if option == "-n" else
                                                               ["-n", "1"])]
             for algorithm, options in DRIVER_OPTIONS.items()
             for option, bads in options.items() for bad in bads]
    cases += [["solve", "kuhn", "-a", a, "--hidden", "30000,30000", "--max-memory", "1G",
               "-n", "1"] for a in ("nfsp", "deep-cfr", "sd-cfr", "dream")]
    assert len(cases) >= 200
    for args in cases:
        code, _, err = _run(capsys, args)
        _assert_refused(code, err, args)
        assert _listing(tmp_path) == set(), (args, "left a file behind")


def test_malformed_options_and_game_strings(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # Bluff(2,2) and Bluff(5,5) are games too large to build: `games` lists their closed-form
    # sizes, solving them is refused
    too_big = ["liars_dice(dice=2,faces=6)", "liars_dice(dice=5)"]
    cases = [["games", g] for g in BAD_GAMES if g not in too_big]
    cases += [["solve", g, "-n", 1] for g in BAD_GAMES[:20] + too_big]
    cases += _option_cases(tmp_path)
    assert len(cases) >= 200
    for args in cases:
        before = _listing(tmp_path)
        code, _, err = _run(capsys, args)
        _assert_refused(code, err, args)
        assert _listing(tmp_path) == before, (args, "left a file behind")


# -- the results store (issue 30) ---------------------------------------------------------------
STORE_SPEC = """name = "tiny"
figure = "convergence"
seeds = [0]
[base]
game = "kuhn"
iterations = 20
eval_every = 10
[grid]
algorithm = ["cfr", "cfr+", "lcfr"]
"""
# damage to one run's rows: (SQL with {h} for its hash and ? for DEEP, reported): ``reported``
# says a read of the rows must name the damage (a warning or an error line)
DEEP = "[" * 5000 + "]" * 5000
ROW_DAMAGE = [
    ("UPDATE runs SET spec = 'not json' WHERE hash = '{h}'", True),
    ("UPDATE runs SET spec = '[1, 2]' WHERE hash = '{h}'", True),
    ("UPDATE runs SET spec = '\"kuhn\"' WHERE hash = '{h}'", True),
    ("UPDATE runs SET spec = '{{}}' WHERE hash = '{h}'", True),
    ("UPDATE runs SET spec = '{{\"game\": 5, \"iterations\": 20}}' WHERE hash = '{h}'", True),
    ("UPDATE runs SET spec = '{{\"game\": \"kuhn\", \"iterations\": 20, \"bogus\": 1}}' "
     "WHERE hash = '{h}'", True),
    ("UPDATE runs SET spec = '{{\"game\": \"kuhn\", \"iterations\": \"many\"}}' "
     "WHERE hash = '{h}'", True),
    ("UPDATE runs SET spec = '{{\"game\": \"kuhn\", \"iterations\": 0}}' WHERE hash = '{h}'",
     True),
    ("UPDATE runs SET spec = ? WHERE hash = '{h}'", True),  # nested 5,000 deep
    ("UPDATE runs SET spec = CAST(x'fffe7b7d' AS TEXT) WHERE hash = '{h}'", True),
    ("UPDATE runs SET spec = x'00ff' WHERE hash = '{h}'", True),
    ("UPDATE runs SET spec = 42 WHERE hash = '{h}'", True),
    ("UPDATE runs SET status = 'weird' WHERE hash = '{h}'", True),
    ("UPDATE runs SET status = 7 WHERE hash = '{h}'", True),
    ("UPDATE runs SET exploitability = 'abc' WHERE hash = '{h}'", True),
    ("UPDATE runs SET exploitability = x'00' WHERE hash = '{h}'", True),
    ("UPDATE runs SET exploitability = NULL WHERE hash = '{h}'", True),
    ("UPDATE runs SET iterations = 'many' WHERE hash = '{h}'", True),
    ("UPDATE runs SET iterations = 1.5 WHERE hash = '{h}'", True),
    ("UPDATE runs SET seconds = 'slow' WHERE hash = '{h}'", True),
    ("UPDATE runs SET value = 'x' WHERE hash = '{h}'", True),
    ("UPDATE runs SET complexity = 'x' WHERE hash = '{h}'", True),
    ("UPDATE runs SET complexity_share = x'01' WHERE hash = '{h}'", True),
    ("UPDATE runs SET started = 'yesterday' WHERE hash = '{h}'", True),
    ("UPDATE runs SET status = 'failed', error = x'01' WHERE hash = '{h}'", True),
    ("UPDATE runs SET code_version = CAST(x'ff' AS TEXT) WHERE hash = '{h}'", True),
    ("UPDATE runs SET host = x'01' WHERE hash = '{h}'", True),
    ("UPDATE runs SET hash = NULL WHERE hash = '{h}'", True),
    ("UPDATE runs SET hash = 'ZZZ' WHERE hash = '{h}'", True),
    ("UPDATE runs SET hash = 12345.5 WHERE hash = '{h}'", True),
    ("UPDATE points SET iterations = 'abc' WHERE run = '{h}' AND iterations = 10", False),
    ("UPDATE points SET exploitability = NULL WHERE run = '{h}' AND iterations = 10", False),
    ("UPDATE points SET exploitability = 'x' WHERE run = '{h}' AND iterations = 10", False),
    ("UPDATE points SET nodes = 'x' WHERE run = '{h}' AND iterations = 10", False),
    ("UPDATE points SET value = 'x' WHERE run = '{h}' AND iterations = 10", False),
    ("UPDATE points SET seconds = x'00' WHERE run = '{h}' AND iterations = 10", False),
    ("DELETE FROM points WHERE run = '{h}' AND iterations = 10", False),
    ("INSERT INTO points VALUES ('{h}0', 1, 1, 1.0, 'x', 1.0)", False),
    ("DELETE FROM runs WHERE hash = '{h}'", False),
    ("INSERT INTO runs (hash, spec, status) VALUES ('{h}ff', 'not json', 'done')", True),
]


def _damage_rows(path: Path, sql: str) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA ignore_check_constraints = ON")
    db.execute(sql, (DEEP,) if "?" in sql else ())
    db.commit()
    db.close()


def _sqlite_file(path: Path, script: str, version: int | None = None) -> None:
    db = sqlite3.connect(path)
    db.executescript(script)
    if version is not None:
        db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


@pytest.fixture(scope="module")
def store_corpus(tmp_path_factory):
    """(name, make(folder) -> database path, reported) for at least 300 damaged stores."""
    from rcfr.experiments.spec import load_sweep
    from rcfr.experiments.store import MIGRATIONS, SCHEMA_VERSION, Store
    from rcfr.experiments.sweep import run_sweep

    base = tmp_path_factory.mktemp("store-base")
    spec = base / "tiny.toml"
    spec.write_text(STORE_SPEC)
    with Store(base / "r.db") as store:
        run_sweep(load_sweep(spec), store, backend="inline")
        hashes = [r["hash"] for r in store.runs()]
    blob = (base / "r.db").read_bytes()
    rng = np.random.default_rng(SEED + 30)
    cases = []

    def plain(data: bytes):
        def make(folder: Path) -> Path:
            (folder / "r.db").write_bytes(data)
            return folder / "r.db"
        return make

    for k, data in enumerate(_byte_mutants(blob, rng, 150)):
        cases.append((f"bytes {k}", plain(data), False))
    for k in range(30):  # truncated, at page boundaries and anywhere
        cut = int(rng.integers(0, len(blob))) if k % 2 else 4096 * int(rng.integers(0, len(blob)
                                                                                 // 4096))
        cases.append((f"truncated at {cut}", plain(blob[:cut]), False))
    def damaged_rows(sql: str):
        def make(folder: Path) -> Path:
            (folder / "r.db").write_bytes(blob)
            _damage_rows(folder / "r.db", sql)
            return folder / "r.db"
        return make

    for j, (sql, reported) in enumerate(ROW_DAMAGE):
        for h in hashes:
            cases.append((f"rows {j} {h}", damaged_rows(sql.format(h=h)), reported))

    def sqlite_made(script: str, version: int | None = None, from_blob: bool = False):
        def make(folder: Path) -> Path:
            if from_blob:
                (folder / "r.db").write_bytes(blob)
            _sqlite_file(folder / "r.db", script, version)
            return folder / "r.db"
        return make

    foreign = ["CREATE TABLE foo (x); INSERT INTO foo VALUES (1);",
               "CREATE TABLE runs (a, b); INSERT INTO runs VALUES (1, 2);",
               "CREATE TABLE runs (a); CREATE TABLE points (b); INSERT INTO runs VALUES (1);",
               "CREATE TABLE points (x);", ""]
    for k, script in enumerate(foreign):
        cases.append((f"foreign {k}", sqlite_made(script), True))
        cases.append((f"foreign {k} v2", sqlite_made(script, 2), True))
    for version in (SCHEMA_VERSION + 1, 99, 2**31 - 1, -1):
        cases.append((f"schema {version}", sqlite_made("", version, True), True))
    old = MIGRATIONS[0] + ("INSERT INTO runs (hash, spec, status, exploitability) VALUES "
                           f"('{hashes[0]}', 'not json', 'done', 0.5);")
    cases.append(("schema 1 damaged", sqlite_made(old, 1), True))
    cases.append(("empty file", plain(b""), False))
    cases.append(("text", plain(b"not sqlite at all\n" * 300), True))
    cases.append(("sqlite header only", plain(blob[:100]), True))

    def special(kind: str):
        def make(folder: Path) -> Path:
            path = folder / "r.db"
            if kind == "folder":
                path.mkdir()
            elif kind == "fifo":
                os.mkfifo(path)
            elif kind == "devnull":
                path.symlink_to("/dev/null")
            else:
                path.symlink_to(folder / "missing.db")
            return path
        return make

    for kind in ("folder", "fifo", "devnull", "dangling"):
        cases.append((kind, special(kind), True))

    def readonly(inner, folder_too: bool):
        def make(folder: Path) -> Path:
            path = inner(folder)
            path.chmod(0o444)
            if folder_too:
                folder.chmod(0o555)
            return path
        return make

    for k in range(4):
        for folder_too in (False, True):
            make = plain(blob) if k == 0 else cases[k * 37][1]
            cases.append((f"read-only {k} {folder_too}", readonly(make, folder_too), False))
    return spec, hashes, cases


def _assert_store_command(code: int, err: str, what) -> None:
    """Exit 2 with one ``error:`` line, or 0 with a ``warning:`` line per damaged run."""
    assert "Traceback" not in err, (what, err)
    lines = err.splitlines()
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith("error: "), (what, err)
    else:
        assert code == 0, (what, code, err)
        assert all(line.startswith("warning: ") and " run" in line for line in lines), \
            (what, err)
        assert len(lines) <= 21, (what, err)


def _snapshot(path: Path) -> tuple:
    folder = path.parent
    data = path.read_bytes() if path.is_file() and os.access(path, os.R_OK) else None
    return data, sorted(p.name for p in folder.iterdir())


def test_damaged_results_stores(capsys, tmp_path, monkeypatch, store_corpus):
    """Issue 30: every read of the store validates what it reads.  Each damaged database runs
    through results (the list, --points, --where), sweep --dry-run, report, figure --no-run
    (none may change it) and sweep (which may write, but never into a file that fails
    PRAGMA quick_check or whose own runs are damaged): exit 2 with one error line, or 0 with
    a warning line per damaged run, and no traceback."""
    import rcfr.experiments.figures as figures
    import rcfr.experiments.report as report
    import rcfr.experiments.sweep as sweep
    from rcfr.experiments.runners import run_inline

    spec, hashes, cases = store_corpus
    assert len(cases) >= 300
    # what costs seconds and reads no store: the claims' own computations, the PNGs, the
    # worker processes (the runs run in this process)
    monkeypatch.setattr(report, "judge_all", lambda ctx: [])
    monkeypatch.setattr(figures, "plot", lambda data, path: Path(path).write_bytes(b"png"))
    monkeypatch.setattr(sweep, "run_local", lambda specs, directory, *, workers, **kw:
                        run_inline(specs, directory, **kw))
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    monkeypatch.chdir(outputs)
    counts = {"refused": 0, "warned": 0}
    for k, (name, make, reported) in enumerate(cases):
        folder = tmp_path / f"case{k}"
        folder.mkdir()
        db = make(folder)
        before = _snapshot(db)
        said = []
        for args in (["results", "--db", db], ["results", "--db", db, "--points", hashes[1][:8]],
                     ["results", "--db", db, "--where", "algorithm=cfr+"],
                     ["results", "--db", db, "--json"],
                     ["sweep", spec, "--db", db, "--dry-run"],
                     ["report", "--db", db, "-o", outputs / "report"],
                     ["figure", "x", "--spec", spec, "--db", db, "--no-run", "-o",
                      outputs / "f.png"]):
            code, _, err = _run(capsys, args)
            _assert_store_command(code, err, (name, args[:2]))
            assert _snapshot(db) == before, (name, args[:2], "changed the store")
            said.append(err)
        code, _, err = _run(capsys, ["sweep", spec, "--db", db])
        _assert_store_command(code, err, (name, "sweep"))
        if code == 2:
            assert _snapshot(db) == before, (name, "sweep refused but changed the store")
        said.append(err)
        if reported:
            assert any(said), (name, "the damage went unreported")
        counts["refused"] += "error: " in said[0]
        counts["warned"] += "warning: " in " ".join(said)
        if folder.stat().st_mode & 0o200 == 0:
            folder.chmod(0o755)
    assert counts["refused"] >= 100 and counts["warned"] >= 60, counts


# -- malformed run specs (issue 30) ----------------------------------------------------------
KUHN = {"game": "kuhn", "iterations": 5}
BAD_RUNS = [  # (fields, the key the error must name)
    ({}, "game"), ({"iterations": 5}, "game"), ({"game": 5, "iterations": 5}, "game"),
    ({"game": "", "iterations": 5}, "game"), ({"game": "   ", "iterations": 5}, "game"),
    ({"game": True, "iterations": 5}, "game"), ({"game": "kuhn"}, "iterations"),
    ({**KUHN, "iterations": 0}, "iterations"), ({**KUHN, "iterations": -1}, "iterations"),
    ({**KUHN, "iterations": 1e30}, "iterations"),
    ({**KUHN, "iterations": 99999999999999999999999}, "iterations"),
    ({**KUHN, "iterations": "many"}, "iterations"), ({**KUHN, "iterations": True}, "iterations"),
    ({**KUHN, "iterations": 1.5}, "iterations"), ({**KUHN, "iterations": float("nan")},
                                                  "iterations"),
    ({**KUHN, "iterations": float("inf")}, "iterations"),
    ({**KUHN, "nodes": 1000}, "iterations"), ({"game": "kuhn", "nodes": 1e30}, "nodes"),
    ({"game": "kuhn", "nodes": 0}, "nodes"), ({**KUHN, "eval_log": 1000000000}, "eval_log"),
    ({**KUHN, "eval_log": -1}, "eval_log"), ({**KUHN, "eval_every": -1}, "eval_every"),
    ({**KUHN, "eval_every": 2**70}, "eval_every"), ({**KUHN, "eval_from": 3}, "eval_from"),
    ({**KUHN, "seed": -1}, "seed"), ({**KUHN, "seed": 2**70}, "seed"),
    ({**KUHN, "seed": "zero"}, "seed"), ({**KUHN, "algorithm": "nope"}, "algorithm"),
    ({**KUHN, "algorithm": 5}, "algorithm"), ({**KUHN, "bogus": 1}, "bogus"),
    ({**KUHN, "Game": "kuhn"}, "Game"), ({**KUHN, "share": 2.0}, "share"),
    ({**KUHN, "share": 0}, "share"), ({**KUHN, "algorithm": "rcfr", "leaves": 0}, "leaf"),
    ({**KUHN, "algorithm": "rcfr", "leaves": 5, "share": 0.5}, "share"),
    ({**KUHN, "dtype": "float16"}, "dtype"), ({**KUHN, "form": "weird"}, "form"),
    ({**KUHN, "regressor": "best-first"}, "regressor"),
    ({**KUHN, "episodes": 5}, "episodes"), ({**KUHN, "bootstrap": "yes"}, "bootstrap"),
    ({"game": "kuhn\u0000", "iterations": 5}, "kuhn"), ({"game": "nosuch", "iterations": 5},
                                                        "nosuch"),
    ({"game": "kuhn(players=3)", "iterations": 5}, "players"),
    ({"game": "kuhn", "iterations": [5]}, "iterations"),
    ({"game": {"name": "kuhn"}, "iterations": 5}, "game"),
    ({"game": "matrix(payoffs=" + "[" * 3000 + "]" * 3000 + ")", "iterations": 5}, "nested"),
]
RAW_RUN_SPECS = [  # (file name, text or bytes)
    ("empty.toml", ""), ("run.toml", "[run]\n"), ("run5.toml", "run = 5\n"),
    ("syntax.toml", "game = \n"), ("syntax2.toml", "game = 'kuhn\niterations = 5\n"),
    ("dup.toml", "game = 'kuhn'\ngame = 'leduc'\niterations = 5\n"),
    ("deep.toml", "a = " + "[" * 5000 + "]" * 5000 + "\n"),
    ("deep.json", "[" * 100000 + "]" * 100000), ("array.json", "[1, 2]"),
    ("string.json", "\"kuhn\""), ("null.json", "null"), ("syntax.json", "{\"game\": "),
    ("binary.toml", bytes(range(256)) * 4),
    ("latin1.toml", "game = 'k\u00fchn'\n".encode("latin-1")),
    ("huge.toml", b"# " + b"x" * (17 << 20)),
    ("nan.json", "{\"game\": \"kuhn\", \"iterations\": NaN}"),
    ("folder", None), ("missing.toml", False),
]


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf"}.get(repr(value), repr(value))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, str) else str(value)


def test_malformed_run_specs(capsys, tmp_path, monkeypatch):
    """Issue 30: ``rcfr solve --spec`` (TOML or JSON) validates like a sweep spec: one line
    naming the missing or wrong key, never a traceback, nothing run."""
    monkeypatch.chdir(tmp_path)
    cases = []
    for k, (fields, key) in enumerate(BAD_RUNS):
        toml = tmp_path / f"bad{k}.toml"
        toml.write_text("".join(f"{name} = {_toml_value(v)}\n" for name, v in fields.items()))
        cases.append((toml, key))
        if k % 2 == 0:  # the [run] table
            table = tmp_path / f"bad{k}-table.toml"
            table.write_text("[run]\n" + toml.read_text())
            cases.append((table, key))
        as_json = tmp_path / f"bad{k}.json"
        as_json.write_text(json.dumps(fields))
        cases.append((as_json, key))
    for name, text in RAW_RUN_SPECS:
        path = tmp_path / name
        if text is None:
            path.mkdir()
        elif isinstance(text, bytes):
            path.write_bytes(text)
        elif text is not False:
            path.write_text(text)
        cases.append((path, None))
    assert len(cases) >= 100
    for path, key in cases:
        before = _listing(tmp_path)
        code, out, err = _run(capsys, ["solve", "--spec", path, "-o", tmp_path / "out.npz"])
        _assert_refused(code, err, path.name)
        assert not out, (path.name, out)
        if key is not None:
            assert key in err, (path.name, key, err)
        assert _listing(tmp_path) == before, (path.name, "left a file behind")


SWEEP_BASE = "[base]\ngame = \"kuhn\"\niterations = 5\n[grid]\nalgorithm = [\"cfr\"]\n"


@pytest.mark.parametrize("text, words", [
    ("seeds = 1000000000\n" + SWEEP_BASE, "seeds: at most 100,000"),
    (SWEEP_BASE.replace("[\"cfr\"]", "[\"cfr\", \"cfr+\"]\nshare = [" + "0.5, " * 400
                        + "0.5]\nrule = [" + "\"x\", " * 400 + "\"x\"]"), "more than 100,000"),
    (SWEEP_BASE.replace("iterations = 5", "iterations = 1e30"), "iterations: must be at most"),
    (SWEEP_BASE.replace("iterations = 5", "iterations = 99999999999999999999999"),
     "iterations: must be at most"),
    (SWEEP_BASE.replace("iterations = 5", "nodes = 1e30"), "nodes: must be at most"),
    (SWEEP_BASE + "eval_log = [1000000000]\n", "eval_log: must be at most 1,000"),
    ("name = \"../../escaped\"\n" + SWEEP_BASE, "name: expected a plain file name"),
    ("name = \"a\\u0000b\"\n" + SWEEP_BASE, "name: expected a plain file name"),
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    (SWEEP_BASE.replace("[\"cfr\"]", "[\"cfr\", \"nosuch\"]"),
     "algorithm: unknown algorithm 'nosuch'"),  # was a failed run, found only by running
])
def test_sweep_spec_bounds_are_checked_before_expanding(capsys, tmp_path, text, words):
    """Issue 30: a spec's budgets take the command line's bounds; its expansion is bounded
    (counted before anything is expanded) and its name is a plain file name."""
    spec = tmp_path / "s.toml"
    spec.write_text(text)
    code, out, err = _run(capsys, ["sweep", spec, "--db", tmp_path / "r.db", "--dry-run"])
    _assert_refused(code, err, words)
    assert words in err, err
    assert not (tmp_path / "r.db").exists()


def test_a_spec_seed_in_base_is_honoured(tmp_path):
    from rcfr.experiments.spec import load_sweep

    spec = tmp_path / "s.toml"
    spec.write_text(SWEEP_BASE.replace("[base]\n", "[base]\nseed = 42\n"))
    assert [r.seed for r in load_sweep(spec).runs] == [42]


def test_figure_kind_is_checked_before_anything_runs(capsys, tmp_path, monkeypatch):
    import rcfr.experiments.commands as commands

    monkeypatch.setattr(commands, "execute_sweep", lambda *a, **k: pytest.fail("it ran"))
    spec = tmp_path / "s.toml"
    spec.write_text("figure = \"nope\"\n" + SWEEP_BASE)
    code, _, err = _run(capsys, ["figure", "x", "--spec", spec, "--db", tmp_path / "r.db",
                                 "-o", tmp_path / "f.png"])
    _assert_refused(code, err, "figure kind")
    assert "'nope'" in err and "convergence" in err and "rcfr_complexity" in err


@pytest.mark.parametrize("game, words", [
    ("matrix(payoffs=" + "[" * 5000 + "]" * 5000 + ")", "nested more than"),
    ("liars_dice(dice=\u0661)", "ASCII digits"),
    ("liars_dice(dice=1,faces=\u0666)", "ASCII digits"),
    ("matrix(payoffs=0 1;\u0661 0)", "ASCII digits"),
    ("kuhn(" + "x" * 1_000_001 + ")", "the limit is"),
])
def test_game_strings_are_bounded(capsys, game, words):
    """Issue 30: game-string parsing is bounded (nesting depth, length) and reads only ASCII
    digits: one line, never a RecursionError."""
    code, _, err = _run(capsys, ["games", game])
    _assert_refused(code, err, words)
    assert words in err, err


# -- distributed checkpoints' manifests ----------------------------------------------------------
def _manifest_mutants(m: dict) -> list[tuple[str, str]]:
    """(what, manifest text): wrong types, missing keys, short and long lists, names that
    lead out of the folder or name another kind of file, broken JSON."""
    out: list[tuple[str, object]] = []
    for key in ("format", "version", "game", "fingerprint", "iterations", "nodes_visited",
                "parts", "cut", "rule", "link", "alternating", "averaging", "trunk",
                "part_files"):
        out.append((f"no {key}", {k: v for k, v in m.items() if k != key}))
        for bad in (None, [], {}, "7", 1.5, True, -1, 10**30):
            valid = key == "averaging" and bad in (1.5, 10**30)  # (powers: still a run)
            if not valid and (bad != m[key] or type(bad) is not type(m[key])):
                out.append((f"{key}={bad!r}", {**m, key: bad}))
    parts, trunk = m["part_files"], m["trunk"]
    for names in ([parts[0]], parts + [parts[1]], [parts[1], parts[0]], [trunk, parts[1]],
                  ["../outside.npz", parts[1]], [parts[0], "/etc/passwd"],
                  ["../../etc/passwd", parts[1]], [f"sub/{parts[0]}", parts[1]],
                  [f"{parts[0]}/..", parts[1]], ["", parts[1]], [parts[0], "part1-00000099.npz"],
                  [parts[0], "part1-00000002.npz\x00"], ["link/part0-00000002.npz", parts[1]],
                  [parts[0], "part1-00000099-1.npz"]):
        out.append((f"part_files={names!r}", {**m, "part_files": names}))
    for name in ("../outside.npz", "/etc/passwd", parts[0], "trunk-00000099.npz", "",
                 "./" + trunk, "trunk-00000099-1.npz"):
        out.append((f"trunk={name!r}", {**m, "trunk": name}))
    out += [("parts=3", {**m, "parts": 3}), ("iterations=3", {**m, "iterations": 3}),
            ("dtype=float16", {**m, "dtype": "float16"}), ("parts=0", {**m, "parts": 0})]
    texts = [(what, json.dumps(obj)) for what, obj in out]
    return texts + [("empty", ""), ("truncated", json.dumps(m)[:40]), ("list", "[]"),
                    ("null", "null"), ("a string", '"x"'), ("deep", "[" * 100000),
                    ("format only", '{"format": "rcfr.distributed"}')]


def test_damaged_distributed_manifests(capsys, tmp_path, monkeypatch):
    """Every damaged manifest of a distributed checkpoint is refused with one line, before any
    file it names is opened or any actor starts: no ``KeyError``, ``ValueError`` or ``zip()``
    traceback, and no name is followed out of the folder (``../outside.npz``, a valid trunk
    beside the folder, was read before)."""
    from rcfr.distributed import DistributedSolver

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "ck"
    d = DistributedSolver("leduc", "cfr+", actors=2, ray=False)
    d.run(2, checkpoint_every=2, checkpoint_dir=folder)
    m = json.loads((folder / "manifest.json").read_text())
    (tmp_path / "outside.npz").write_bytes((folder / m["trunk"]).read_bytes())
    (folder / "part1-00000099-1.npz").symlink_to(tmp_path / "outside.npz")  # (leads out)
    (folder / "link").symlink_to(folder)
    try:
        import ray  # noqa: F401
        cli = True
    except ImportError:
        cli = False
    mutants = _manifest_mutants(m)
    assert len(mutants) > 150
    for what, text in mutants:
        (folder / "manifest.json").write_text(text)
        with pytest.raises(RcfrError):
            DistributedSolver.resume(folder, ray=False)
        if cli:  # (refused before Ray starts: no cluster is needed)
            code, _, err = _run(capsys, ["solve", "leduc", "-a", "cfr+", "-n", "1",
                                         "--distributed", "ray", "--resume", folder])
            _assert_refused(code, err, what)

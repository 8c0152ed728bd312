"""Fuzzing the command line in-process (issue 9): mutated strategy and checkpoint files, and
malformed option values and game strings.  Every bad input must give exit code 2, one
``error:`` line on stderr, no traceback and no file left behind; a mutated file that is still
valid must work (exit 0) exactly when the API loads it."""

from __future__ import annotations

import io
import json
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

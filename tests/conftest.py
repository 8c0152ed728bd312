import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import rcfr
from rcfr.cli import main
from rcfr.forms import threads as _layer  # noqa: F401 (picks numba's threading layer)

# Start numba's threading layer (the one rcfr.forms.threads picks) before a test loads a
# cached parallel kernel and calls it directly: one loaded first crashes (a test file run
# alone).
numba.get_num_threads()


@pytest.fixture(scope="session")
def river_batch(tmp_path_factory):
    """A batch of rcfr spots (tests/data/spots/river_narrow.toml) on four boards, two of one
    class, 20 CFR+ iterations each, stopped after its first board and resumed: (folder,
    batch, the two sweeps' summaries)."""
    from rcfr.experiments.spot_batch import STORE_FILE, make_batch, write_batch
    from rcfr.experiments.store import Store
    from rcfr.experiments.sweep import run_sweep

    river = Path(__file__).parent / "data" / "spots" / "river_narrow.toml"
    folder = tmp_path_factory.mktemp("spots") / "batch"
    boards = folder.parent / "boards.txt"
    boards.write_text("Td9d6hQc2s\nTc9c6hQd2s  # the first with clubs and diamonds swapped\n"
                      "Ah7c4d3s2h 2\n8s8d5c4h3h\n")
    batch = make_batch(str(river), str(boards), {"algorithm": "cfr+", "iterations": 20})
    write_batch(batch, folder)
    summaries = []
    with Store(folder / STORE_FILE) as store:
        def stop(counts, label):
            if counts["done"] == 1:
                raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            run_sweep(batch.sweep(), store, backend="inline", progress=stop)
        summaries.append(store.statuses(r.hash for r in batch.sweep().runs))
        summaries.append(run_sweep(batch.sweep(), store, backend="inline"))
    return folder, batch, summaries


@pytest.fixture(scope="session")
def kuhn():
    return rcfr.compile_game("kuhn")


@pytest.fixture(scope="session")
def leduc():
    return rcfr.compile_game("leduc")


@pytest.fixture(scope="session")
def leduc_canonical():
    return rcfr.compile_game("leduc(canonical=true)")


def random_policy(tree, seed):
    """A random fully mixed behavioural profile."""
    rng = np.random.default_rng(seed)
    return rcfr.TabularPolicy.from_weights(tree, rng.random(tree.num_sequences) + 1e-3)


# the sizes both compiled forms (history, public) must agree on
SIZE_KEYS = ("histories", "terminals", "chance_nodes", "decision_nodes", "infosets",
             "sequences", "infosets_per_player", "sequences_per_player")


def assert_same_forms(history, public) -> None:
    """The history and public forms of one game have the same sizes and the same information
    sets (by key), each once."""
    hs, ts = history.sizes(), public.sizes()
    assert {k: ts[k] for k in SIZE_KEYS} == {k: hs[k] for k in SIZE_KEYS}
    for p in (0, 1):
        ours, theirs = public.player_infosets(p), history.player_infosets(p)
        assert sorted(public.infoset_keys[ours.start : ours.stop]) == sorted(
            history.infoset_keys[theirs.start : theirs.stop])


def run_cli(capsys, *args) -> tuple[int, str, str]:
    """``rcfr ARGS`` in this process: the exit code, standard output and standard error."""
    code = main([str(a) for a in args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def one_line_error(code: int, err: str) -> str:
    """The one ``error:`` line (exit code 2, no traceback) a bad input must give."""
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def arrays_on_threads(module: str, function: str, threads: int, folder: Path,
                      args: str = "") -> dict[str, np.ndarray]:
    """``module.function(args)``'s arrays (a dict of them) computed in a fresh interpreter
    whose numba pool has ``threads`` threads: numba fixes its pool size when it loads."""
    path = folder / f"{function}-{threads}.npz"
    code = (f"import sys, numpy as np\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
            f"from {module} import {function}\n"
            "from rcfr.forms.threads import kernel_threads\n"
            f"with kernel_threads({threads}) as n:\n    assert n == {threads}, n\n"
            f"    np.savez({str(path)!r}, **{function}({args}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, NUMBA_NUM_THREADS=str(threads)), timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(np.load(path))

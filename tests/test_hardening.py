"""Issue 30's hardening, the points after the store and spec validation (tests/test_fuzz.py):
a failed checkpoint keeps the other outputs, ``sklearn:`` takes only regressor classes, option
conflicts are refused, torch layer lists are checked and counted, seeds repeat, game-string
parameters are bounded, evaluation is judged by its own memory, and help/version import
nothing heavy."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from conftest import one_line_error
from conftest import run_cli as run

# -- a failed checkpoint write ---------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_failed_checkpoint_still_writes_the_strategies(capsys, tmp_path):
    out, current = tmp_path / "avg.npz", tmp_path / "cur.npz"
    code, _, err = run(capsys, "solve", "kuhn", "-n", "20", "--checkpoint", "/dev/full",
                       "-o", out, "--out-current", current)
    line = one_line_error(code, err)
    assert "/dev/full" in line
    assert out.is_file() and current.is_file()  # the work is not lost
    with np.load(out, allow_pickle=False) as data:
        assert data["probs"].shape[0] > 0


def test_failed_checkpoint_keeps_the_previous_one(capsys, tmp_path, monkeypatch):
    ck, out = tmp_path / "ck.npz", tmp_path / "avg.npz"
    assert run(capsys, "solve", "kuhn", "-n", "10", "--checkpoint", ck)[0] == 0
    before = ck.read_bytes()
    import rcfr.core.fileio as fileio

    real = fileio.np.savez_compressed

    def full(handle, **arrays):
        if "strategy" in arrays:  # the checkpoint's write fails; the strategies' do not
            raise OSError(28, "No space left on device")
        return real(handle, **arrays)

    monkeypatch.setattr(fileio.np, "savez_compressed", full)
    code, _, err = run(capsys, "solve", "kuhn", "-n", "10", "--resume", ck, "--checkpoint", ck,
                       "-o", out)
    line = one_line_error(code, err)
    assert str(ck) in line and "No space left" in line
    assert ck.read_bytes() == before
    assert out.is_file()


# -- --regressor sklearn:CLASS takes only scikit-learn regressor classes ---------------------


@pytest.mark.parametrize("path", ["os.abort", "sys.exit", "builtins.breakpoint", "os.getcwd",
                                  "sklearn.tree.DecisionTreeClassifier",
                                  "sklearn.preprocessing.StandardScaler", "builtins.int",
                                  "sklearn.tree._classes"])
def test_sklearn_path_must_name_a_regressor_class(capsys, monkeypatch, path):
    import os
    import sys

    def called(*_args, **_kwargs):  # what the path names must never be called
        raise AssertionError(f"{path} was called")

    monkeypatch.setattr(os, "abort", called)
    monkeypatch.setattr(sys, "exit", called)
    monkeypatch.setattr(sys, "breakpointhook", called)
    code, _, err = run(capsys, "solve", "kuhn", "-a", "rcfr", "-n", "2",
                       "--regressor", f"sklearn:{path}")
    line = one_line_error(code, err)
    assert "scikit-learn regressor" in line


def test_sklearn_abort_in_a_real_process():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "rcfr", "solve", "kuhn", "-a", "rcfr", "-n",
                           "2", "--regressor", "sklearn:os.abort"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "scikit-learn regressor" in proc.stderr


def test_sklearn_regressor_class_runs_and_help_says_so(capsys):
    code, out, err = run(capsys, "solve", "kuhn", "-a", "rcfr", "-n", "3", "--regressor",
                         "sklearn:sklearn.tree.DecisionTreeRegressor", "--json")
    assert code == 0, err
    assert json.loads(out)["iterations"] == 3
    code, out, _ = run(capsys, "solve", "--help")
    assert "scikit-learn regressor class" in " ".join(out.split())


# -- option conflicts: refused with one line, or honoured ------------------------------------


def test_spec_with_run_options_is_refused(capsys, tmp_path):
    spec = tmp_path / "run.toml"
    spec.write_text('game = "kuhn"\nalgorithm = "cfr"\niterations = 5\n')
    code, _, err = run(capsys, "solve", "--spec", spec, "-n", "999", "-a", "dcfr", "--seed", "4")
    line = one_line_error(code, err)
    assert "--iterations" in line and "--algorithm" in line and "--seed" in line
    ck = tmp_path / "c.npz"  # where files go is no run option: honoured
    code, out, err = run(capsys, "solve", "--spec", spec, "--checkpoint", ck, "--json")
    assert code == 0, err
    assert json.loads(out)["iterations"] == 5 and ck.is_file()


def test_resume_keeps_the_checkpoints_seed(capsys, tmp_path):
    ck = tmp_path / "ck.npz"
    assert run(capsys, "solve", "kuhn", "-a", "cs", "-n", "10", "--seed", "3",
               "--checkpoint", ck)[0] == 0
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cs", "-n", "10", "--seed", "99",
                       "--resume", ck)
    line = one_line_error(code, err)
    assert "seed 3" in line and "99" in line
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cs", "-n", "10", "--resume", ck,
                         "--json")
    assert code == 0, err
    resumed = json.loads(out)
    assert resumed["seed"] == 3 and resumed["iterations"] == 20
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cs", "-n", "20", "--seed", "3",
                         "--json")
    assert json.loads(out)["exploitability"] == resumed["exploitability"]


def test_iterations_and_nodes_together_are_refused(capsys):
    code, _, err = run(capsys, "solve", "kuhn", "-n", "10", "--nodes", "10")
    line = one_line_error(code, err)
    assert "--iterations" in line and "--nodes" in line
    code, out, err = run(capsys, "solve", "kuhn", "--nodes", "500", "--json")
    assert code == 0 and json.loads(out)["nodes_visited"] >= 500


def test_sweep_base_seed_is_every_runs_seed():
    from rcfr.core.errors import RcfrError
    from rcfr.experiments.spec import parse_sweep

    base = {"game": "kuhn", "algorithm": "cs", "iterations": 5, "seed": 42}
    sweep = parse_sweep({"base": base, "grid": {"algorithm": ["cs", "es"]}})
    assert {r.seed for r in sweep.runs} == {42}
    part = parse_sweep({"base": {"game": "kuhn", "iterations": 5},
                        "part": [{"base": {"algorithm": "cs", "seed": 7}}]})
    assert [r.seed for r in part.runs] == [7]
    with pytest.raises(RcfrError, match="seed.*seeds|seeds.*seed"):
        parse_sweep({"base": base, "seeds": 3, "grid": {"algorithm": ["cs"]}})


# -- torch layer lists: checked, and counted against the memory budget -----------------------


@pytest.mark.parametrize("hidden", ["64,,64", "0", "64,-3", "6.5", "64,x", ",", "64,"])
def test_bad_hidden_layers_are_one_line(capsys, hidden):
    pytest.importorskip("torch")
    code, _, err = run(capsys, "solve", "kuhn", "-a", "rcfr", "-n", "2", "--regressor",
                       "torch-mlp", "--hidden", hidden)
    line = one_line_error(code, err)
    assert "hidden" in line


def test_huge_network_is_refused_by_the_memory_budget(capsys):
    pytest.importorskip("torch")
    code, _, err = run(capsys, "solve", "kuhn", "-a", "rcfr", "-n", "2", "--regressor",
                       "torch-mlp", "--hidden", "100000,100000", "--max-memory", "4G")
    line = one_line_error(code, err)
    assert "network" in line and "--max-memory" in line
    from rcfr.core.budget import network_bytes

    # d=10 -> 100,000 -> 100,000 -> 1: 10,001,300,001 parameters, each with its gradient and
    # Adam's two moments, in float32
    assert network_bytes(10, (100000, 100000), 4) == 4 * 4 * 10_001_300_001


# -- game-string parameters: bounded, one line -----------------------------------------------


@pytest.mark.parametrize("game, words", [
    ("nl_holdem2(stack=1000)", "at most 200"),  # was a RecursionError traceback
    ("nl_holdem2(stack=100000)", "at most 200"),
    ("nl_holdem2(suits=100)", "suits"),
    ("nl_holdem2(ranks=0)", "ranks"),
    ("liars_dice(dice=\u0661)", "ASCII digits"),
    ("liars_dice(dice=1,faces=\u0666)", "ASCII digits"),
    ("kuhn(players=\uff13)", "ASCII digits"),
])
def test_game_parameters_are_bounded(capsys, game, words):
    line = one_line_error(*run(capsys, "games", game)[::2])
    assert words in line


# -- a seed repeats every regressor's run bit for bit ----------------------------------------


def _policy(game: str, algorithm: str, n: int, **options) -> np.ndarray:
    from rcfr.solvers.run import make_solver

    solver = make_solver(game, algorithm, seed=0, **options)
    solver.run(n)
    return solver.average_policy().probs.copy()


@pytest.mark.parametrize("game, algorithm, n, options", [
    # on Leduc, external sampling's minibatch fits differed between 1 and 2 threads (7.7e-8
    # after 3 iterations) before each fit pinned one thread
    ("leduc", "es", 3, {"regressor": "torch-mlp", "hidden": "64", "minibatch": True}),
    ("kuhn", "es", 20, {"regressor": "torch-mlp", "hidden": "64"}),
    ("kuhn", "rcfr", 5, {"regressor": "torch-mlp", "hidden": "64,64"}),
])
def test_torch_regressors_repeat_whatever_the_thread_count(game, algorithm, n, options):
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        two = _policy(game, algorithm, n, **options)
        torch.set_num_threads(1)
        one = _policy(game, algorithm, n, **options)
    finally:
        torch.set_num_threads(before)
    assert torch.get_num_threads() == before
    np.testing.assert_array_equal(one, two)


def test_sklearn_regressor_repeats():
    options = {"regressor": "sklearn:sklearn.neural_network.MLPRegressor"}
    np.testing.assert_array_equal(_policy("kuhn", "rcfr", 3, **options),
                                  _policy("kuhn", "rcfr", 3, **options))


def test_seeded_solve_twice_is_identical(capsys):
    pytest.importorskip("torch")
    args = ("solve", "kuhn", "-a", "es", "--regressor", "torch-mlp", "--hidden", "64",
            "--minibatch", "--seed", "0", "-n", "40", "--json")
    first, second = (json.loads(run(capsys, *args)[1]) for _ in range(2))
    assert first["exploitability"] == second["exploitability"]
    assert first["curve"] == second["curve"]


# -- evaluate is judged by its own peak ------------------------------------------------------


def test_evaluate_counts_what_evaluation_needs(capsys):
    from rcfr.core import budget
    from rcfr.core.errors import RcfrError
    from rcfr.games.registry import load_game

    game = load_game("nl_holdem2(stack=36)")  # 199,672,165 public sequences
    with pytest.raises(RcfrError, match="17.7 GB to compile and solve"):
        budget.check_public(game, "16G")
    with budget.evaluation_only():  # measured: evaluation peaks at 37-41 bytes a sequence
        assert budget.check_public(game, "20G")
        assert budget.check_game(load_game("random_game(seed=1)"), "4100") == 10
    assert budget.check_game(load_game("random_game(seed=1)"), "4500") == 10  # 450 a history
    line = one_line_error(*run(capsys, "evaluate", "nl_holdem2(stack=36)", "--uniform",
                               "--max-memory", "7G")[::2])
    assert "7.62 GB to compile and evaluate" in line


# -- make demo installs the core, make test the extras ---------------------------------------


def _make_rules() -> dict[str, tuple[list[str], list[str]]]:
    """The Makefile's rules: target -> (prerequisites, recipe lines), variables expanded."""
    text = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    variables, rules, current = {}, {}, None
    for line in text.splitlines():
        if line.startswith("\t") and current is not None:
            rules[current][1].append(line.strip())
            continue
        current = None
        if ":=" in line or "?=" in line:
            name, value = (p.strip() for p in line.replace("?=", ":=").split(":=", 1))
            variables[name] = value
        elif ":" in line and not line.startswith(("#", ".")) and "=" not in line:
            target, deps = line.split(":", 1)
            current = target.strip()
            rules[current] = (deps.split(), [])

    def expand(word: str) -> str:
        for _ in range(5):
            for name, value in variables.items():
                word = word.replace(f"$({name})", value)
        return word

    return {expand(t): ([expand(d) for d in deps], [expand(r) for r in recipe])
            for t, (deps, recipe) in rules.items()}


def _installs(rules, target: str, seen=()) -> list[str]:
    """The pip install lines that making ``target`` may run (through its prerequisites)."""
    deps, recipe = rules.get(target, ([], []))
    lines = [r for r in recipe if "pip install" in r and "--upgrade pip" not in r]
    for dep in deps:
        if dep not in seen:
            lines += _installs(rules, dep, (*seen, target))
    return lines


def test_make_demo_installs_only_the_core():
    rules = _make_rules()
    demo = _installs(rules, "demo")
    assert demo and all("[" not in line for line in demo), demo  # no extras: no torch, ray
    test = " ".join(_installs(rules, "test"))
    for extra in ("test", "torch", "openspiel"):
        assert extra in test.split("[", 1)[1], test


# -- rcfr --version and import rcfr load nothing heavy ---------------------------------------


def test_version_and_import_load_nothing_heavy():
    import subprocess
    import sys
    import tomllib

    heavy = ("sklearn", "numba", "scipy", "matplotlib", "torch")
    code = ("import sys\nsys.argv = ['rcfr', '--version']\nfrom rcfr.__main__ import entry\n"
            "try:\n    entry()\nexcept SystemExit as e:\n    assert e.code == 0\n"
            "import rcfr\nassert rcfr.RcfrError\n"
            f"print(','.join(m for m in {heavy!r} if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    first, loaded = proc.stdout.splitlines()
    assert first.startswith("rcfr ") and loaded == ""
    root = Path(__file__).resolve().parents[1]
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["rcfr"] == "rcfr.__main__:entry"


def test_the_lazy_package_exports_what_it_did():
    import rcfr
    import rcfr.evaluate  # noqa: F401 (the submodule does not shadow the function)
    from rcfr.evaluate import evaluate

    assert rcfr.evaluate is evaluate and callable(rcfr.solve)
    assert set(rcfr.__all__) <= set(dir(rcfr))
    for name in rcfr.__all__:
        assert getattr(rcfr, name) is not None


# -- a solve stops at a target exploitability ------------------------------------------------


def test_solve_stops_at_the_target_exploitability(capsys):
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "100000", "--eval-every",
                         "10", "--target-exploitability", "0.01", "--json")
    assert code == 0, err
    info = json.loads(out)
    it = info["target_iteration"]
    assert info["target_reached"] is True and it == info["iterations"] and it % 10 == 0
    assert info["exploitability"] <= 0.01 < dict(info["curve"])[it - 10]
    code, out, err = run(capsys, "solve", "leduc", "-n", "50", "--eval-every", "10",
                         "--target-mbb", "1", "--json")
    info = json.loads(out)
    assert info["target_reached"] is False and info["iterations"] == 50
    import rcfr

    result = rcfr.solve("kuhn", "cfr+", 100000, 10, target_exploitability=0.01)
    assert result.iterations == it and result.target_reached
    line = one_line_error(*run(capsys, "solve", "kuhn", "--target-exploitability", "-1")[::2])
    assert "--target-exploitability" in line


# -- scikit-learn: defaults for every parameter, and checkpoints of SklearnRegressor ---------


def test_tree_regressors_have_defaults():
    from rcfr.regressors import BestFirstTree, RecursivePartitioningTree

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), rng.normal(size=40)
    for tree in (BestFirstTree(), RecursivePartitioningTree()):  # no budget: every row a leaf
        assert tree.fit(X, y).n_leaves_ == 40
        np.testing.assert_allclose(tree.predict(X), y)
    assert BestFirstTree().get_params()["max_leaves"] is None
    assert RecursivePartitioningTree().get_params()["threshold"] == 0.0


@pytest.mark.parametrize("path", ["sklearn.neural_network.MLPRegressor",
                                  "sklearn.linear_model.SGDRegressor",
                                  "sklearn.tree.DecisionTreeRegressor"])
def test_sklearn_regressor_resumes_bit_identically(capsys, tmp_path, path):
    import warnings

    ck, whole = tmp_path / "ck.npz", tmp_path / "whole.npz"
    args = ("solve", "kuhn", "-a", "rcfr", "--regressor", f"sklearn:{path}",
            "--features", "onehot", "--json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(capsys, *args, "-n", "6", "-o", whole)[0] == 0
        assert run(capsys, *args, "-n", "3", "--checkpoint", ck)[0] == 0
        code, out, err = run(capsys, *args, "-n", "3", "--resume", ck, "-o", tmp_path / "r.npz")
    assert code == 0, err
    assert json.loads(out)["iterations"] == 6
    with np.load(whole) as a, np.load(tmp_path / "r.npz") as b:
        np.testing.assert_array_equal(a["probs"], b["probs"])


# -- two drivers creating one store at once --------------------------------------------------


def test_a_store_created_by_another_driver_meanwhile_is_not_damaged(tmp_path):
    from rcfr.experiments.store import Store

    path = tmp_path / "r.db"
    first, second = Store(path), Store(path)
    begin = second.transaction

    def raced():  # the other driver migrates between this one's reading the version and
        first._prepare()  # its transaction (the flaky "damaged (table runs already exists)")
        return begin()

    second.transaction = raced
    try:
        second._prepare()
        assert second.version == first.version > 0
    finally:
        first.close()
        second.close()


def test_a_slow_compile_says_so_on_a_terminal(capsys, monkeypatch):
    import time

    from rcfr import cli

    monkeypatch.setattr(type(cli.err), "is_terminal", property(lambda self: True))
    with cli.notice_if_slow("compiling slowly ...", after=0.05):
        time.sleep(0.5)
    with cli.notice_if_slow("never shown", after=30):
        pass
    assert capsys.readouterr().err.splitlines() == ["compiling slowly ..."]


@pytest.mark.parametrize("argv", [["--help"], ["solve", "--help"], ["sweep", "--help"],
                                  ["games", "--help"]])
def test_help_loads_nothing_heavy(argv):
    """`rcfr --help` and each command's help build the command table without numba, scipy,
    scikit-learn, matplotlib or torch (issue 30: --help took 4 s importing them)."""
    import subprocess
    import sys

    heavy = ("sklearn", "numba", "scipy", "matplotlib", "torch")
    code = (f"import sys\nsys.argv = ['rcfr', *{argv!r}]\nfrom rcfr.__main__ import entry\n"
            "try:\n    entry()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            f"print('LOADED:' + ','.join(m for m in {heavy!r} if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Usage" in proc.stdout
    assert proc.stdout.splitlines()[-1] == "LOADED:"


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux /proc")
def test_a_walk_without_a_closed_form_stays_within_the_memory_budget():
    """A deep game without a closed-form size is refused once its walk has grown the process
    by more than the budget (issue 30: random_game(depth=100) grew to 0.96 GB under a 512 MB
    budget: the frontier's states cost more than the arrays the history count stands for).
    The peak is the kernel's VmHWM, reset before the walk (Linux)."""
    import subprocess
    import sys

    code = (
        "from rcfr.core.budget import memory_limit, resident_bytes\n"
        "from rcfr.core.errors import RcfrError\n"
        "from rcfr.forms.history.tree import compile_history\n"
        "from rcfr.games.registry import load_game\n"
        "compile_history(load_game('random_game(seed=1,depth=3)'))  # imports, kernels\n"
        "game = load_game('random_game(seed=1,depth=100)')\n"
        "open('/proc/self/clear_refs', 'w').write('5')  # the peak (VmHWM) starts again\n"
        "start, budget = resident_bytes(), 96 * 2**20\n"
        "try:\n"
        "    with memory_limit(budget):\n"
        "        compile_history(game)\n"
        "except RcfrError as e:\n"
        "    print(e)\n"
        "status = open('/proc/self/status').read().split('VmHWM:')[1].split()\n"
        "peak = int(status[0]) * 1024\n"
        "print(peak - start <= budget + 16 * 2**20, peak - start, start, peak)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    message, within = proc.stdout.splitlines()
    assert "passed the memory limit" in message and "histories" in message
    assert within.split()[0] == "True", (within, message)


@pytest.mark.parametrize("game", ["random_game(seed=1,depth=100)",
                                  "random_game(seed=1,branching=1000)"])
def test_a_walk_without_a_closed_form_stops_at_the_time_bound(capsys, game):
    """--max-time bounds the walk that counts a game without a closed-form size (issue 30:
    these two ran on past 150 s under --max-memory 4G): one line naming the bound."""
    line = one_line_error(*run(capsys, "games", game, "--max-time", "1")[::2])
    assert "passed the time limit of 1 s after" in line and "--max-time" in line
    for bad in ("0", "-1", "inf", "nan"):
        line = one_line_error(*run(capsys, "games", "kuhn", "--max-time", bad)[::2])
        assert "--max-time must be a positive number of seconds" in line
    code, out, _ = run(capsys, "games", "kuhn", "--max-time", "1")  # a closed form: no walk
    assert code == 0 and "58" in out


def test_the_walk_looks_at_the_clock_every_few_thousand_histories(monkeypatch):
    """The walk looks at the clock (and the memory) every WALK_CHECK histories reached, not
    only every WALK_CHECK expanded: a 1000-way branching reaches 4 million histories in 4,096
    expansions.  A clock that jumps past the bound at its second reading stops the walk at
    its first look."""
    from types import SimpleNamespace

    from rcfr.core.budget import set_time_limit
    from rcfr.core.errors import RcfrError
    from rcfr.forms.history import tree as history_tree
    from rcfr.games.registry import load_game

    readings = iter([0.0] + [100.0] * 10)
    monkeypatch.setattr(history_tree, "time", SimpleNamespace(monotonic=lambda: next(readings)))
    set_time_limit(5)
    try:
        with pytest.raises(RcfrError, match="time limit of 5 s after") as info:
            history_tree.compile_history(load_game("random_game(seed=1,branching=1000)"))
    finally:
        set_time_limit(None)
    reached = int(str(info.value).split(" after ")[1].split()[0].replace(",", ""))
    assert history_tree.WALK_CHECK <= reached < history_tree.WALK_CHECK + 1000


# -- every output option on a device, a FIFO and a symlink (issue 30) ------------------------
def _outputs(tmp_path: Path) -> dict:
    """Each file output the command line has: a function of the path that runs it."""
    from rcfr.experiments.store import Store

    with Store(tmp_path / "r.db"):
        pass
    return {
        "solve -o": lambda p: ["solve", "kuhn", "-n", 5, "-o", p],
        "solve --out-current": lambda p: ["solve", "kuhn", "-n", 5, "--out-current", p],
        "solve --checkpoint": lambda p: ["solve", "kuhn", "-n", 5, "--checkpoint", p],
        "lp --out": lambda p: ["lp", "kuhn", "--out", p],
        "resolve -o": lambda p: ["resolve", "kuhn", tmp_path / "k.npz", "--at", "chance:1", "-n",
                                  5, "-o", p],
        "results --csv": lambda p: ["results", "--db", tmp_path / "r.db", "--csv", p],
        "figure -o": lambda p: ["figure", "thesis_4_1", "--quick", "--db", tmp_path / "r.db",
                                "--no-run", "-o", p],
        "figure --data": lambda p: ["figure", "thesis_4_1", "--quick", "--db",
                                    tmp_path / "r.db", "--no-run", "-o", tmp_path / "f.png",
                                    "--data", p],
    }


@pytest.mark.parametrize("kind", ["device", "symlink", "dangling symlink"])
def test_every_output_option_writes_through_special_files(capsys, tmp_path, kind):
    """A character device is written through, never renamed over (`-o /dev/null` as root left
    /dev/null a regular file, and so did --checkpoint, --out-current, lp --out, results --csv
    and figure --data); a symlink's target is replaced and the link stays; nothing temporary
    is left beside them."""
    import stat

    assert run(capsys, "solve", "kuhn", "-n", 5, "-o", tmp_path / "k.npz")[0] == 0
    for name, argv in _outputs(tmp_path).items():
        folder = tmp_path / name.replace(" ", "").replace("-", "")
        folder.mkdir()
        path = folder / "out"
        if kind == "device":
            try:
                os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null of ours
            except (PermissionError, OSError):
                pytest.skip("creating a device node needs root")
        else:
            real = folder / "real"
            if kind == "symlink":
                real.write_bytes(b"old")
            path.symlink_to(real)
        code, _, err = run(capsys, *argv(path))
        assert code == 0 and "Traceback" not in err, (name, err)
        mode = os.lstat(path).st_mode
        if kind == "device":
            assert stat.S_ISCHR(mode), name
        else:
            assert stat.S_ISLNK(mode) and (folder / "real").read_bytes() not in (b"", b"old"), \
                name
        names = sorted(p.name for p in folder.iterdir() if p.name != "out.curve.json")
        assert names in (["out"], ["out", "real"]), name  # (solve keeps a checkpoint's curve
        # beside it, out.curve.json, where the checkpoint is a file or a link: not a leftover)
        assert kind in ("symlink", "dangling symlink") or not (folder / "out.curve.json").exists()


def test_every_output_option_refuses_a_fifo_or_a_socket(capsys, tmp_path):
    """A FIFO as an output (or a link to one) is refused before any work with one line: with
    no reader, writing it blocked the command silently forever.  A socket is refused too."""
    import socket
    import stat

    assert run(capsys, "solve", "kuhn", "-n", 5, "-o", tmp_path / "k.npz")[0] == 0
    for name, argv in _outputs(tmp_path).items():
        folder = tmp_path / name.replace(" ", "").replace("-", "")
        folder.mkdir()
        os.mkfifo(folder / "fifo")
        (folder / "link").symlink_to(folder / "fifo")
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(folder / "sock"))
            for path, what in ((folder / "fifo", "FIFO"), (folder / "link", "FIFO"),
                               (folder / "sock", "not a regular file")):
                line = one_line_error(*run(capsys, *argv(path))[::2])
                assert what in line and str(path) in line, (name, line)
        assert stat.S_ISFIFO(os.stat(folder / "fifo").st_mode), name
        assert sorted(p.name for p in folder.iterdir()) == ["fifo", "link", "sock"], name


def test_the_viewer_writes_into_a_symlinked_folder(capsys, tmp_path):
    """``view -o LINK``: the folder the link names gets the site and the link stays (it was
    replaced by a folder of its own; a dangling link failed on an internal temporary name); a
    device or FIFO is refused with one line."""
    assert run(capsys, "solve", "kuhn", "-n", 5, "-o", tmp_path / "k.npz")[0] == 0
    for target in (tmp_path / "site", tmp_path / "new"):
        if target.name == "site":
            target.mkdir()
        link = tmp_path / f"{target.name}-link"
        link.symlink_to(target)
        for _ in range(2):  # a fresh site, then one replacing it
            code, _, err = run(capsys, "view", "kuhn", tmp_path / "k.npz", "-o", link)
            assert code == 0, err
            assert link.is_symlink() and (target / "index.html").is_file()
    os.mkfifo(tmp_path / "fifo")
    line = one_line_error(*run(capsys, "view", "kuhn", tmp_path / "k.npz", "-o",
                               tmp_path / "fifo")[::2])
    assert "is not a folder" in line
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


# -- plain options that gave tracebacks, and the guard over the new drivers ------------------


@pytest.mark.parametrize("game, algorithm, abstraction, options, complexity", [
    ("kuhn", "sd-cfr", "identity", ["--traversals", "4", "--train-steps", "2"], 24),
    ("leduc", "xfp", "J.QK", [], 308),  # Leduc's J.QK abstraction: 308 of 2,184 sequences
])
def test_abstraction_with_the_new_drivers(capsys, game, algorithm, abstraction, options,
                                          complexity):
    code, out, err = run(capsys, "solve", game, "-a", algorithm, "--abstraction", abstraction,
                         "-n", "2", "--json", *options)
    assert code == 0, err  # was a TypeError: the drivers have no complexity of their own
    result = json.loads(out)
    assert result["complexity"] == complexity and result["abstraction"] == abstraction
    import rcfr

    api = rcfr.solve(game, algorithm, 2, abstraction=abstraction,
                     **{k.lstrip("-").replace("-", "_"): int(v)
                        for k, v in zip(options[::2], options[1::2], strict=True)})
    assert api.to_dict()["complexity"] == complexity


def test_lp_of_a_game_auto_compiles_publicly(capsys):
    # liar's dice with two dice against one: "auto" picks the public form, which the LP cannot
    # read (was an AttributeError); the LP compiles the history form, which the guard refuses
    code, _, err = run(capsys, "lp", "liars_dice(dice=2,dice2=1)", "--max-memory", "1G")
    line = one_line_error(code, err)
    assert "113,246,035 histories" in line and "--max-memory" in line
    import rcfr

    public = rcfr.compile_game("kuhn", form="public")
    assert rcfr.solve_lp(public).value == pytest.approx(-1 / 18, abs=1e-9)


def test_the_guard_sizes_the_lps_own_matrices():
    import rcfr
    from rcfr.core.budget import LP_BYTES_PER_TERMINAL
    from rcfr.core.errors import RcfrError

    tree = rcfr.compile_game("leduc")  # compiled already: only the LP is left to size
    need = LP_BYTES_PER_TERMINAL * 5520  # Leduc's 5,520 terminal histories
    assert len(tree.terminal_coef) == 5520
    with pytest.raises(RcfrError, match="sequence-form LP of leduc has 5,520 terminal"):
        rcfr.solve_lp(tree, max_memory=need - 1)
    assert rcfr.solve_lp(tree, max_memory=need).value == pytest.approx(-0.0856064, abs=1e-6)


def test_game_module_that_exits(capsys, tmp_path):
    module = tmp_path / "exits_on_import_x.py"
    module.write_text("import sys\nsys.exit(3)\n")
    code, _, err = run(capsys, "--game-module", module, "games")  # was a SystemExit
    line = one_line_error(code, err)
    assert "sys.exit(3)" in line


BIG = str(2**62)


@pytest.mark.parametrize("algorithm, options, words", [
    ("nfsp", ["--hidden", "100000,100000"], "networks (--hidden)"),  # was _ArrayMemoryError
    ("sd-cfr", ["--hidden", "100000,100000"], "networks (--hidden)"),
    ("nfsp", ["--hidden", "30000,30000", "--max-memory", "1G"], "the limit is 1 GB"),
    ("deep-cfr", ["--hidden", "30000,30000", "--max-memory", "1G"], "the limit is 1 GB"),
    ("dream", ["--network", "embed", "--hidden", "100000"], "networks (--hidden)"),
    ("nfsp", ["--rl-memory", BIG], "M_RL (--rl-memory)"),
    ("nfsp", ["--sl-memory", BIG], "M_SL (--sl-memory)"),
    ("nfsp", ["--batch-size", BIG], "(--batch-size)"),
    ("deep-cfr", ["--memory", BIG], "reservoirs (--memory)"),
    ("dream", ["--q-memory", BIG], "Q-memory (--q-memory)"),
    ("fsp", ["--fsp-episodes", BIG], "games (--fsp-episodes)"),
    ("deep-cfr", ["--traversals", BIG], "traversal rows (--traversals)"),
    ("deep-cfr", ["--train-steps", BIG], "more than any machine finishes"),
    ("deep-cfr", ["--policy-steps", BIG], "--policy-steps x --batch-size"),
    ("dream", ["--q-steps", BIG], "--q-steps x --batch-size"),  # looped until killed
    ("sd-cfr", ["--hidden", "3000", "-n", "100000", "--max-memory", "1G"],
     "kept networks (--hidden x --iterations)"),
])
def test_the_guard_counts_the_new_drivers(capsys, algorithm, options, words):
    args = ["solve", "kuhn", "-a", algorithm, *options]
    code, _, err = run(capsys, *args, *([] if "-n" in options else ["-n", "1"]))
    line = one_line_error(code, err)
    assert words in line


@pytest.mark.parametrize("algorithm, options", [
    ("nfsp", {"hidden": "32", "rl_memory": 5000, "sl_memory": 7000, "envs": 8}),
    ("deep-cfr", {"hidden": "16,16", "memory": 3000, "traversals": 8, "train_steps": 4}),
    ("dream", {"hidden": "16", "memory": 3000, "q_memory": 2000, "traversals": 8,
               "train_steps": 4}),
])
def test_what_the_guard_counts_covers_what_is_allocated(monkeypatch, algorithm, options):
    """The guard's count is at least the bytes of the arrays the driver then holds."""
    import rcfr.core.budget as budget
    from rcfr.solvers.run import make_solver

    counted: list[float] = []
    real = budget.check_allocations

    def spy(what, parts, max_memory=None):
        counted.append(sum(parts.values()))
        return real(what, parts, max_memory)

    for module in ("rcfr.solvers.fp.nfsp", "rcfr.solvers.deep.deep_cfr",
                   "rcfr.solvers.deep.dream"):
        monkeypatch.setattr(f"{module}.check_allocations", spy)
    solver = make_solver("kuhn", algorithm, **options)
    solver.run(2)
    seen: set[int] = set()

    def held(obj, depth=0) -> int:
        if isinstance(obj, np.ndarray):
            base = obj if obj.base is None else obj.base
            if id(base) in seen or not isinstance(base, np.ndarray):
                return 0
            seen.add(id(base))
            return base.nbytes
        if depth > 3 or id(obj) in seen:
            return 0
        seen.add(id(obj))
        if isinstance(obj, (list, tuple)):
            return sum(held(v, depth + 1) for v in obj)
        if isinstance(obj, dict):
            return sum(held(v, depth + 1) for v in obj.values())
        if hasattr(obj, "__dict__") and type(obj).__module__.startswith("rcfr.solvers"):
            return sum(held(v, depth + 1) for v in vars(obj).values())
        return 0

    held(getattr(solver, "features_", []))  # the game's features (seen: not the driver's)
    own = sum(held(v) for k, v in vars(solver).items()
              if k not in ("tree", "game", "pass_", "games_", "features_", "q_features_",
                           "arrays_"))
    assert counted and max(counted) >= own > 0


def test_the_api_refuses_counts_and_non_strategies():
    import rcfr
    from rcfr.core.errors import RcfrError
    from rcfr.solvers import CFRSolver

    with pytest.raises(RcfrError, match="iterations must be a whole number from 1 to"):
        CFRSolver("kuhn").run(2**70)  # ran forever
    with pytest.raises(RcfrError, match="needs a TabularPolicy"):
        rcfr.evaluate(None)  # was an AttributeError
    tree = rcfr.compile_game("kuhn")
    with pytest.raises(RcfrError, match="24 probabilities"):
        rcfr.evaluate(tree, np.zeros(5))  # read past the array
    assert rcfr.evaluate(tree, np.full(24, 0.5)).exploitability == pytest.approx(11 / 24)


# -- outputs against inputs, names on one line, view --serve's exit code -------------------
def test_an_output_may_not_overwrite_what_the_command_reads(capsys, tmp_path):
    """``solve --resume CK -o CK`` overwrote the checkpoint with a strategy (one typo lost a
    long run): every output is checked against the command's inputs, before any work;
    ``--checkpoint CK --resume CK`` (keep checkpointing where it resumed) stays allowed."""
    ck, k = tmp_path / "ck.npz", tmp_path / "k.npz"
    assert run(capsys, "solve", "kuhn", "-n", 5, "--checkpoint", ck, "-o", k)[0] == 0
    ck_bytes, k_bytes = ck.read_bytes(), k.read_bytes()
    link = tmp_path / "link.npz"
    link.symlink_to(ck)
    for flag in ("-o", "--out-current"):
        for target in (ck, link):
            line = one_line_error(*run(capsys, "solve", "kuhn", "-n", 5, "--resume", ck, flag,
                                       target)[::2])
            assert "--resume" in line and flag in line and "destroy" in line
    spec = tmp_path / "run.toml"
    spec.write_text('game = "kuhn"\nalgorithm = "cfr+"\niterations = 5\n')
    spec_text = spec.read_text()
    line = one_line_error(*run(capsys, "solve", "--spec", spec, "-o", spec)[::2])
    assert "--spec" in line
    line = one_line_error(*run(capsys, "resolve", "kuhn", k, "--at", "chance:1", "-n", 5,
                               "-o", k)[::2])
    assert "BLUEPRINT" in line
    from rcfr.experiments.store import Store

    db = tmp_path / "r.db"
    with Store(db):
        pass
    db_bytes = db.read_bytes()
    line = one_line_error(*run(capsys, "results", "--db", db, "--csv", db)[::2])
    assert "--db" in line and "--csv" in line
    assert (ck.read_bytes(), k.read_bytes(), spec.read_text(), db.read_bytes()) == \
        (ck_bytes, k_bytes, spec_text, db_bytes)
    code, _, err = run(capsys, "solve", "kuhn", "-n", 5, "--resume", ck, "--checkpoint", ck)
    assert code == 0, err
    assert np.load(ck)["meta"] is not None and ck.read_bytes() != ck_bytes


def test_a_name_with_a_newline_gives_one_error_line(capsys, tmp_path):
    """A file name with a newline broke the ``error:`` message in two: names are quoted with
    escapes wherever a message prints them."""
    weird = tmp_path / "a\nb"
    for args in (("evaluate", "kuhn", weird / "s.npz"),
                 ("solve", "kuhn", "-n", 5, "-o", weird / "s.npz"),
                 ("solve", "kuhn", "-n", 5, "--resume", weird),
                 ("play", "kuhn", tmp_path / "x\ry.npz")):
        line = one_line_error(*run(capsys, *args)[::2])
        assert "\\n" in line or "\\r" in line, line
    weird.write_bytes(b"not an npz")
    line = one_line_error(*run(capsys, "evaluate", "kuhn", weird)[::2])
    assert repr(str(weird)) in line


def test_view_serve_exits_130_on_ctrl_c(capsys, tmp_path, monkeypatch):
    """``view --serve`` exited 0 on Ctrl-C; the docs say 130, as every command."""
    import http.server

    assert run(capsys, "solve", "kuhn", "-n", 5, "-o", tmp_path / "k.npz")[0] == 0

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(http.server.ThreadingHTTPServer, "serve_forever", interrupted)
    code, out, _ = run(capsys, "view", "kuhn", tmp_path / "k.npz", "-o", tmp_path / "site",
                       "--serve", "--port", 0)
    assert code == 130 and "serving" in out
    assert (tmp_path / "site" / "index.html").is_file()

"""Reliability (issue 9): the memory guard, crash-safe long runs and signals, strict game
strings, outputs checked before work, and the CLI's exit codes, help and version."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import one_line_error
from conftest import run_cli as run

import rcfr
from rcfr.cli import main
from rcfr.core.errors import RcfrError
from rcfr.games.registry import load_game
from rcfr.policy import TabularPolicy

CLI_DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"






# -- the memory guard --------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [
    "kuhn", "leduc", "leduc(canonical=true)", "rps", "matrix(payoffs=[[1,2,3],[0,1,2]])",
    "liars_dice(faces=3)", "liars_dice(dice=2,faces=2)", "liars_dice(faces=4)",
    "liars_dice(dice=2,dice2=1,faces=3)", "liars_dice(dice=1,dice2=2,faces=3)",
    "goofspiel(num_cards=4)", "goofspiel(num_cards=4,points_order=random)",
    "goofspiel(num_cards=3,points_order=ascending)", "nl_one_card(stack=3)",
    "nl_one_card(cards=3,stack=12,ante=2)", "nl_one_card(stack=2,ante=2)",
])
def test_closed_form_sizes_equal_the_compiled_trees(spec):
    from rcfr.core.budget import estimate_size

    est = estimate_size(load_game(spec))
    tree = rcfr.compile_game(spec)
    assert est.histories == tree.num_nodes
    assert not est.at_least
    if est.sequences is not None:
        assert est.sequences == tree.num_sequences


def test_known_sizes_of_large_games():
    from rcfr.core.budget import estimate_size

    # Bluff(1,1): 294,883 histories (Lanctot et al.); Bluff(2,2) bids over 24 values
    assert estimate_size(load_game("liars_dice")).histories == 294_883
    assert estimate_size(load_game("liars_dice(dice=2,faces=6)")).histories == \
        sum(6**k for k in range(4)) + 6**4 * (2**25 - 1)


@pytest.mark.parametrize("args", [
    ("games", "nl_one_card(stack=1000)"),  # (Bluff(2,2)'s sizes come in closed form)
    ("solve", "liars_dice(dice=5)", "-n", "1"),  # the public form's guard, in closed form
    ("solve", "nl_one_card(stack=1000)", "-n", "1"),
    ("evaluate", "leduc", "--uniform", "--max-memory", "1M"),
])
def test_games_beyond_the_budget_are_refused_at_once(capsys, args):
    t0 = time.perf_counter()
    line = one_line_error(*run(capsys, *args)[::2])
    assert time.perf_counter() - t0 < 20  # not built until the kernel kills it
    assert "histories" in line or "sequences" in line
    assert "the limit is" in line and "--max-memory" in line


def test_the_walk_stops_at_the_budget_for_games_without_a_closed_form():
    from rcfr.core.budget import BYTES_PER_HISTORY, estimate_size

    game = load_game("random_game(seed=3,depth=5,branching=3)")
    assert estimate_size(game) is None
    limit = 500 * BYTES_PER_HISTORY
    with pytest.raises(RcfrError, match="more than 500 histories"):
        rcfr.compile_game(game, max_memory=limit)
    assert getattr(game, "_compiled_tree", None) is None
    tree = rcfr.compile_game(game)  # the default budget lets it through
    assert tree.num_nodes > 500


def test_max_memory_parsing_and_default():
    from rcfr.core.budget import parse_memory

    assert parse_memory("4G") == 4 * 2**30
    assert parse_memory("512M") == 512 * 2**20
    assert parse_memory("1.5GB") == int(1.5 * 2**30)
    assert parse_memory(1000) == 1000
    assert 0 < parse_memory(None)
    for bad in ("-1G", "lots", "0", "nan", ""):
        with pytest.raises(RcfrError):
            parse_memory(bad)


@pytest.mark.parametrize("features", ["hashing:100000000", "hashing:99999999999999999999"])
def test_feature_matrices_beyond_the_budget_are_refused(capsys, features):
    line = one_line_error(*run(capsys, "solve", "kuhn", "-a", "rcfr", "--regressor", "ridge",
                               "--features", features, "-n", "1")[::2])
    assert "matrix" in line and "the limit is" in line


# -- signals and periodic checkpoints: real processes -------------------------------------------
def _rcfr(*args, cwd) -> subprocess.Popen:
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    return subprocess.Popen([sys.executable, "-m", "rcfr", *map(str, args)], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(path: Path, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    t0 = time.monotonic()
    while not path.is_file():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < timeout, f"{path} never written"
        time.sleep(0.02)


def _iterations(checkpoint: Path) -> int:
    with np.load(checkpoint, allow_pickle=False) as data:
        return int(json.loads(str(data["meta"][()]))["iterations"])


KILLED = ("cfr+", "rcfr+", "es", "as")


class _Forked:
    """``rcfr.cli.main(args)`` in a forked copy of this process (no start-up cost), with its
    output in files: a real process for real signals."""

    def __init__(self, args, cwd: Path, name: str) -> None:
        self.log = (cwd / f"{name}.out", cwd / f"{name}.err")
        self.pid = os.fork()
        if self.pid == 0:  # the child: never return into pytest
            code = 99
            try:
                os.chdir(cwd)
                for fd, path in zip((1, 2), self.log, strict=True):
                    os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
                sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
                signal.signal(signal.SIGINT, signal.default_int_handler)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                code = main([str(a) for a in args])
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        os.kill(self.pid, signum)

    def wait(self, timeout: float) -> int:
        t0 = time.monotonic()
        while self.poll() is None:
            assert time.monotonic() - t0 < timeout
            time.sleep(0.01)
        return self.returncode

    def communicate(self) -> tuple[str, str]:
        return tuple(p.read_text() for p in self.log)


@pytest.fixture(scope="module")
def signalled(tmp_path_factory):
    """Runs started together: one per algorithm killed with SIGKILL after its first periodic
    checkpoint, one es run stopped with SIGTERM (forked copies of this process), and one rcfr+
    run stopped with SIGINT during its fits (a fresh interpreter, as from a shell)."""
    d = tmp_path_factory.mktemp("signals")
    procs = {"INT": _rcfr("solve", "leduc", "-a", "rcfr+", "-n", 10**9, "--out", "int.npz",
                          "--out-current", "int-current.npz", "--checkpoint", "int.ckpt.npz",
                          "--checkpoint-every", 0.05, cwd=d)}
    for alg in KILLED:
        procs[alg] = _Forked(["solve", "kuhn", "-a", alg, "-n", 10**9, "--eval-every", 0,
                              "--checkpoint", f"{alg}.ckpt.npz", "--checkpoint-every", 0.05],
                             d, alg)
    procs["TERM"] = _Forked(["solve", "kuhn", "-a", "es", "-n", 10**9, "--json", "--out",
                             "term.npz", "--checkpoint", "term.ckpt.npz", "--checkpoint-every",
                             0.05], d, "term")
    sent = {alg: signal.SIGKILL for alg in KILLED} | {"INT": signal.SIGINT,
                                                      "TERM": signal.SIGTERM}
    names = {alg: f"{alg}.ckpt.npz" for alg in KILLED} | {"INT": "int.ckpt.npz",
                                                          "TERM": "term.ckpt.npz"}
    for key in ("cfr+", "rcfr+", "es", "as", "TERM", "INT"):
        _wait_for(d / names[key], procs[key])
        procs[key].send_signal(sent[key])
    results = {key: (proc.wait(timeout=120), *proc.communicate()) for key, proc in procs.items()}
    return d, results


def test_sigint_during_rcfr_fits_stops_cleanly_and_writes_everything(signalled):
    d, results = signalled
    code, out, err = results["INT"]
    assert code == 130
    assert "Traceback" not in err and "SystemError" not in err
    assert "interrupted by SIGINT after iteration" in err
    assert "int.ckpt.npz" in err and "int.npz" in err
    done = _iterations(d / "int.ckpt.npz")
    assert done > 0
    avg = TabularPolicy.load(d / "int.npz", "leduc")
    assert avg.metadata["iterations"] == done  # the checkpoint is the state that made it
    assert TabularPolicy.load(d / "int-current.npz", "leduc").metadata["iterations"] == done
    assert f"{done:,} iterations" in out


def test_sigterm_exits_143_with_json_and_files(signalled):
    d, results = signalled
    code, out, err = results["TERM"]
    assert code == 143
    assert "Traceback" not in err
    info = json.loads(out)
    assert info["interrupted"] is True
    assert info["iterations"] == _iterations(d / "term.ckpt.npz")
    assert (d / "term.npz").is_file()


@pytest.mark.parametrize("alg", KILLED)
def test_after_kill_9_the_periodic_checkpoint_resumes_bit_identically(capsys, signalled, alg):
    d, results = signalled
    assert results[alg][0] == -signal.SIGKILL
    ckpt = d / f"{alg}.ckpt.npz"
    done = _iterations(ckpt)
    assert done > 0
    more = 37
    resumed, whole = d / f"{alg}-resumed.npz", d / f"{alg}-whole.npz"
    code, _, err = run(capsys, "solve", "kuhn", "-a", alg, "-n", more, "--eval-every", 0,
                       "--resume", ckpt, "--out", resumed)
    assert code == 0, err
    code, _, err = run(capsys, "solve", "kuhn", "-a", alg, "-n", done + more, "--eval-every", 0,
                       "--out", whole)
    assert code == 0, err
    a, b = TabularPolicy.load(resumed, "kuhn"), TabularPolicy.load(whole, "kuhn")
    assert a.metadata["iterations"] == b.metadata["iterations"] == done + more
    np.testing.assert_array_equal(a.probs, b.probs)


def test_ctrl_c_outside_the_solver_loop_exits_130(capsys, monkeypatch):
    import rcfr.cli as cli

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "compile_history_form", boom)  # the LP's compile
    code, out, err = run(capsys, "lp", "kuhn")
    assert code == 130
    assert "Traceback" not in err


def test_a_keyboard_interrupt_turned_into_a_system_error_by_numba_exits_130(capsys, monkeypatch):
    import rcfr.cli as cli

    def boom(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            error = SystemError("returned a result with an exception set")  # as numba does
            raise error  # noqa: B904

    monkeypatch.setattr(cli, "solve_lp", boom)
    code, _, err = run(capsys, "lp", "kuhn")
    assert code == 130 and "Traceback" not in err


def test_typer_exit_codes_reach_the_caller(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("rcfr ")
    assert main(["solve", "--help"]) == 0


# -- outputs checked before any work -----------------------------------------------------------
def test_unwritable_output_is_refused_before_solving(capsys, monkeypatch, tmp_path):
    import rcfr.cli as cli

    def never(*args, **kwargs):
        raise AssertionError("the game was compiled before the outputs were checked")

    monkeypatch.setattr(cli, "compile_game", never)
    monkeypatch.setattr("rcfr.forms.compile.compile_game", never)  # what solve's run compiles by
    line = one_line_error(*run(capsys, "solve", "leduc", "-n", 300000, "--out",
                               "/sys/x.npz")[::2])
    assert "/sys/x.npz" in line and ".tmp" not in line


def test_figure_writes_nothing_when_its_data_file_cannot_be_written(capsys, tmp_path,
                                                                   monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_line_error(*run(capsys, "figure", "convergence_leduc", "--quick", "--db", "r.db",
                               "-o", "f.png", "--data", "/sys/f.json")[::2])
    assert "/sys/f.json" in line
    assert list(tmp_path.iterdir()) == []


def test_out_and_checkpoint_may_not_be_the_same_file(capsys, tmp_path):
    f = tmp_path / "x.npz"
    line = one_line_error(*run(capsys, "solve", "kuhn", "-n", 5, "--out", f, "--checkpoint",
                               tmp_path / "." / "x.npz")[::2])
    assert "--out" in line and "--checkpoint" in line
    assert not f.exists()


def test_checkpoint_every_needs_a_checkpoint_and_a_positive_number(capsys, tmp_path):
    one_line_error(*run(capsys, "solve", "kuhn", "--checkpoint-every", 5)[::2])
    for bad in ("0", "-1", "nan", "inf"):
        one_line_error(*run(capsys, "solve", "kuhn", "--checkpoint", tmp_path / "c.npz",
                            "--checkpoint-every", bad)[::2])
    assert list(tmp_path.iterdir()) == []


# -- values the kernels cannot take ------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("solve", "kuhn", "-n", "99999999999999999999"),
    ("solve", "kuhn", "-a", "es", "--nodes", "99999999999999999999"),
    ("solve", "kuhn", "-a", "es", "--seed", "-1", "-n", "5"),
    ("solve", "kuhn", "-a", "as", "--seed", "-1", "-n", "5"),
    ("solve", "kuhn", "-a", "os", "--seed", "-1", "-n", "5"),
    ("solve", "kuhn", "--eval-every", "-3"),
    ("figure", "convergence_leduc", "--quick", "--share", "nan"),
    ("figure", "convergence_leduc", "--quick", "--share", "1e30"),
    ("figure", "thesis_4_1", "--quick", "--workers", "0"),
    ("figure", "thesis_4_1", "--quick", "--checkpoint-every", "0"),
])
def test_out_of_range_values_give_one_line(capsys, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    one_line_error(*run(capsys, *args)[::2])
    assert list(tmp_path.iterdir()) == []


def test_play_with_a_negative_seed(capsys, tmp_path):
    f = tmp_path / "k.npz"
    assert main(["solve", "kuhn", "-n", "5", "--out", str(f)]) == 0
    capsys.readouterr()
    one_line_error(*run(capsys, "play", "kuhn", f, "--seed", "-1")[::2])


# -- game strings ------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, expected", [
    ("kuhn(players=3)", "game 'kuhn' has no parameter 'players'; parameters: none"),
    ("kuhn(foo=1)", "has no parameter 'foo'"),
    ("kuhn(,)", "empty parameter"),
    ("leduc(canonical=true,)", "empty parameter"),
    ("leduc(canonical=true,canonical=false)", "given twice"),
    ("liars_dice(dice=1,dice=2)", "given twice"),
    ("leduc(suits=2)", "parameters: canonical"),
    ("rps(n=3)", "parameters: none"),
    ("liars_dice(players=3)", "parameters: dice, faces"),
])
def test_unknown_repeated_and_empty_parameters_are_refused(capsys, spec, expected):
    line = one_line_error(*run(capsys, "games", spec)[::2])
    assert expected in line
    with pytest.raises(RcfrError):
        load_game(spec)


# -- files -------------------------------------------------------------------------------------
def test_a_folder_given_as_a_strategy(capsys, tmp_path):
    line = one_line_error(*run(capsys, "evaluate", "kuhn", tmp_path)[::2])
    assert "is a folder" in line and "no such file" not in line


def test_same_named_game_with_other_rules_says_what_differs(capsys, tmp_path):
    f = tmp_path / "k.npz"
    TabularPolicy.uniform("kuhn").save(f)
    with np.load(f, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays.pop("meta")[()]))
    meta["fingerprint"] = "0" * 32  # as if written by an older version of kuhn's rules
    np.savez(f, meta=np.array(json.dumps(meta)), **arrays)
    line = one_line_error(*run(capsys, "evaluate", "kuhn", f)[::2])
    assert "another version of the game's rules" in line
    assert "holds a strategy for 'kuhn', not for 'kuhn'" not in line
    meta["num_sequences"] = 30
    np.savez(f, meta=np.array(json.dumps(meta)), **arrays)
    line = one_line_error(*run(capsys, "evaluate", "kuhn", f)[::2])
    assert "30 sequences" in line and "24" in line


# -- help, version, output ---------------------------------------------------------------------
def test_help_texts(capsys):
    assert main(["solve", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Iterations to run (with --resume: further iterations" in text
    assert "--checkpoint-every" in text and "--max-memory" in text
    assert "must match the run that wrote it" in text
    assert "rm (= poly:2" in text
    assert main(["figure", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "thesis_4_1" in text and "[default: results.db]" in text
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "--version" in text and "--game-module" in text


def test_output_is_not_wrapped_when_not_on_a_terminal(capsys, tmp_path):
    f = tmp_path / ("a_long_folder_name_" * 5) / "strategy-with-a-long-name.npz"
    f.parent.mkdir()
    code, out, err = run(capsys, "solve", "kuhn", "-n", 5, "--out", f)
    assert code == 0, err
    assert f"  average strategy -> {f}" in out.splitlines()


def test_the_cli_docs_describe_games_json_as_it_is(capsys):
    rows = json.loads(run(capsys, "games", "kuhn", "--json")[1])
    assert isinstance(rows, list) and rows[0]["name"] == "kuhn"
    text = " ".join(CLI_DOCS.read_text().split())
    assert "`games` gives a list of objects" in text


# -- custom games from the command line --------------------------------------------------------
CUSTOM = '''
from rcfr.games import register
from rcfr.games.protocol import CHANCE, TERMINAL, Game, State


class CoinState(State):
    """Matching pennies with a coin flip deciding the stakes (1 or 2)."""

    def __init__(self, stake=None, moves=()):
        self.stake, self.moves = stake, moves

    def current_player(self):
        if self.stake is None:
            return CHANCE
        return TERMINAL if len(self.moves) == 2 else len(self.moves)

    def chance_outcomes(self):
        return [(1, 0.5), (2, 0.5)]

    def player_actions(self, player):
        return [0, 1]

    def apply_action(self, action):
        if self.stake is None:
            self.stake = action
        else:
            self.moves = self.moves + (action,)

    def returns(self):
        win = self.stake if self.moves[0] == self.moves[1] else -self.stake
        return [win, -win]

    def information_state_string(self, player=None):
        p = self.current_player() if player is None else player
        return f"p{p} stake {self.stake}" if p == 0 else f"p{p}"

    def action_to_string(self, player, action):
        return f"stake {action}" if player == CHANCE else "heads tails".split()[action]

    def clone(self):
        return CoinState(self.stake, self.moves)


class CoinGame(Game):
    short_name = "coin_pennies"

    def __init__(self, scale: int = 1):
        super().__init__(scale=scale)

    def defaults(self):
        return {"scale": 1}

    def new_initial_state(self):
        return CoinState()

    def num_distinct_actions(self):
        return 2


register("coin_pennies", CoinGame, "matching pennies with random stakes")
'''


def test_game_module_registers_custom_games_for_the_cli(capsys, tmp_path, monkeypatch):
    (tmp_path / "my_games_issue9.py").write_text(CUSTOM)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    code, out, err = run(capsys, "--game-module", "my_games_issue9", "lp", "coin_pennies",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == pytest.approx(0.0, abs=1e-9)
    code, out, err = run(capsys, "--game-module", "my_games_issue9", "games", "coin_pennies",
                         "--json")
    assert json.loads(out)[0]["histories"] == 1 + 2 + 4 + 8
    one_line_error(*run(capsys, "--game-module", "no_such_module_issue9", "games")[::2])
    one_line_error(*run(capsys, "--game-module", "my_games_issue9", "games",
                        "coin_pennies(foo=1)")[::2])


# -- sweeps that achieve nothing (issue 30) ---------------------------------------------------
def _inline_workers(monkeypatch) -> None:
    import rcfr.experiments.sweep as sweep
    from rcfr.experiments.runners import run_inline

    monkeypatch.setattr(sweep, "run_local", lambda specs, directory, *, workers, **kw:
                        run_inline(specs, directory, **kw))


def test_a_sweep_whose_runs_all_fail_exits_1(capsys, tmp_path, monkeypatch):
    """Scripts and CI see a sweep that ran runs and finished none: exit code 1."""
    _inline_workers(monkeypatch)
    spec = tmp_path / "s.toml"
    spec.write_text("[base]\ngame = \"kuhn(players=3)\"\niterations = 5\n"
                    "[grid]\nalgorithm = [\"cfr\", \"cfr+\"]\n")
    code, out, _ = run(capsys, "sweep", spec, "--db", tmp_path / "r.db")
    assert code == 1 and "0 done, 2 failed" in out
    code, out, _ = run(capsys, "sweep", spec, "--db", tmp_path / "r.db", "--json")
    assert code == 1 and json.loads(out)["failed"] == 2
    spec.write_text(spec.read_text().replace("(players=3)", ""))
    code, out, _ = run(capsys, "sweep", spec, "--db", tmp_path / "r.db")
    assert code == 0 and "2 done, 0 failed" in out
    code, out, _ = run(capsys, "sweep", spec, "--db", tmp_path / "r.db")  # nothing to run
    assert code == 0 and "0 to run" in out


def test_a_sweep_says_when_seeds_repeat_a_deterministic_run(capsys, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text("seeds = 5\n[base]\ngame = \"kuhn\"\niterations = 5\n"
                    "[grid]\nalgorithm = [\"cfr\", \"es\"]\n")
    code, out, _ = run(capsys, "sweep", spec, "--db", tmp_path / "r.db", "--dry-run")
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert code == 0 and len(notes) == 1 and "4 of its runs" in notes[0], out


def test_two_sweep_drivers_on_one_store_share_the_runs(tmp_path):
    """Issue 30: two ``rcfr sweep`` processes on one store run each of a 12-run spec once
    between them (the second skips the runs the first holds): exactly 12 rows afterwards,
    each equal to a direct solve."""
    from rcfr.experiments.spec import load_sweep
    from rcfr.experiments.store import Store
    from rcfr.run.engine import run_spec

    spec = tmp_path / "s.toml"
    spec.write_text("[base]\ngame = \"kuhn\"\neval_every = 0\n[grid]\n"
                    "algorithm = [\"cfr\", \"cfr+\", \"lcfr\", \"dcfr\"]\n"
                    "iterations = [5000, 10000, 15000]\n")
    rcfr_bin = Path(sys.executable).with_name("rcfr")
    drivers = [subprocess.Popen([str(rcfr_bin), "sweep", str(spec), "--db", "r.db"],
                                cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for _ in range(2)]
    outs = [d.communicate(timeout=300) for d in drivers]
    assert [d.returncode for d in drivers] == [0, 0], outs
    ran = [int(out.split("ran ", 1)[1].split()[0]) for out, _ in outs]
    assert sum(ran) == 12, outs  # no run ran twice
    sweep = load_sweep(spec)
    with Store(tmp_path / "r.db", readonly=True) as store:
        rows = {r["hash"]: r for r in store.runs()}
    assert len(rows) == 12 and set(rows) == set(sweep.hashes())
    for one in sweep.runs:
        row = rows[one.hash]
        direct = run_spec(one).evaluation
        assert row["status"] == "done" and row["exploitability"] == direct.exploitability
        assert row["value"] == direct.value


# -- outputs that are not plain files (issue 30) -------------------------------------------------
def test_outputs_that_are_not_plain_files(capsys, tmp_path):
    """A character device is written through (never renamed over), a FIFO refused (with no
    reader it would block), a symlink's target is replaced (the link stays), ``--db`` on a
    device is refused."""
    import stat

    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null of our own
    except (PermissionError, OSError):
        device = None
    if device is not None:
        code, _, err = run(capsys, "solve", "kuhn", "-n", 5, "-o", device,
                           "--checkpoint", tmp_path / "c.npz", "--out-current", tmp_path / "x")
        assert code == 0, err
        assert stat.S_ISCHR(os.lstat(device).st_mode)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    line = one_line_error(*run(capsys, "solve", "kuhn", "-n", 5, "-o", fifo)[::2])
    assert "FIFO" in line
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    real = tmp_path / "real.npz"
    real.write_bytes(b"old")
    link = tmp_path / "link.npz"
    link.symlink_to(real)
    code, _, err = run(capsys, "solve", "kuhn", "-n", 5, "-o", link)
    assert code == 0 and link.is_symlink() and real.read_bytes()[:2] == b"PK", err
    assert TabularPolicy.load(link, "kuhn") is not None
    assert not [p for p in tmp_path.iterdir() if p.name.endswith((".tmp", ".probe"))]
    if device is not None:
        code, _, err = run(capsys, "results", "--db", device)
        assert code == 2 and "not a regular file" in one_line_error(code, err)
        code, _, err = run(capsys, "sweep", "thesis_4_1_quick", "--db", device)
        assert code == 2 and "not a regular file" in one_line_error(code, err)
        assert stat.S_ISCHR(os.lstat(device).st_mode)
        assert not (tmp_path / "null-journal").exists() and not (tmp_path / "null-wal").exists()


def test_a_failed_checkpoint_write_names_the_file_and_keeps_the_previous_one(
        capsys, tmp_path, monkeypatch):
    import errno

    import rcfr.core.fileio as fileio

    ckpt = tmp_path / "c.npz"
    code, _, err = run(capsys, "solve", "kuhn", "-n", 5, "--checkpoint", ckpt)
    assert code == 0, err
    before = ckpt.read_bytes()
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.handle, name)

    monkeypatch.setattr(fileio.os, "fdopen", lambda fd, mode: Full(real_fdopen(fd, mode)))
    code, _, err = run(capsys, "solve", "kuhn", "-n", 5, "--checkpoint", ckpt)
    message = one_line_error(code, err)
    assert str(ckpt) in message and "No space left on device" in message
    assert ckpt.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.npz"]

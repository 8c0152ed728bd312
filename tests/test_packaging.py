"""rcfr installed, not only checked out: the papers' sweep specs are package data (read with
importlib.resources), ``rcfr sweep`` takes a spec file or a packaged spec's name, the code
version comes from the package metadata where there is no checkout (and never from some other
project's git), and a wheel built from this tree, installed into a fresh venv outside the
repository, runs the packaged specs there."""

import importlib
import importlib.metadata
import json
import math
import os
import re
import shutil
import site
import subprocess
import sys
import tomllib
import zipfile
from importlib.resources import as_file, files
from pathlib import Path

import pytest

from rcfr import RcfrError
from rcfr.cli import main
from rcfr.experiments import load_sweep
from rcfr.experiments.execute import checkout_root, code_version, git_commit
from rcfr.experiments.figures import (
    KINDS,
    figure_names,
    figure_spec,
    load_spec,
    named_spec,
    spec_names,
)

EXECUTE = importlib.import_module("rcfr.experiments.execute")  # the package exports a function
REPO = Path(__file__).resolve().parents[1]
SPECS = files("rcfr.experiments") / "specs"
SPEC = "thesis_4_1_quick"  # the packaged spec the installed wheel runs
TINY = """
name = "tiny"
seeds = 1
[base]
game = "kuhn"
iterations = 10
[grid]
algorithm = ["cfr"]
"""


def count_runs(text: str) -> int:
    """A sweep spec's runs counted from its TOML (grid sizes times the zip's length times the
    seeds, part by part), independently of rcfr's expansion."""
    data = tomllib.loads(text)

    def seeds(table, default):
        value = table.get("seeds", default)
        return value if isinstance(value, int) else len(value)

    total = 0
    for part in data.get("part") or [data]:
        runs = math.prod(len(v) for v in part.get("grid", {}).values())
        if part.get("zip"):
            runs *= len(next(iter(part["zip"].values())))
        total += runs * seeds(part, seeds(data, 1))
    return total


@pytest.fixture
def packaged(monkeypatch):
    """The packaged specs, whatever the environment says."""
    monkeypatch.delenv("RCFR_EXPERIMENTS", raising=False)


# -- the specs as package data -----------------------------------------------------------------
def test_the_paper_specs_are_package_resources(packaged):
    names = sorted(p.name.removesuffix(".toml") for p in SPECS.iterdir()
                   if p.name.endswith(".toml"))
    assert spec_names() == names and len(names) >= 20 and SPEC in names
    for name in names:
        sweep = named_spec(name)
        assert sweep.runs and Path(sweep.path).name == f"{name}.toml"
    seen = 0
    for name in figure_names():
        for quick in (False, True):
            if f"{name}{'_quick' if quick else ''}" in names:
                assert figure_spec(name, quick).figure in KINDS
                seen += 1
    assert seen == len(names)  # every packaged spec is a figure's
    with pytest.raises(RcfrError, match="unknown figure 'nope'.*thesis_4_1"):
        figure_spec("nope")


def test_sweep_takes_a_spec_file_or_a_packaged_name(packaged, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    text = (SPECS / f"{SPEC}.toml").read_text()
    with as_file(SPECS / f"{SPEC}.toml") as path:
        by_path = load_sweep(path)
    by_name = load_spec(SPEC)
    assert by_name.name == SPEC and by_name.hashes() == by_path.hashes()
    assert len(by_name.runs) == count_runs(text) > 1
    db = tmp_path / "r.db"
    assert main(["sweep", SPEC, "--dry-run", "--json", "--db", str(db)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["sweep"] == SPEC and info["runs"] == info["to_run"] == count_runs(text)
    assert not db.exists()  # a dry run writes nothing
    # a file of that name wins over the packaged spec; a path still works
    Path(SPEC).write_text(TINY)
    assert load_spec(SPEC).name == "tiny"
    (tmp_path / "tiny.toml").write_text(TINY)
    assert main(["sweep", str(tmp_path / "tiny.toml"), "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == 1
    # neither a file nor a name: the error names both and lists the packaged specs
    for bad in ("nope", "../specs/thesis_4_1_quick", "nope.toml"):
        with pytest.raises(RcfrError, match=f"no such spec file: {re.escape(bad)} .*{SPEC}"):
            load_spec(bad)
    assert main(["sweep", "nope", "--dry-run"]) == 2
    assert "no such spec file: nope" in capsys.readouterr().err
    assert main(["sweep", "--help"]) == 0
    assert "packaged" in " ".join(capsys.readouterr().out.split())


def test_a_folder_of_specs_still_overrides_the_packaged_ones(tmp_path, monkeypatch):
    (tmp_path / "mine_quick.toml").write_text('figure = "convergence"\n'
                                              + TINY.replace('"tiny"', '"mine_quick"'))
    monkeypatch.setenv("RCFR_EXPERIMENTS", str(tmp_path))
    assert spec_names() == ["mine_quick"] and figure_names() == ["mine"]
    assert figure_spec("mine", quick=True).name == "mine_quick"
    assert load_spec("mine_quick").name == "mine_quick"


# -- install hints: rcfr installs from its checkout ---------------------------------------------
def _missing_extra_error(monkeypatch, module: str, call) -> str:
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    with pytest.raises(RcfrError) as info:
        call()
    return str(info.value)


def test_a_missing_extra_says_how_to_install_it_from_the_checkout(monkeypatch):
    """rcfr is not on a package index: ``pip install 'rcfr[torch]'`` cannot work; the hint is
    ``pip install -e '.[torch]'`` in the checkout (or ``make test``'s environment)."""
    from rcfr.distributed.cluster import import_ray
    from rcfr.experiments.runners import run_ray
    from rcfr.games.openspiel_game import import_pyspiel
    from rcfr.regressors.torch_mlp import import_torch
    from rcfr.solvers.deep.nets import torch_module

    cases = (("torch", "torch", import_torch), ("torch", "torch", torch_module),
             ("pyspiel", "openspiel", import_pyspiel), ("ray", "ray", import_ray),
             ("ray", "ray", lambda: run_ray([], Path("."), workers=1, checkpoint_every=60,
                                            on_start=None, on_result=None)))
    for module, extra, call in cases:
        message = _missing_extra_error(monkeypatch, module, call)
        assert f"pip install -e '.[{extra}]'" in message and "make test" in message, message
        assert "rcfr[" not in message and "\n" not in message


def test_no_install_hint_names_a_package_index_rcfr_is_not_on():
    hints = [f"{path.relative_to(REPO)}:{n}" for path in sorted((REPO / "src").rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if re.search(r"rcfr\[(torch|openspiel|ray|test|docs)", line)]
    assert hints == []


# -- the code version --------------------------------------------------------------------------
HASHES = [c * 40 for c in "0123a"]


def _checkout(root: Path, name: str = "rcfr") -> Path:
    """A source layout ``root/src/rcfr`` whose pyproject.toml names ``name``."""
    (root / "src" / "rcfr").mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "{name}"\nversion = "9"\n')
    return root / "src" / "rcfr"


def _git(root: Path, head: str, **refs: str) -> None:
    for ref, value in {"HEAD": head, **refs}.items():
        path = root / ".git" / ref
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")


def test_checkout_root_trusts_only_an_rcfr_source_checkout(tmp_path):
    assert checkout_root(_checkout(tmp_path / "ours")) == tmp_path / "ours"
    other = tmp_path / "other"
    assert checkout_root(_checkout(other, name="someapp")) is None
    _git(other, HASHES[0])
    # rcfr installed into a venv inside another project's checkout, which has a .git
    site_packages = other / ".venv" / "lib" / "python3.11" / "site-packages" / "rcfr"
    site_packages.mkdir(parents=True)
    assert checkout_root(site_packages) is None
    (tmp_path / "bare" / "src" / "rcfr").mkdir(parents=True)  # no pyproject.toml
    assert checkout_root(tmp_path / "bare" / "src" / "rcfr") is None
    for text in ("not [toml", 'project = "rcfr"', "[tool.x]\n"):
        (tmp_path / "bare" / "pyproject.toml").write_text(text)
        assert checkout_root(tmp_path / "bare" / "src" / "rcfr") is None
    (tmp_path / "ours" / "src" / "other").mkdir()
    assert checkout_root(tmp_path / "ours" / "src" / "other") is None


def test_git_commit_reads_heads_packed_refs_and_worktrees(tmp_path):
    detached, loose, packed = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    _git(detached, HASHES[0])
    assert git_commit(detached) == HASHES[0]
    _git(loose, "ref: refs/heads/main", **{"refs/heads/main": HASHES[1]})
    assert git_commit(loose) == HASHES[1]
    _git(packed, "ref: refs/heads/dev", **{"packed-refs": f"# pack-refs with: peeled\n"
                                                         f"{HASHES[0]} refs/heads/main\n"
                                                         f"{HASHES[2]} refs/heads/dev"})
    assert git_commit(packed) == HASHES[2]
    # a linked worktree: .git is a file naming its folder under the main .git (relative)
    _git(loose, "ref: refs/heads/main", **{
        "refs/heads/feature": HASHES[3], "worktrees/wt/HEAD": "ref: refs/heads/feature",
        "worktrees/wt/commondir": "../.."})
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text("gitdir: ../b/.git/worktrees/wt\n")
    assert git_commit(tmp_path / "wt") == HASHES[3]
    # anything else is no commit, never an error
    (tmp_path / "wt" / ".git").write_text("garbage\n")
    _git(tmp_path / "d", "not a hash")
    _git(tmp_path / "e", "ref: refs/heads/gone")
    (tmp_path / "f" / ".git").mkdir(parents=True)
    for root in ("wt", "d", "e", "f", "none"):
        assert git_commit(tmp_path / root) is None


def test_code_version_falls_back_to_the_package_metadata(tmp_path, monkeypatch):
    release = importlib.metadata.version("rcfr")
    root = checkout_root()
    if root is not None and (commit := git_commit(root)):  # this checkout
        assert code_version() == f"{release}+g{commit[:10]}"
        if shutil.which("git"):  # what git itself says (a commit landing meanwhile: retry)
            heads = [subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, text=True,
                                    capture_output=True).stdout.strip() for _ in range(2)]
            assert commit in heads or git_commit(root) in heads
    fake = _checkout(tmp_path / "ours").parent.parent
    _git(fake, HASHES[4])
    monkeypatch.setattr(EXECUTE, "checkout_root", lambda package=None: fake)
    assert code_version() == f"{release}+g{HASHES[4][:10]}"
    (fake / ".git" / "HEAD").write_text("ref: refs/heads/missing\n")
    assert code_version() == release  # a broken .git: the release alone
    monkeypatch.setattr(EXECUTE, "checkout_root", lambda package=None: None)  # installed
    assert code_version() == release and "+" not in release

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert code_version() == "unknown"


# -- a wheel, installed outside the repository ---------------------------------------------------
def _run(args, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=240,
                          **kwargs)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """This tree's wheel, installed into a fresh venv: (venv, a work folder in it, the wheel).

    The wheel is built from a copy of the tree (an in-tree build would leave build/ and an
    egg-info in the checkout), without network (--no-build-isolation: this environment's
    setuptools).  The venv has no rcfr but the wheel's; it borrows the dependencies (numpy,
    numba, ...) through a .pth line naming this environment's site-packages, which puts them
    after its own and runs none of their .pth files, so the editable install's path to
    src/ never gets in."""
    try:
        import setuptools  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"cannot build a wheel without network: setuptools missing ({exc})")
    tmp = tmp_path_factory.mktemp("packaging")
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", *(p.name for p in REPO.glob("LICEN[CS]E*"))):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(REPO / "src", source / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"))
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "--no-index", "-q", "-w", tmp / "dist", source])
    wheel, = (tmp / "dist").glob("rcfr-*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    _run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
          "--disable-pip-version-check", wheel])
    purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    parents = [*site.getsitepackages()]
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        parents.append(site.getusersitepackages())
    Path(purelib.stdout.strip(), "_rcfr_test_dependencies.pth").write_text(
        "".join(f"{p}\n" for p in parents))
    work = tmp / "work"  # outside the repository: nothing of the checkout is on the path
    work.mkdir()
    return venv, work, wheel


def _in_venv(venv: Path, work: Path, *args) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "RCFR_EXPERIMENTS")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", PYTHONNOUSERSITE="1")
    return _run(args, cwd=work, env=env)


def test_the_wheel_ships_the_specs_byte_for_byte(installed):
    _, _, wheel = installed
    with zipfile.ZipFile(wheel) as archive:
        shipped = {Path(n).stem: archive.read(n) for n in archive.namelist()
                   if n.startswith("rcfr/experiments/specs/") and n.endswith(".toml")}
    ours = {p.name.removesuffix(".toml"): p.read_bytes() for p in SPECS.iterdir()
            if p.name.endswith(".toml")}
    assert shipped == ours and SPEC in shipped
    published = files("rcfr.experiments") / "data" / "ddcfr_curves.csv"  # the DDCFR curves
    with zipfile.ZipFile(wheel) as archive:
        shipped_curves = archive.read("rcfr/experiments/data/ddcfr_curves.csv")
    assert shipped_curves == published.read_bytes()
    claims = files("rcfr.experiments") / "data" / "claims.toml"  # the papers' claims
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("rcfr/experiments/data/claims.toml") == claims.read_bytes()


def test_the_wheel_ships_the_libratus_endgames_byte_for_byte(installed):
    _, _, wheel = installed
    data = files("rcfr.games.holdem") / "data" / "libratus"
    names = ("README.md", *(f"subgame{n}.txt" for n in range(1, 5)))
    with zipfile.ZipFile(wheel) as archive:
        for name in names:
            shipped = archive.read(f"rcfr/games/holdem/data/libratus/{name}")
            assert shipped == (data / name).read_bytes(), name


def test_the_wheel_ships_the_ddcfr_policy_and_the_installed_rcfr_runs_it(installed):
    venv, work, wheel = installed
    policy = files("rcfr.solvers") / "data" / "ddcfr_policy.npz"
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("rcfr/solvers/data/ddcfr_policy.npz") == policy.read_bytes()
    probe = _in_venv(venv, work, venv / "bin" / "python", "-c", (
        "from rcfr.solvers.ddcfr import policy_outputs; print(policy_outputs((0.5, 0.35))[1])"))
    assert probe.stdout.strip() == "2"  # tau = 5 (the authors' network; test_rules_schedules)


def test_an_installed_rcfr_runs_packaged_specs_outside_the_checkout(installed):
    venv, work, wheel = installed
    release = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert wheel.name.startswith(f"rcfr-{release}-")
    probe = _in_venv(venv, work, venv / "bin" / "python", "-c", (
        "import json, rcfr; from rcfr.experiments.execute import code_version, checkout_root;"
        "print(json.dumps([rcfr.__file__, code_version(), str(checkout_root())]))"))
    where, version, root = json.loads(probe.stdout)
    assert Path(where).resolve().is_relative_to(venv.resolve()), where  # the wheel's rcfr
    assert version == release and root == "None"  # the package version, not a git hash
    rcfr = venv / "bin" / "rcfr"
    runs = count_runs((SPECS / f"{SPEC}.toml").read_text())
    done = _in_venv(venv, work, rcfr, "sweep", SPEC, "--dry-run", "--db", "r.db")
    assert f"{SPEC}: {runs} runs, 0 already done, {runs} to run" in done.stdout
    assert len([line for line in done.stdout.splitlines() if line.startswith("  ")]) == runs
    done = _in_venv(venv, work, rcfr, "figure", "thesis_4_1", "--quick", "--no-run",
                    "--db", "r.db", "-o", "f.png")
    assert f"{SPEC}: 0 of {runs} runs plotted -> f.png" in done.stdout
    assert (work / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a real run records the package version in the store
    (work / "tiny.toml").write_text(TINY)
    _in_venv(venv, work, rcfr, "sweep", "tiny.toml", "--db", "t.db")
    rows = json.loads(_in_venv(venv, work, rcfr, "results", "--db", "t.db", "--json").stdout)
    assert [(r["status"], r["code_version"]) for r in rows] == [("done", release)]

"""Virtual environments made as a user makes them: a fresh venv, the package installed from a
copy of the source (a build never writes into the repository), and its console command run
from another folder. The packaging tests and the journeys (`tests/journeys/`) build theirs here.
"""

from __future__ import annotations

import shutil
import subprocess
import venv
from pathlib import Path

from tests.conftest import ROOT


def make_venv(where: Path) -> Path:
    """A fresh venv that sees none of the packages of the interpreter running the tests."""
    venv.EnvBuilder(with_pip=True).create(where)
    return where / "bin"


LEFTOVERS = shutil.ignore_patterns(
    ".git", "__pycache__", "*.pyc", "build", "*.egg-info", "test-artifacts", ".venv"
)


def not_the_source(directory: str, names: list[str]) -> set[str]:
    """Build leftovers, and virtual environments whatever their name (a directory holding a
    `pyvenv.cfg`): a venv made inside the checkout (`python -m venv .v`) is gigabytes, and
    copying it filled the disk of a fresh clone's test run."""
    skipped = set(LEFTOVERS(directory, names))
    skipped.update(name for name in names if (Path(directory, name) / "pyvenv.cfg").is_file())
    return skipped


def source_copy(where: Path) -> Path:
    """The package's files in a scratch directory: a build must never write into the repo."""
    return Path(shutil.copytree(ROOT, where / "source", ignore=not_the_source))


def test_the_source_copy_leaves_out_virtual_environments_whatever_their_name(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "core.py").write_text("")
    for environment in (".v", "venv", "anything"):
        (tmp_path / environment / "lib").mkdir(parents=True)
        (tmp_path / environment / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "__pycache__").mkdir()
    names = sorted(path.name for path in tmp_path.iterdir())
    assert not_the_source(str(tmp_path), names) == {".v", "venv", "anything", "__pycache__"}


def pip_install(bin_dir: Path, *requirements: str) -> None:
    """`pip install` into the venv; without byte-compiling every installed file, a third of
    TensorFlow's install (Python compiles what a run imports as it imports it)."""
    done = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--no-compile", *requirements],
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def console(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(bin_dir / "matvec-profiler"), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=900,
    )

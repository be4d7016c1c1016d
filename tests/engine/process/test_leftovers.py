"""AutoGraph's generated sources go with the process that made them, and nothing else does."""

import sys
import tempfile
import types
from pathlib import Path

import pytest

from engine.process.leftovers import AUTOGRAPH_PREFIX, remove_autograph_sources
from tests.cli import engine_process


@pytest.fixture
def temp_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def loaded(monkeypatch, name: str, path: Path) -> None:
    path.write_text("x = 1\n")
    module = types.ModuleType(name)
    module.__file__ = str(path)
    monkeypatch.setitem(sys.modules, name, module)


def test_only_autographs_own_files_in_the_temporary_directory_are_removed(
    temp_dir, tmp_path_factory, monkeypatch
):
    generated = temp_dir / f"{AUTOGRAPH_PREFIX}abc123.py"
    loaded(monkeypatch, f"{AUTOGRAPH_PREFIX}abc123", generated)
    elsewhere = tmp_path_factory.mktemp("project") / f"{AUTOGRAPH_PREFIX}keep.py"
    loaded(monkeypatch, f"{AUTOGRAPH_PREFIX}keep", elsewhere)  # not in the temp directory
    users = temp_dir / "notes.py"
    loaded(monkeypatch, "notes", users)  # in it, but not AutoGraph's
    assert remove_autograph_sources() == 1
    assert not generated.exists()
    assert elsewhere.exists() and users.exists()


def test_a_planted_link_is_removed_not_followed(temp_dir, tmp_path_factory, monkeypatch):
    target = tmp_path_factory.mktemp("victim") / "precious.py"
    target.write_text("keep me\n")
    link = temp_dir / f"{AUTOGRAPH_PREFIX}planted.py"
    link.symlink_to(target)
    module = types.ModuleType(f"{AUTOGRAPH_PREFIX}planted")
    module.__file__ = str(link)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    remove_autograph_sources()
    assert not link.is_symlink() and target.read_text() == "keep me\n"


def test_a_tensorflow_run_leaves_no_generated_sources_behind(tmp_path, monkeypatch):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    done = engine_process(
        "run",
        *("--matrices", "16", "--dim", "4", "--repeats", "2", "--warmup", "0"),
        *("--strategy", "while_loop,map_fn", "--progress", "none", "--no-history"),
        *("--json", str(tmp_path / "out.json")),
    )
    assert done.returncode == 0, done.stderr
    assert not list(scratch.glob(f"{AUTOGRAPH_PREFIX}*"))

"""Where profiles are written: never through a planted link, never changing the mode of a
directory this process did not create."""

from __future__ import annotations

import os
import stat

import pytest

from engine.results.parts import ProfileSummary
from engine.storage.profiles import TRACE_NAME, export_traces, profile_root, variant_dir
from tests.factories import make_run


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def root(tmp_path, monkeypatch):
    path = tmp_path / "profiles"
    monkeypatch.setenv("MATVEC_PROFILES", str(path))
    return path


def test_a_new_root_and_its_run_folders_are_private(root):
    folder = variant_dir("a" * 32, "einsum")
    assert folder.is_dir() and folder.is_relative_to(profile_root())
    assert mode(root) == mode(root / ("a" * 32)) == mode(folder) == 0o700


def test_an_existing_shared_root_keeps_its_mode_even_through_a_link(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o1777)
    link = tmp_path / "link"
    link.symlink_to(shared)
    monkeypatch.setenv("MATVEC_PROFILES", str(link))
    folder = variant_dir("b" * 32, "einsum")
    assert mode(shared) == 0o1777  # not chmodded: this process did not create it
    assert mode(folder) == 0o700 and folder.resolve().parent.parent == shared.resolve()


def test_a_link_planted_for_the_run_folder_is_refused(root):
    root.mkdir()
    elsewhere = root.parent / "elsewhere"
    elsewhere.mkdir()
    (root / ("c" * 32)).symlink_to(elsewhere)
    with pytest.raises(OSError, match="is a link"):
        variant_dir("c" * 32, "einsum")
    assert not list(elsewhere.iterdir())


def profiled_run(trace):
    run = make_run({"einsum": [0.001] * 3})
    run.results[0].profile = ProfileSummary("ok", trace_file=str(trace))
    return run


def test_a_link_planted_at_the_trace_beside_the_json_is_replaced_not_followed(tmp_path):
    trace = tmp_path / "stored.json.gz"
    trace.write_bytes(b"the trace")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    folder = tmp_path / "out.profiles" / "einsum"
    folder.mkdir(parents=True)
    (folder / TRACE_NAME).symlink_to(victim)
    run = profiled_run(trace)
    assert export_traces(run, str(tmp_path / "out.json")) == []
    assert victim.read_text() == "precious"
    assert not (folder / TRACE_NAME).is_symlink()
    assert (folder / TRACE_NAME).read_bytes() == b"the trace"
    assert run.results[0].profile.trace_file == "out.profiles/einsum/trace.json.gz"


def test_a_link_planted_for_the_profiles_folder_is_refused_with_a_warning(tmp_path):
    trace = tmp_path / "stored.json.gz"
    trace.write_bytes(b"the trace")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out.profiles").symlink_to(elsewhere)
    run = profiled_run(trace)
    problems = export_traces(run, str(tmp_path / "out.json"))
    assert len(problems) == 1 and "trace of einsum not copied" in problems[0]
    assert not list(elsewhere.iterdir())
    assert run.results[0].profile.trace_file == str(trace)  # still the stored one

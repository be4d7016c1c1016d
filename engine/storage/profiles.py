"""Where profiles live: one private directory per run under the user's data directory.

Each profiled variant gets `<root>/<run_id>/<variant>/` holding TensorBoard's logdir layout
(`plugins/profile/<session>/<host>.xplane.pb`, for the profile plugin) and `trace.json.gz`
(Chrome trace format, for Perfetto). `MATVEC_PROFILES` overrides the root (tests do). With
`run --json out.json` the traces are also copied beside it, into `out.profiles/`, and the
JSON's `trace_file` is relative to the JSON.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from platformdirs import user_data_dir

from engine.results.model import RUN_ID, RunResult

TRACE_NAME = "trace.json.gz"


def profile_root() -> Path:
    return Path(
        os.environ.get("MATVEC_PROFILES") or Path(user_data_dir("matvec-profiler")) / "profiles"
    )


def _safe(run_id: str, variant: str) -> bool:
    """A run id and a variant name, nothing that could walk out of the store."""
    return bool(RUN_ID.match(run_id)) and variant.replace("+", "").replace("_", "").isalnum()


def variant_dir(run_id: str, variant: str) -> Path:
    """A private directory for one variant's profile (created)."""
    if not _safe(run_id, variant):
        raise ValueError(f"not a run id and variant: {run_id!r}, {variant!r}")
    path = profile_root() / run_id / variant
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    for part in (profile_root(), profile_root() / run_id):
        part.chmod(0o700)
    return path


def stored_trace(run_id: str, variant: str) -> Path | None:
    """The stored trace of a run's variant on this machine, found by id, never by a path read
    from a file (an imported JSON cannot make the dashboard serve an arbitrary file)."""
    if not _safe(run_id, variant):
        return None
    path = profile_root() / run_id / variant / TRACE_NAME
    return path if path.is_file() else None


def export_traces(result: RunResult, json_path: str) -> list[str]:
    """Copy each variant's trace beside the JSON and point `trace_file` there (relative).
    Returns warnings: a trace that cannot be copied keeps its stored path."""
    import dataclasses

    target = Path(json_path)
    folder = target.with_name(f"{target.stem}.profiles")
    problems = []
    for entry in result.results:
        profile = entry.profile
        if profile is None or not profile.trace_file or not Path(profile.trace_file).is_absolute():
            continue
        try:
            destination = folder / entry.variant / TRACE_NAME
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(profile.trace_file, destination)
        except OSError as error:
            problems.append(f"profile: trace of {entry.variant} not copied: {error.strerror}")
            continue
        relative = destination.relative_to(target.parent).as_posix()
        entry.profile = dataclasses.replace(profile, trace_file=relative)
    return problems

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

from engine.results.codec import RUN_ID
from engine.results.run_result import RunResult

TRACE_NAME = "trace.json.gz"


def profile_root() -> Path:
    return Path(
        os.environ.get("MATVEC_PROFILES") or Path(user_data_dir("matvec-profiler")) / "profiles"
    )


def _safe(run_id: str, variant: str) -> bool:
    """A run id and a variant name, nothing that could walk out of the store."""
    return bool(RUN_ID.match(run_id)) and variant.replace("+", "").replace("_", "").isalnum()


class UnsafePath(OSError):
    """A path the store will not write through: a link someone else may have planted."""


def _own_directory(path: Path, private: bool) -> None:
    """`path` as a real directory: made if missing (0700 when `private`, and only what this
    process made is chmodded), refused when it is a symbolic link or not a directory."""
    try:
        os.mkdir(path, 0o700 if private else 0o777)
    except FileExistsError:
        if path.is_symlink() or not path.is_dir():
            raise UnsafePath(
                f"{path} is a link or not a directory; not writing through it"
            ) from None
        return
    if private:
        path.chmod(0o700)  # mkdir's mode is masked by the umask; this one is ours to set


def _directories(base: Path, parts: tuple[str, ...], private: bool) -> Path:
    path = base
    for part in parts:
        path = path / part
        _own_directory(path, private)
    return path


def variant_dir(run_id: str, variant: str) -> Path:
    """A private directory for one variant's profile (created). The root is made private when
    this process creates it; an existing root is used as it is, its mode never changed."""
    if not _safe(run_id, variant):
        raise ValueError(f"not a run id and variant: {run_id!r}, {variant!r}")
    root = profile_root()
    if not root.exists():
        root.parent.mkdir(parents=True, exist_ok=True)
        _own_directory(root, private=True)
    return _directories(root, (run_id, variant), private=True)


def copy_without_following(source: str | Path, destination: Path) -> None:
    """Copy into `destination` through a new file of this process's own (created exclusively,
    then renamed over the old name): a link planted at the destination is replaced, never
    written through."""
    temporary = destination.with_name(f".{destination.name}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(temporary, flags, 0o644)
    try:
        with os.fdopen(descriptor, "wb") as out, open(source, "rb") as inp:
            shutil.copyfileobj(inp, out)
        os.replace(temporary, destination)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


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
            if not _safe(result.run_id, entry.variant):
                raise UnsafePath(f"not a variant name: {entry.variant!r}")
            parent = _directories(target.parent, (folder.name, entry.variant), private=False)
            destination = parent / TRACE_NAME
            copy_without_following(profile.trace_file, destination)
        except OSError as error:
            reason = error.strerror or str(error)
            problems.append(f"profile: trace of {entry.variant} not copied: {reason}")
            continue
        relative = destination.relative_to(target.parent).as_posix()
        entry.profile = dataclasses.replace(profile, trace_file=relative)
    return problems

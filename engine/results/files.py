"""Writing files so that a reader never sees half of one, and checking outputs before any work.

A run can take minutes; finding out at the end that `--json` names a directory would throw the
measurement away. `check_output_file` refuses, before anything starts, whatever cannot be
written as a plain file; `write_text_atomically` writes beside the target and renames over it,
keeping its permissions; `save_fallback` keeps a finished measurement when writing still fails.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import platformdirs

from engine.run_settings.fields import ConfigError


def check_output_file(flag: str, path: str | Path) -> Path:
    """Refuse, naming `flag`, any path that is not an absent or writable regular file in a
    writable directory (a directory, a device, a symlink, a read-only file, /proc)."""
    target = Path(path)
    shown = repr(str(path)[:200])
    try:
        info = target.lstat()
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise ConfigError(flag, f"cannot use {shown}: {error.strerror}") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise ConfigError(flag, f"{shown} is a directory; give a file name")
        if stat.S_ISLNK(info.st_mode):
            raise ConfigError(flag, f"{shown} is a symbolic link; give the file itself")
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(flag, f"{shown} is not a regular file (a device, pipe or socket)")
        if not info.st_mode & 0o222:
            raise ConfigError(flag, f"{shown} is read-only")
    parent = target.parent
    if not parent.is_dir():
        raise ConfigError(flag, f"directory {str(parent)!r} does not exist")
    try:  # a real trial: permissions, read-only mounts and /proc all answer here
        handle, trial = tempfile.mkstemp(
            prefix=f".{target.name[:40]}.", suffix=".check", dir=parent
        )
        os.close(handle)
        os.unlink(trial)
    except OSError as error:
        raise ConfigError(
            flag, f"cannot write in directory {str(parent)!r}: {error.strerror}"
        ) from None
    return target


def umask() -> int:
    """The process's file-mode creation mask, read without changing it where Linux says it
    (`/proc/self/status`); elsewhere set and restored at once."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def write_text_atomically(path: str | Path, text: str) -> None:
    """Write to a temporary file beside `path`, then rename it over `path` in one step; an
    existing file's permissions are kept, a new file gets the umask's (a temporary file is
    the owner's alone, and a site published for a web server must be readable by it)."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        if target.exists():
            os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
        else:
            os.chmod(temporary, 0o666 & ~umask())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def save_fallback(text: str, name: str) -> Path:
    """Keep results that could not be written where asked: the user data directory, else the
    temp directory. Returns where they went."""
    for folder in (
        Path(platformdirs.user_data_dir("matvec-profiler")) / "unsaved",
        Path(tempfile.gettempdir()),
    ):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"matvec-{name}.json"
            write_text_atomically(target, text)
            return target
        except OSError:
            continue
    raise OSError("no writable place for the results")

"""Processes that hold a child's output pipe after the child has ended.

A kernel may double-fork a grandchild that calls `setsid()` (so it leaves the child's process
group) and keeps the file descriptors it inherited: the harness, reading the child's stdout to
its end, then waited as long as the grandchild lived (603 s for a 600 s sleep) and said
nothing. Once the child has ended, whoever still holds the write end of its pipes was started
by it; they are found through /proc (Linux; elsewhere none are found) and ended.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

PROC = Path("/proc")


def pipe_of(fd: int) -> str | None:
    """`pipe:[inode]` of a pipe descriptor, as /proc names it (None if it is no pipe)."""
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return target if target.startswith("pipe:[") else None


def holders(pipes: set[str]) -> list[int]:
    """The processes, other than this one, with a descriptor on any of `pipes`."""
    found = []
    own = os.getpid()
    for entry in PROC.iterdir() if PROC.is_dir() else ():
        if not entry.name.isdigit() or int(entry.name) == own:
            continue
        with contextlib.suppress(OSError):
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in pipes:
                        found.append(int(entry.name))
                        break
    return sorted(found)


def end_holders(fds: list[int]) -> list[int]:
    """SIGKILL every other process holding the pipes behind `fds`; returns their pids."""
    pipes = {p for p in (pipe_of(fd) for fd in fds) if p}
    ended = holders(pipes) if pipes else []
    for pid in ended:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return ended

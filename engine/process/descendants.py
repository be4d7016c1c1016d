"""Processes a user's kernel started, found and ended with its variant, escaped or not.

A kernel may double-fork a grandchild that calls `setsid()` (out of its process group, so
ending the group misses it) and closes every descriptor (so no pipe it holds names it): its
parent exits at once and Linux hands the orphan to the nearest *child subreaper* above it,
else to init, where nothing of the run could find it again. A kernel's own process makes
itself that subreaper first (`adopt_orphans`), so every process its kernel starts stays its
descendant, however it escapes; once the variant is measured, `end_descendants` ends them all
and names them for the run to say.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys

import psutil

PR_SET_CHILD_SUBREAPER = 36
REAP_WAIT_S = 3.0


def adopt_orphans() -> bool:
    """Make this process the subreaper of everything it starts (Linux 3.4+); False where the
    system has none (then an escaped grandchild is init's, and only its pipes can find it)."""
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return False


def end_descendants() -> list[str]:
    """SIGKILL every process below this one (they get no chance to catch anything), reap them,
    and return "pid N (name)" for each that was running, in pid order (one that had exited
    and was never waited for is only reaped)."""
    try:
        found = psutil.Process().children(recursive=True)
    except psutil.Error:
        return []
    named = []
    for process in found:
        with contextlib.suppress(psutil.Error):
            if process.status() != psutil.STATUS_ZOMBIE:
                named.append((process.pid, process.name()))
            process.kill()
    psutil.wait_procs(found, timeout=REAP_WAIT_S)
    return [f"pid {pid} ({name})" for pid, name in sorted(named)]

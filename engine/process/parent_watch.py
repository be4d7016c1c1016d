"""How a child this project started ends with its parent, from the child's side: Linux's
parent-death signal where the parent started it from its main thread (`Child` sets
`PARENT_VARIABLE`), else, for the dashboard's children (`END_WITH_PARENT`), a thread that
watches the parent."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

from engine.machine.input_error import ConfigError
from engine.machine.settings import read
from engine.process.children import PARENT_VARIABLE

END_WITH_PARENT = "MATVEC_END_WITH_PARENT"  # set by the dashboard: end when the parent has
PR_SET_PDEATHSIG = 1


def end_with_parent(poll_s: float = 1.0) -> None:
    """In a child the dashboard started (`END_WITH_PARENT` set): stop it as SIGTERM would once
    its parent has ended. The dashboard starts its worker and its device probe from a script
    thread, so they get no parent-death signal (Linux ties that to the thread, which Streamlit
    ends after each rerun), and one still starting (a TensorFlow import that hangs until its
    limit) reads no end of input. Not for a command a user started: `nohup` keeps it going."""
    marked = read(END_WITH_PARENT)
    os.environ.pop(END_WITH_PARENT, None)
    if not marked:
        return
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: alive
        return True
    return True


def die_with_parent() -> None:
    """In a child this project started: get SIGTERM when the parent dies (Linux), and exit at
    once if it is already gone. Also applies the niceness the parent asked for. Both
    variables are validated like any setting (ConfigError): one in a user's shell that names a
    living process other than this one's parent was not set by this project, and is refused
    rather than obeyed."""
    niceness = read("MATVEC_NICENESS")
    expected = read(PARENT_VARIABLE)
    os.environ.pop("MATVEC_NICENESS", None)
    os.environ.pop(PARENT_VARIABLE, None)
    if isinstance(niceness, int) and niceness:
        with contextlib.suppress(OSError):
            os.nice(niceness)
    if not isinstance(expected, int):
        return
    if os.getppid() != expected and is_alive(expected):
        raise ConfigError(
            PARENT_VARIABLE,
            f"names process {expected}, which is alive and not this process's parent: it is "
            "set by matvec-profiler for its own children; unset it",
        )
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != int(expected):  # the parent died before the request took hold
        os._exit(128 + signal.SIGTERM)

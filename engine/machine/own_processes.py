"""Which processes are the tool's own, beyond a run's process and its children.

A dashboard run counted the Streamlit server that started it (~13% of a core here) and the
browser showing the page (~35%) as "other processes", which widened every verdict's floor and
turned answers into ties. The dashboard names itself to its children (`SERVER_VARIABLE`: its
pid and port); a run then counts as its own the server's process tree and every process tree
of a browser connected to that port (the page that shows it), and only the rest as other load.
"""

from __future__ import annotations

import contextlib

import psutil

from engine.machine.settings import read

SERVER_VARIABLE = "MATVEC_DASHBOARD_SERVER"  # "pid:port", set by the dashboard for its children


def dashboard_server() -> tuple[int, int] | None:
    """The (pid, port) of the dashboard that started this process, if one did."""
    value = read(SERVER_VARIABLE)
    return value if isinstance(value, tuple) else None


def tree(process: psutil.Process) -> set[int]:
    """A process and all its descendants."""
    pids = {process.pid}
    with contextlib.suppress(psutil.Error):
        pids |= {child.pid for child in process.children(recursive=True)}
    return pids


def program_root(process: psutil.Process) -> psutil.Process:
    """The topmost ancestor running the same program (a browser's main process, whose children
    render its pages and carry its network connections)."""
    with contextlib.suppress(psutil.Error):
        program = process.exe()
        parent = process.parent()
        while parent is not None and parent.exe() == program:
            process, parent = parent, parent.parent()
    return process


def clients_of(port: int) -> set[int]:
    """Processes with a connection to `port` on this machine (the browsers showing a page)."""
    found: set[int] = set()
    with contextlib.suppress(psutil.Error, OSError):
        for conn in psutil.net_connections(kind="tcp"):
            if conn.pid and conn.raddr and conn.raddr.port == port:
                found.add(conn.pid)
    return found


def tool_pids(excluded: set[int]) -> set[int]:
    """The dashboard's server tree and its browsers' trees, less `excluded` (the run's own
    process and children, counted apart); empty when no dashboard started this process."""
    named = dashboard_server()
    if named is None:
        return set()
    pid, port = named
    pids: set[int] = set()
    with contextlib.suppress(psutil.Error):
        pids |= tree(psutil.Process(pid))
    for client in clients_of(port) - pids:
        with contextlib.suppress(psutil.Error):
            pids |= tree(program_root(psutil.Process(client)))
    return pids - excluded


def cpu_s(pids: set[int]) -> dict[int, float]:
    """CPU seconds (user + system) of each of `pids` still alive."""
    found = {}
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            found[pid] = sum(psutil.Process(pid).cpu_times()[:2])
    return found

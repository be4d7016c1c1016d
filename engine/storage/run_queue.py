"""One benchmark at a time per machine, first come first served, with a visible position.

Overlapping runs would steal each other's cores and memory bandwidth and make both sets of
numbers false. Every `python -m engine run` (the dashboard's worker included) takes a ticket in a
shared directory and waits until its ticket is the oldest live one and it holds an exclusive
`flock`. The kernel drops a dead process's lock, and tickets of dead processes are swept, so a
killed run never blocks the queue.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

POLL_S = 0.2


def default_directory() -> Path:
    configured = os.environ.get("MATVEC_QUEUE_DIR")
    if configured:
        return Path(configured)
    return Path(tempfile.gettempdir()) / f"matvec-profiler-queue-{os.getuid()}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunQueue:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_directory()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.lock_path = self.directory / "run.lock"

    def _live_tickets(self) -> list[Path]:
        live = []
        for ticket in sorted(self.directory.glob("*.ticket")):
            pid = int(ticket.name.split("-")[1])
            if _pid_alive(pid):
                live.append(ticket)
            else:
                ticket.unlink(missing_ok=True)
        return live

    def position(self, ticket: Path) -> int:
        """0 when this ticket is at the head of the queue."""
        live = self._live_tickets()
        return live.index(ticket) if ticket in live else len(live)

    @contextlib.contextmanager
    def turn(self, on_wait: Callable[[int], None] | None = None) -> Iterator[None]:
        """Block until it is this process's turn; hold the machine for the `with` body."""
        name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.ticket"
        ticket = self.directory / name
        ticket.touch()
        lock = open(self.lock_path, "a+")  # noqa: SIM115 - held for the body's duration
        try:
            last_position = None
            while True:
                position = self.position(ticket)
                if position == 0:
                    try:
                        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        position = 1  # the previous holder is still finishing
                if on_wait and position != last_position:
                    on_wait(position)
                last_position = position
                time.sleep(POLL_S)
            yield
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(lock, fcntl.LOCK_UN)
            lock.close()
            ticket.unlink(missing_ok=True)

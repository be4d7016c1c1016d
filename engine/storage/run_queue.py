"""One benchmark at a time per machine, first come first served, with a visible position.

Overlapping runs would steal each other's cores and memory bandwidth and make both sets of
numbers false. Every `python -m engine run` (the dashboard's worker included) takes a ticket in
a directory private to the user and waits until its ticket is the oldest live one and it holds
an exclusive `flock` on the queue.

Liveness is a fact the owner holds, not a PID that may be reused: each owner keeps an exclusive
lock on its own ticket for as long as it lives, and the kernel drops that lock when the process
dies, however it dies. A ticket whose lock can be taken by someone else belongs to nobody and is
swept. Files that are not tickets are ignored.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.run_settings.fields import ConfigError

POLL_S = 0.2
QUEUE_VARIABLE = "MATVEC_QUEUE_DIR"
TICKET = re.compile(r"^\d{20}-\d+-[0-9a-f]{8}\.ticket$")


def default_directory() -> Path:
    configured = os.environ.get(QUEUE_VARIABLE)
    if configured:
        return Path(configured)
    return Path(tempfile.gettempdir()) / f"matvec-profiler-queue-{os.getuid()}"


def private_directory(directory: Path) -> Path:
    """Create `directory` private to this user, or refuse one others could write to. It is
    created one level deep only: a missing parent is a typo, never a tree made at `/`."""
    if not directory.parent.is_dir():
        raise ConfigError(
            QUEUE_VARIABLE,
            f"cannot use {str(directory)!r} as the run queue: its parent "
            f"{str(directory.parent)!r} is not an existing directory",
        )
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        info = directory.lstat()
    except OSError as error:
        raise ConfigError(
            QUEUE_VARIABLE, f"cannot use {str(directory)!r} as the run queue: {error.strerror}"
        ) from None
    if not stat.S_ISDIR(info.st_mode):
        raise ConfigError(QUEUE_VARIABLE, f"{str(directory)!r} is not a directory")
    if info.st_uid != os.getuid():
        raise ConfigError(
            QUEUE_VARIABLE,
            f"{str(directory)!r} belongs to another user, who could block every run; "
            "set MATVEC_QUEUE_DIR to a directory of your own",
        )
    if info.st_mode & 0o022:
        raise ConfigError(
            QUEUE_VARIABLE,
            f"{str(directory)!r} is writable by other users, who could block every run; "
            "make it private (chmod 700) or set MATVEC_QUEUE_DIR",
        )
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ConfigError(QUEUE_VARIABLE, f"{str(directory)!r} is not writable")
    return directory


def is_ticket_file(entry: Path) -> bool:
    """A ticket is a regular file with a ticket's name; anything else (a FIFO, a socket, a
    directory, a link planted with that name) is not ours and never opened."""
    try:
        return TICKET.match(entry.name) is not None and stat.S_ISREG(entry.lstat().st_mode)
    except OSError:
        return False


def _owned_by_someone(ticket: Path) -> bool:
    """True while the ticket's owner lives (it holds the ticket's lock). Opened without
    following a link or blocking, so nothing in the directory can hang or crash a run."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(ticket, flags)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot be judged: left alone, and it is not a ticket we wait on
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return True
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False
    finally:
        os.close(descriptor)


class RunQueue:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = private_directory(directory or default_directory())
        self.lock_path = self.directory / "run.lock"

    def _live_tickets(self, own: Path | None = None) -> list[Path]:
        live = []
        for ticket in sorted(self.directory.iterdir()):
            if not is_ticket_file(ticket):
                continue  # not a ticket: someone else's file, never ours to judge
            if ticket == own or _owned_by_someone(ticket):
                live.append(ticket)
            else:
                ticket.unlink(missing_ok=True)
        return live

    def position(self, ticket: Path) -> int:
        """0 when this ticket is at the head of the queue."""
        live = self._live_tickets(own=ticket)
        return live.index(ticket) if ticket in live else len(live)

    @contextlib.contextmanager
    def turn(self, on_wait: Callable[[int], None] | None = None) -> Iterator[None]:
        """Block until it is this process's turn; hold the machine for the `with` body."""
        name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.ticket"
        ticket = self.directory / name
        staging = self.directory / f".{name}.new"  # not a ticket name: nobody judges it
        try:
            mine = open(staging, "xb")  # noqa: SIM115 - held, locked, for the whole turn
            fcntl.flock(mine, fcntl.LOCK_EX)
            os.rename(staging, ticket)  # appears already locked: never mistaken for dead
            lock = open(self.lock_path, "a+")  # noqa: SIM115 - held for the body's duration
        except OSError as error:
            staging.unlink(missing_ok=True)
            raise ConfigError(
                QUEUE_VARIABLE, f"cannot take a ticket in {str(self.directory)!r}: {error.strerror}"
            ) from None
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
            mine.close()

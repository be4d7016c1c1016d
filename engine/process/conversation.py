"""A child that serves many requests, one a line, and lives on between them (`converse`): a
kept framework process (`execution/peers/pool.py`), watched with the same limits as any
child's exchange (`deadline.Deadline`)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable

from engine.process.children import WATCH_INTERVAL_S, Child, Exchanged
from engine.process.deadline import Deadline


def converse(
    child: Child,
    request: str,
    on_line: Callable[[str], None],
    answered: Callable[[], bool],
    *,
    timeout_s: float | None = None,
    silence_s: float | None = None,
    silence_from: Callable[[str], bool] = lambda _line: True,
) -> Exchanged:
    """One request to a child that serves many, one a line: write `request` as a line (its
    stdin stays open), hand each line it writes to `on_line` until `answered()` is true after
    one (the child then lives on: `alive`), or until it ends. Past `timeout_s`, or silent for
    `silence_s` once a line for which `silence_from` is true has come, its whole group is
    ended (SIGKILL), as `exchange` does."""
    process = child.process
    assert process.stdout is not None and process.stdin is not None
    deadline = Deadline(timeout_s, silence_s, silence_from)
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(WATCH_INTERVAL_S):
            if process.poll() is not None:
                return
            if deadline.passed(time.monotonic()):
                child.signal_group(signal.SIGKILL)
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        try:
            process.stdin.write(request + "\n")  # one line: JSON escapes its newlines
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # it ended already: its exit code and stderr say why
        for line in process.stdout:
            deadline.heard(line)
            on_line(line)
            if answered():
                finished.set()
                watcher.join()
                if not deadline.why and process.poll() is None:
                    return Exchanged(0, alive=True)
                break
        code = child.wait()
    finally:
        finished.set()
        watcher.join()
    return Exchanged(code, *deadline.ended_for())

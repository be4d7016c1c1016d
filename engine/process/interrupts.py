"""SIGINT while nothing is worth keeping: the process ends at once (`interrupt_ends_at_once`),
where a KeyboardInterrupt could be swallowed; elsewhere it is a KeyboardInterrupt
(`children.end_children_on_signals`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

# The line SIGINT ends the process with at once and the stderr it goes to, innermost last
# (`interrupt_ends_at_once`).
AT_ONCE: list[tuple[str, int]] = []


@contextlib.contextmanager
def interrupt_ends_at_once(line: str) -> Iterator[None]:
    """While nothing is worth keeping (a run's start: its frameworks importing), SIGINT ends
    the process at once, after its children, saying `line` (exit 130). A KeyboardInterrupt
    raised inside an import can be swallowed (importlib reports one raised in its module
    locks' callbacks as "Exception ignored" and the import goes on), and the run then went on
    measuring, seen once in about twenty CI runs of the suite. The line goes to stderr as it is
    now: TensorFlow's import sends file descriptor 2 to a file meanwhile (its native logs,
    filtered after)."""
    try:
        descriptor = os.dup(2)
    except OSError:  # no stderr: the exit is still at once
        descriptor = -1
    AT_ONCE.append((line, descriptor))
    try:
        yield
    finally:
        AT_ONCE.pop()
        if descriptor >= 0:
            os.close(descriptor)


def end_at_once_if_starting(signum: int) -> None:
    """Inside `interrupt_ends_at_once`: its line, then exit 128 + `signum`; else nothing."""
    if not AT_ONCE:
        return
    line, descriptor = AT_ONCE[-1]
    with contextlib.suppress(OSError):
        os.write(descriptor, line.encode() + b"\n")
    os._exit(128 + signum)

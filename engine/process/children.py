"""Every child process the project starts: started, watched and ended in one way.

A child runs in a process group of its own, so ending it ends everything it started (a
repetition's peers, Streamlit's workers). Its stderr is read to the end on a thread, keeping
the last lines for the message a failure shows. Children end with their parent:

- a parent that is asked to stop (SIGTERM, SIGHUP, SIGINT) ends its live children first
  (`end_children_on_signals`, installed by the CLI's entry point), then exits;
- a parent that ends normally ends them at exit (`atexit`);
- a parent killed outright (SIGKILL, the OOM killer) cannot do either: a child that is one of
  this project's own processes asks Linux to send it SIGTERM when its parent dies
  (`die_with_parent`, called first thing by each entry point), when it was started from the
  parent's main thread (Linux ties that signal to the starting thread, and the dashboard's
  threads come and go with each page run).

Every engine child is started the same way (`engine_command`, `engine_environment`, from
`ENGINE_ROOT`) and watched by `Child` itself: `wait_or_end` for one that only needs its exit
code, `exchange` for one that speaks JSON lines (`conversation.converse` for one that serves a
request a line and lives on), `run_to_end` for one whose output is read whole.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from engine.process.deadline import Deadline
from engine.process.interrupts import end_at_once_if_starting
from engine.process.pipe_holders import end_holders

KILL_GRACE_S = 3.0
STDERR_LINES_KEPT = 40
PARENT_VARIABLE = "MATVEC_PARENT_PID"  # set for a child that should die with its parent
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)

_live: weakref.WeakSet[Child] = weakref.WeakSet()
ENGINE_ROOT = Path(__file__).resolve().parents[2]  # the directory that holds `engine/`


def engine_command(*args: str, python: str = sys.executable) -> list[str]:
    """`python -m engine ARGS`, the command of every engine child."""
    return [python, "-m", "engine", *args]


def engine_environment(**overrides: str) -> dict[str, str]:
    """An engine child's environment: this process's, with the engine importable from any
    working directory, TensorFlow's C++ logs held to warnings unless set, and output unbuffered
    so each progress line arrives as it is written."""
    env = dict(os.environ)
    paths = [str(ENGINE_ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env["PYTHONUNBUFFERED"] = "1"
    return {**env, **overrides}


def keep_last_lines(stream: IO[str], lines: collections.deque[str]) -> None:
    """Read `stream` to its end, keeping its last lines (the deque's length)."""
    with contextlib.suppress(ValueError, OSError):  # closed under us: the child is gone
        for line in stream:
            lines.append(line.rstrip())


class Child:
    """One child process in its own process group.

    `stderr`: "tail" keeps the last lines (`stderr_tail()`), "inherit" passes them through,
    anything else is `Popen`'s (`subprocess.STDOUT`, a file); `niceness` lowers the child's
    priority (a probe that must not take the CPU from a run).
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        stdin: Any = subprocess.DEVNULL,
        stdout: Any = subprocess.PIPE,
        stderr: Any = "tail",
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        niceness: int = 0,
    ) -> None:
        environment = dict(os.environ if env is None else env)
        if threading.current_thread() is threading.main_thread():
            environment[PARENT_VARIABLE] = str(os.getpid())
        else:
            environment.pop(PARENT_VARIABLE, None)
        if niceness:
            environment["MATVEC_NICENESS"] = str(niceness)
        self._tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        self.process = subprocess.Popen(
            list(command),
            stdin=stdin,
            stdout=stdout,
            stderr={"tail": subprocess.PIPE, "inherit": None}.get(stderr, stderr)
            if isinstance(stderr, str)
            else stderr,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=environment,
            cwd=cwd,
            start_new_session=True,
        )
        _live.add(self)
        self._reader: threading.Thread | None = None
        if stderr == "tail":
            assert self.process.stderr is not None
            self._reader = threading.Thread(
                target=keep_last_lines, args=(self.process.stderr, self._tail), daemon=True
            )
            self._reader.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def poll(self) -> int | None:
        return self.process.poll()

    def wait(self, timeout: float | None = None) -> int:
        code = self.process.wait(timeout)
        if self._reader is not None:
            self._reader.join(timeout=1.0)  # the last lines are in before anyone reads them
        _live.discard(self)
        return code

    def wait_or_end(self, timeout_s: float | None) -> Exchanged:
        """Wait for the child to end; past `timeout_s`, end its whole group."""
        try:
            return Exchanged(self.wait(timeout_s))
        except subprocess.TimeoutExpired:
            code = self.end()
            return Exchanged(-signal.SIGKILL if code is None else code, timed_out=True)

    def stderr_tail(self) -> list[str]:
        return list(self._tail)

    def last_line(self, default: str = "no message") -> str:
        return next((line.strip() for line in reversed(self._tail) if line.strip()), default)

    def signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signum)

    def end(self, grace_s: float = KILL_GRACE_S) -> int | None:
        """End the child and its whole group: SIGTERM, then SIGKILL after `grace_s`."""
        if self.process.poll() is None:
            self.signal_group(signal.SIGTERM)
            try:
                self.process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                self.signal_group(signal.SIGKILL)
                self.process.wait()
        else:  # the leader is gone; anything it started may not be
            self.signal_group(signal.SIGKILL)
        _live.discard(self)
        return self.process.returncode


@dataclass(frozen=True)
class Exchanged:
    """How an exchange with a child ended: its exit code, and whether it was ended for running
    past its time or for saying nothing for too long."""

    code: int
    timed_out: bool = False
    silent: bool = False
    # Processes the child left holding its output after it ended (a kernel's setsid
    # grandchild): ended by the harness, so the exchange does not wait on them.
    leftovers: tuple[int, ...] = ()
    # `converse`: the child answered and lives on, waiting for its next request.
    alive: bool = False


WATCH_INTERVAL_S = 0.2
LEFTOVER_GRACE_S = 1.0  # after the child ends, its output pipe should close within this


def exchange(
    child: Child,
    request: str | None,
    on_line: Callable[[str], None],
    *,
    timeout_s: float | None = None,
    silence_s: float | None = None,
    silence_from: Callable[[str], bool] = lambda _line: True,
) -> Exchanged:
    """Write `request` to the child's stdin and close it, hand each line it writes to stdout to
    `on_line` until it ends, and end it (its whole group, SIGKILL: what runs there may catch
    any other signal) when it runs past `timeout_s`, or writes nothing for `silence_s` once a
    line for which `silence_from` is true has come. Returns once it has ended; the caller's
    `finally` may still `end()` it."""
    process = child.process
    assert process.stdout is not None
    deadline = Deadline(timeout_s, silence_s, silence_from)
    finished = threading.Event()

    left: list[int] = []
    exited_at: list[float] = []
    pipes = [f.fileno() for f in (process.stdout, process.stderr) if f is not None]

    def watch() -> None:
        while not finished.wait(WATCH_INTERVAL_S):
            now = time.monotonic()
            if process.poll() is not None and not left:
                if not exited_at:
                    exited_at.append(now)
                if now - exited_at[0] > LEFTOVER_GRACE_S:  # someone it started holds the pipe
                    left.extend(end_holders(pipes) or [0])
                continue
            if deadline.passed(now):
                child.signal_group(signal.SIGKILL)
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        if request is not None and process.stdin is not None:
            try:
                process.stdin.write(request)
                process.stdin.close()
            except BrokenPipeError:
                pass  # it ended already: its exit code and stderr say why
        for line in process.stdout:
            deadline.heard(line)
            on_line(line)
        code = child.wait()
    finally:
        finished.set()
        watcher.join()
    leftovers = tuple(pid for pid in left if pid)
    return Exchanged(code, *deadline.ended_for(), leftovers=leftovers)


@dataclass(frozen=True)
class Finished:
    """A child run to its end: how it ended, and everything it wrote to stdout."""

    ended: Exchanged
    stdout: str
    stderr_tail: tuple[str, ...]

    @property
    def code(self) -> int:
        return self.ended.code


def run_to_end(child: Child, timeout_s: float | None = None) -> Finished:
    """Read the child's stdout whole until it ends (its group ended past `timeout_s`)."""
    lines: list[str] = []
    ended = exchange(child, None, lines.append, timeout_s=timeout_s)
    return Finished(ended, "".join(lines), tuple(child.stderr_tail()))


def live_children() -> list[Child]:
    return [child for child in list(_live) if child.poll() is None]


def end_children() -> None:
    """End every child this process started that is still running."""
    for child in live_children():
        child.end()


def _running(pid: int) -> bool:
    """Running, not a zombie, without reaping it (that is `Popen`'s job)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rpartition(")")[2].split()[:1] != ["Z"]
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def stop_children(grace_s: float = KILL_GRACE_S) -> None:
    """`end_children` for a signal handler: it may have interrupted `Popen.wait`, whose lock
    it holds, so nothing here waits on a `Popen`; it signals the groups and watches /proc."""
    children = list(_live)
    for child in children:
        child.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_running(c.pid) for c in children):
        time.sleep(0.05)
    for child in children:  # the stragglers, and anything a child started and left behind
        child.signal_group(signal.SIGKILL)


atexit.register(end_children)


class StopRequested(SystemExit):
    """A stop signal (SIGTERM, SIGHUP) ending this process: unlike argparse's SystemExit, no
    command loop (the warm worker's) may take it for the end of one request."""


def end_children_on_signals(
    on_stop: Callable[[int], None] | None = None, signals: Sequence[int] = STOP_SIGNALS
) -> None:
    """On a stop signal, end every live child, call `on_stop(signum)`, then exit 128+signum
    (SIGINT still raises KeyboardInterrupt, after the children are ended). Main thread only."""

    def stop(signum: int, _frame: Any) -> None:
        stop_children()
        if on_stop is not None:
            on_stop(signum)
        if signum == signal.SIGINT:
            end_at_once_if_starting(signum)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise StopRequested(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        return
    for signum in signals:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(signum, stop)

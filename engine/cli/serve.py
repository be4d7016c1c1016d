"""`serve`: a warm worker that runs one `run` request per line of stdin, in one process.

It keeps the run framework's state, TensorFlow's device layout, probe buffers and last inputs,
between runs (`own_process.warm_state`). Each request is `{"run": [arguments of the run
command]}` and goes through the very same `main` as a CLI run, so the queue, the checks, the
exit codes and the files are the CLI's. Progress events go to stdout as JSON lines (pass
`--progress jsonl`), and every request ends with one `{"event": "exit", "code": ..., "message":
...}` line. The worker ends at end of input, or after `--idle-timeout` seconds without a
request, freeing the device. The peer frameworks' processes (JAX, PyTorch) are kept between
runs too, on a machine without an accelerator (`execution/peers/pool.py`). With `--prewarm`
(and the layout its runs will ask for: `--replicas`, `--threads`), a worker on a CPU sets up
its devices and probe buffers before the first request."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import select
import sys
from collections.abc import Callable
from typing import Any, TextIO

from engine.cli.run import EXIT_OK, quiet_tensorflow
from engine.execution.peers.pool import kept_peers
from engine.machine.accelerators import probe_kind
from engine.process.children import StopRequested
from engine.results.events import Exit, Ready
from engine.storage.run_queue import RunQueue

EXIT_INVALID = 2
INTERRUPTED = 130  # `main`'s code for a run stopped by SIGINT
STOPPED = 128 + 15  # a request the worker's SIGTERM (or SIGHUP) cut short
STOPPED_MESSAGE = "the worker was stopped by a signal during this run; nothing of it was saved"
DEFAULT_IDLE_TIMEOUT_S = 600.0
MAX_IDLE_TIMEOUT_S = 7 * 86_400.0  # a week: beyond what `select` and any user needs
MAX_REQUEST_BYTES = 1 << 20
REQUEST_SHAPE = 'request: expected one JSON object per line, {"run": ["--strategy", "numpy", ...]}'


class LastLine:
    """Passes stderr through and remembers its last non-empty line: the request's message."""

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.last = stream, ""

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if line.strip():
                self.last = line.strip()
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


class ProtocolLines:
    """stdout while a request runs: its JSON event lines go to the protocol stream, anything
    else a request prints (a summary table, `--help`) to stderr, so a reader of stdout only
    ever sees protocol lines."""

    def __init__(self, protocol: TextIO, other: TextIO) -> None:
        self.protocol, self.other, self.pending = protocol, other, ""

    @staticmethod
    def is_protocol(line: str) -> bool:
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            return False
        return isinstance(data, dict) and "event" in data

    def write(self, text: str) -> int:
        self.pending += text
        while "\n" in self.pending:
            line, _, self.pending = self.pending.partition("\n")
            (self.protocol if self.is_protocol(line) else self.other).write(line + "\n")
        return len(text)

    def flush(self) -> None:
        self.protocol.flush()
        self.other.flush()

    def close_request(self) -> None:
        if self.pending:
            self.other.write(self.pending + "\n")
            self.pending = ""
        self.flush()


def run_arguments(line: str) -> list[str] | None:
    """The `run` arguments of a request line, or None when it is not a request."""
    try:
        request = json.loads(line)
    except (json.JSONDecodeError, RecursionError):  # nested too deep is a bad shape too
        return None
    if not isinstance(request, dict) or set(request) != {"run"}:
        return None
    arguments = request["run"]
    if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
        return None
    return arguments


def warm_state() -> Any:
    """The state kept between runs; None when TensorFlow cannot even be imported (each request
    then reports that through the run command's own checks)."""
    from engine.execution.run.own_process import warm_state as run_framework_state

    return run_framework_state()


def idle_timeout(text: str) -> float:
    """`--idle-timeout`: positive, finite seconds, capped at a week."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return min(value, MAX_IDLE_TIMEOUT_S)


class LineReader:
    """Complete lines from a file descriptor, with a timeout per line.

    `select` watches the descriptor, not Python's buffer: reading through `sys.stdin` would
    leave a second line that came in the same write in that buffer, unseen, until the next
    write. Reading the raw descriptor and splitting here serves every complete line.
    """

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer, self.ended = fd, b"", False
        self.discarding = False  # inside a line too long to be a request: skip to its end

    def next_line(self, timeout_s: float) -> str | None:
        """The next line (without its newline), "" at end of input, None after the timeout.
        A line longer than MAX_REQUEST_BYTES is one bad request ("{}"), answered once,
        however long it is: its rest is skipped up to its newline, so every later answer
        stays paired with its own request."""
        while b"\n" not in self.buffer or self.discarding:
            if self.discarding and b"\n" in self.buffer:
                self.buffer = self.buffer.partition(b"\n")[2]
                self.discarding = False
                return "{}"
            if self.ended:
                rest, self.buffer = self.buffer, b""
                if self.discarding:
                    self.discarding = False
                    return "{}"
                return rest.decode("utf-8", "replace")
            if len(self.buffer) > MAX_REQUEST_BYTES:
                self.buffer = b""  # a request this long is not one: drop it, keep serving
                self.discarding = True
            ready, _, _ = select.select([self.fd], [], [], timeout_s)
            if not ready:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.ended = True
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace") or " "


Main = Callable[..., int]  # `engine.cli.main.main(argv, warm=...)`, passed in by it


def handle(line: str, state: Any, main: Main) -> Exit:
    arguments = run_arguments(line)
    if arguments is None:
        print(f"error: {REQUEST_SHAPE}", file=sys.stderr)
        return Exit(EXIT_INVALID, REQUEST_SHAPE)
    tee = LastLine(sys.stderr)
    stdout = ProtocolLines(sys.stdout, tee)  # type: ignore[arg-type]
    with contextlib.redirect_stderr(tee), contextlib.redirect_stdout(stdout):  # type: ignore[type-var]
        try:
            code = main(["run", *arguments], warm=state)
        except StopRequested:  # SIGTERM: the worker ends, its children already ended
            raise
        except SystemExit as stop:  # `--help` and the like: argparse ends the command
            code = stop.code if isinstance(stop.code, int) else EXIT_INVALID
        finally:
            stdout.close_request()
    return Exit(code, tee.last.removeprefix("error: ") if code else "")


def expect_arguments(text: str) -> list[str]:
    """`--expect`: a JSON list of the `run` flags of the run the first request will likely be."""
    try:
        found = json.loads(text)
    except json.JSONDecodeError:
        found = None
    if not isinstance(found, list) or not all(isinstance(item, str) for item in found):
        raise argparse.ArgumentTypeError('expected a JSON list of run flags, ["--matrices=3000"]')
    return found


def prewarm(state: Any, replicas: int, threads: int | None) -> bool:
    """Set up what the first run would (devices, probe buffers) on a CPU; an accelerator is
    left alone until a run takes its turn in the queue, since opening it holds it. Returns
    whether it did (and `prewarm_queued` may follow)."""
    if state is None or probe_kind() != "CPU":
        return False
    try:
        state.prewarm(replicas, threads)
    except StopRequested:  # SIGTERM while prewarming: the worker ends, as at any other time
        raise
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the first run says it in its words
        say_skipped(error)
        return False
    return True


def prewarm_queued(state: Any, expected: Callable[[], Any] = lambda: None) -> None:
    """After `prewarm`, in the machine's queue (so no measurement runs beside the work): one
    round of the probes (nothing kept of its readings: the first run's probes are then the
    short ones, 0.3 s against 0.9 s here), the inputs of the run `expected` returns and its
    graph strategies' functions, traced and called once on them (its first calls are then
    warm ones, as a repeated run's are), and SciPy's stats, which a run of several variants
    reads as each one finishes."""
    try:
        config = expected()
        with RunQueue().turn():
            state.prewarm_probes()
            if config is not None:
                state.prewarm_inputs(config)
                state.prewarm_functions(config)
                import scipy.stats  # noqa: F401 - 0.7 s the first run would spend between blocks
    except StopRequested:
        raise
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the first run says it in its words
        say_skipped(error)


def say_skipped(error: BaseException) -> None:
    """A prewarm that failed is only said: the first run meets the cause and says it itself."""
    print(f"warning: prewarm skipped: {type(error).__name__}: {error}", file=sys.stderr)


def request_waiting() -> bool:
    """Whether a request (or the end of input) is on stdin already."""
    return bool(select.select([sys.stdin.fileno()], [], [], 0)[0])


def command_serve(
    args: argparse.Namespace, main: Main, parse: Callable[[list[str]], Any] | None = None
) -> int:
    """Serve requests until end of input or the idle timeout; `main` runs each one, `parse`
    reads `--expect`'s run arguments into a config."""
    quiet_tensorflow()
    state = warm_state()
    if args.prewarm and prewarm(state, args.replicas, args.threads) and not request_waiting():
        expect = getattr(args, "expect", None)  # (a waiting run does this work itself, at once)
        prewarm_queued(state, lambda: parse(expect) if expect and parse else None)
    print(json.dumps(Ready().to_dict()), flush=True)
    with kept_peers():  # JAX's and PyTorch's processes stay for the next run, as this one does
        return serve_lines(args, state, main)


def serve_lines(args: argparse.Namespace, state: Any, main: Main) -> int:
    """Run each request line until end of input, the idle timeout, or an interrupt."""
    reader = LineReader(sys.stdin.fileno())
    while True:
        line = reader.next_line(args.idle_timeout)
        if line is None:
            return EXIT_OK  # idle for too long: end, and free the device for others
        if not line:
            return EXIT_OK
        if not line.strip():
            continue
        try:
            ended = handle(line, state, main)
        except StopRequested:  # the request still gets its one exit line, then the worker ends
            print(json.dumps(Exit(STOPPED, STOPPED_MESSAGE).to_dict()), flush=True)
            raise
        print(json.dumps(ended.to_dict()), flush=True)
        if ended.code == INTERRUPTED:  # Ctrl-C ends the worker, not only its request
            return INTERRUPTED

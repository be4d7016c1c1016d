"""Runs a benchmark in a spawned `python -m engine run --progress jsonl` worker process.

The dashboard never imports TensorFlow: a fresh worker per run can set its own logical-device
layout, frees device memory when it exits, can be cancelled by ending it, and shares the CLI's
code path (and the CLI's machine-wide queue), so the two can never disagree.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from engine.cli.flags import cli_args, sweep_cli_args
from engine.results.events import (
    Event,
    Phase,
    Queued,
    ResultWritten,
    Sample,
    Started,
    SweepDone,
    SweepPoint,
    SweepStarted,
    VariantStarted,
    event_from_dict,
)
from engine.spec.config import BenchConfig
from engine.spec.sweep import SweepSpec

ROOT = Path(__file__).resolve().parents[2]
KILL_GRACE_S = 3.0
STDERR_LINES_KEPT = 40

# Terminal states; anything else means the job is still queued or running.
FINISHED = ("done", "refused", "failed", "died", "cancelled")


@dataclass
class JobStatus:
    state: str = "starting"  # starting | queued | running | done | refused | failed | died | ...
    queue_position: int | None = None
    phase: str = ""
    variant: str = ""
    variant_index: int = 0
    variant_count: int = 0
    sample: int = 0
    samples: int = 0
    elapsed_s: float = 0.0
    points_done: int = 0
    points_total: int = 0
    eta_s: float | None = None
    sweep_id: str = ""
    message: str = ""
    result_path: str | None = None
    events: list[Event] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.state in FINISHED


class Job:
    """One worker process and a thread that follows its progress events."""

    def __init__(self, command: str, args: list[str], python: str = sys.executable) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="matvec-run-"))
        self.result_path = self.workdir / "results.json"
        self.command = [python, "-m", "engine", command, *args]
        self.command += ["--progress", "jsonl", "--json", str(self.result_path)]
        self.started_at = time.monotonic()
        self._status = JobStatus()
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own process group, so cancel ends all of it
        )
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        threading.Thread(target=self._follow, daemon=True).start()

    @classmethod
    def for_run(cls, config: BenchConfig, repetitions: int = 1) -> Job:
        """A run; with repetitions > 1, that many fresh processes and a group file."""
        return cls("run", [*cli_args(config), f"--repetitions={repetitions}"])

    @classmethod
    def for_sweep(cls, spec: SweepSpec) -> Job:
        return cls("sweep", sweep_cli_args(spec))

    def status(self) -> JobStatus:
        with self._lock:
            copy = JobStatus(**{**self._status.__dict__, "events": list(self._status.events)})
        if not copy.finished:
            copy.elapsed_s = time.monotonic() - self.started_at
        return copy

    def cancel(self) -> None:
        """End the worker (and anything it started); the dashboard stays usable."""
        self._cancelled.set()
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=KILL_GRACE_S)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line.rstrip())

    def _follow(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                event = event_from_dict(json.loads(line))
            except json.JSONDecodeError:
                continue
            if event is None:
                continue
            with self._lock:
                apply_event(self._status, event)
        code = self.process.wait()
        with self._lock:
            finish(self._status, code, self._cancelled.is_set(), list(self._stderr))
            if self._status.state == "done":
                self._status.result_path = str(self.result_path)
            self._status.elapsed_s = time.monotonic() - self.started_at


def apply_event(status: JobStatus, event: Event) -> None:
    """Fold one progress event from the worker into the status shown on the page."""
    status.events.append(event)
    if isinstance(event, Queued):
        status.state, status.queue_position = "queued", event.position
    elif isinstance(event, Phase):
        status.state, status.queue_position = "running", None
        status.phase = event.phase
    elif isinstance(event, Started):
        status.variant_count = len(event.variants)
    elif isinstance(event, VariantStarted):
        status.variant = event.variant
        status.variant_index += 1
        status.phase, status.sample, status.samples = "timing", 0, 0
    elif isinstance(event, Sample):
        status.sample, status.samples = event.sample, event.of
    elif isinstance(event, SweepStarted):
        status.sweep_id = event.sweep_id
        status.points_total = event.todo
    elif isinstance(event, SweepPoint):
        status.points_done, status.eta_s = event.index, event.eta_s
        status.variant_index, status.variant_count = 0, 0
    elif isinstance(event, SweepDone | ResultWritten) and status.sweep_id:
        status.points_done = status.points_total


def finish(status: JobStatus, code: int, cancelled: bool, stderr: list[str]) -> None:
    last_line = next((line for line in reversed(stderr) if line.strip()), "")
    if cancelled:
        status.state, status.message = "cancelled", "Run cancelled; the worker was ended."
    elif code == 0:
        status.state, status.message = "done", ""
    elif code == 2:
        status.state = "refused"
        status.message = last_line.removeprefix("error: ") or "the engine refused the settings"
    elif code < 0:
        name = signal.Signals(-code).name
        status.state = "died"
        status.message = (
            f"The worker process died ({name}); if it was SIGKILL the machine may have run "
            "out of memory. Nothing was recorded for this run."
        )
    else:
        status.state = "failed"
        status.message = last_line or f"worker exited with code {code}"

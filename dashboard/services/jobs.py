"""One-shot engine processes the page follows (`Job`: repetitions and sweeps, each a fresh
`python -m engine run|sweep --progress jsonl`), and what every tracked run shares with the
warm worker's (`TrackedRun`: its status folded from events, its end, its results' folder).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

from dashboard.services.job_status import JobStatus, apply_event, event_of_line, finish
from engine.cli.flags import cli_args, sweep_cli_args
from engine.process.children import (
    ENGINE_ROOT,
    Child,
    engine_command,
    engine_environment,
    exchange,
)
from engine.process.parent_watch import END_WITH_PARENT
from engine.results.events import Event
from engine.run_settings.config import BenchConfig
from engine.run_settings.sweep import SweepSpec


def spawn_engine(command: list[str], stdin: int, niceness: int = 0) -> Child:
    """Start `command` (an engine process) as a `Child`: its own process group, so ending it
    ends all it started, and the last lines of its stderr kept for a message."""
    environment = engine_environment(**{END_WITH_PARENT: "1"})  # also when Streamlit is killed
    return Child(command, stdin=stdin, env=environment, cwd=ENGINE_ROOT, niceness=niceness)


class TrackedRun:
    """What the page reads of a job, whichever process runs it: its status, folded from the
    events under a lock, and its end."""

    def __init__(self, config: BenchConfig | None) -> None:
        self.config = config  # a run's settings, for the results as they come
        self.workdir = Path(tempfile.mkdtemp(prefix="matvec-run-"))
        self.result_path = self.workdir / "results.json"
        # The page reads the results into its session once the run is done; the directory goes
        # with the job (a later run replaces it) or with the server, never left in /tmp.
        self.remove_workdir = weakref.finalize(self, shutil.rmtree, self.workdir, True)
        self.started_at = time.monotonic()
        self._status = JobStatus(max_samples=config.repeats if config else 0)
        self._lock = threading.Lock()
        self._cancelled = threading.Event()

    def status(self) -> JobStatus:
        with self._lock:
            copy = self._status.snapshot()
        if not copy.finished:
            copy.elapsed_s = time.monotonic() - self.started_at
        return copy

    def apply(self, event: Event) -> None:
        with self._lock:
            eta = self._status.eta_s
            apply_event(self._status, event)
            if self._status.eta_s is not eta:  # a new estimate: the countdown starts from now
                self._status.eta_at_s = time.monotonic() - self.started_at

    def exited(self, code: int, lines: list[str]) -> None:
        """The run is over: its state from the exit code and the last error lines (once)."""
        with self._lock:
            if self._status.finished:
                return
            finish(self._status, code, self._cancelled.is_set(), lines)
            if self._status.state == "done":
                self._status.result_path = str(self.result_path)
            self._status.elapsed_s = time.monotonic() - self.started_at


class Job(TrackedRun):
    """One worker process and a thread that follows its progress events."""

    def __init__(
        self,
        command: str,
        args: list[str],
        python: str = sys.executable,
        config: BenchConfig | None = None,
        niceness: int = 0,
    ) -> None:
        """`niceness`: lower the process's priority (a first look, which must not take the CPU
        from the worker it runs beside)."""
        super().__init__(config)
        self.command = engine_command(command, *args, python=python)
        self.command += ["--progress", "jsonl", "--json", str(self.result_path)]
        self.child = spawn_engine(self.command, subprocess.DEVNULL, niceness)
        self.process = self.child.process
        threading.Thread(target=self._follow, daemon=True).start()

    @classmethod
    def for_run(cls, config: BenchConfig, repetitions: int = 1) -> Job:
        """A run; with repetitions > 1, that many fresh processes and a group file."""
        return cls("run", [*cli_args(config), f"--repetitions={repetitions}"], config=config)

    @classmethod
    def for_sweep(cls, spec: SweepSpec, fill_gaps: int = 0) -> Job:
        gaps = [f"--fill-gaps={fill_gaps}"] if fill_gaps else []
        return cls("sweep", [*sweep_cli_args(spec), *gaps])

    def cancel(self) -> None:
        """End the worker (and anything it started); the dashboard stays usable."""
        self._cancelled.set()
        self.child.end()

    def _follow(self) -> None:
        ended = exchange(self.child, None, self._on_line)
        self.exited(ended.code, self.child.stderr_tail())

    def _on_line(self, line: str) -> None:
        event = event_of_line(line)
        if event is not None:
            self.apply(event)

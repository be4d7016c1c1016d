"""Runs benchmarks in worker processes: the dashboard itself never imports TensorFlow.

A single run goes to a warm worker (`python -m engine serve`, see `WorkerPool`), kept alive
between runs, one per device layout, so a repeated run skips TensorFlow's start, the probe
buffers and the inputs. Repetitions (each must be a fresh process) and sweeps get a one-shot
`python -m engine run|sweep --progress jsonl` process (`Job`). Either way the engine's CLI code
runs, with its machine-wide queue, checks and files, so the page and the CLI never disagree;
cancelling ends the process (the next run starts a new one), and a crash is reported as
the job's state and never takes the page down.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from dashboard.services.first_look import FIRST_LOOK_NICENESS, first_look_config
from dashboard.services.job_status import JobStatus, event_of_line
from dashboard.services.jobs import Job, TrackedRun, spawn_engine
from engine.catalogue.catalog import strategy_info
from engine.cli.flags import cli_args
from engine.cli.serve import MAX_IDLE_TIMEOUT_S
from engine.machine.settings import seconds_from_environment
from engine.process.children import engine_command, exchange
from engine.results.events import Event, Exit, Ready, Sample
from engine.run_settings.config import BenchConfig
from engine.run_settings.sweep import SweepSpec

DEFAULT_IDLE_TIMEOUT_S = 600.0


def idle_timeout_s() -> float:
    """`MATVEC_WORKER_IDLE_S`: seconds a warm worker waits for a run (default 600), at most
    what the worker takes. An invalid value is refused (ConfigError naming it): the app checks
    the environment when it starts, as the CLI does."""
    return seconds_from_environment(
        "MATVEC_WORKER_IDLE_S", DEFAULT_IDLE_TIMEOUT_S, most=MAX_IDLE_TIMEOUT_S
    )


# A worker idle for nearly its timeout may end under a new request: it is replaced instead.
IDLE_MARGIN_S = 5.0


@dataclass(frozen=True)
class Layout:
    """What TensorFlow fixes when it starts, so one worker serves only runs that agree on it."""

    replicas: int
    threads: int | None

    @classmethod
    def of(cls, config: BenchConfig) -> Layout:
        return cls(config.replicas, config.threads)


class WarmWorker:
    """One `python -m engine serve` process; it runs one request at a time, for one layout."""

    def __init__(
        self,
        layout: Layout,
        python: str = sys.executable,
        prewarm: bool = False,
        expect: BenchConfig | None = None,
    ) -> None:
        """`expect`: the run its first request will likely be (the page's settings), whose
        inputs a prewarmed worker makes while the user reads the page."""
        self.layout = layout
        self.last_used = time.monotonic()
        self.job: WarmJob | None = None
        self.runs = 0
        self.python = python
        # Set by the worker's `ready` line: TensorFlow is up (and prewarmed), so a run sent
        # now waits for nothing but the queue.
        self.ready = threading.Event()
        self._lock = threading.Lock()
        command = engine_command("serve", f"--idle-timeout={idle_timeout_s():g}", python=python)
        if prewarm:  # its devices and probe buffers made before the first run (CPU only)
            command += ["--prewarm", f"--replicas={layout.replicas}"]
            command += [f"--threads={layout.threads}"] if layout.threads else []
            command += ["--expect", json.dumps(cli_args(expect))] if expect else []
        self.child = spawn_engine(command, subprocess.PIPE)
        self.process = self.child.process
        threading.Thread(target=self._follow, daemon=True).start()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    @property
    def busy(self) -> bool:
        with self._lock:
            return self.job is not None

    def usable(self, now: float) -> bool:
        """Alive, free, and not about to end by its own idle timeout."""
        return (
            self.alive and not self.busy and now - self.last_used < idle_timeout_s() - IDLE_MARGIN_S
        )

    def submit(self, job: WarmJob, arguments: list[str]) -> None:
        with self._lock:
            self.job = job
        job.warm = self.runs > 0
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps({"run": arguments}) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the worker is gone: `_follow` reports it to the job

    def end(self) -> None:
        """End the worker and anything it started (a peer process, a repetition)."""
        self.child.end()

    def _follow(self) -> None:
        code = exchange(self.child, None, self._on_line).code
        with self._lock:
            job, self.job = self.job, None
        if job is not None:  # the worker ended in the middle of a run: that run's outcome
            if code == 0:  # it ended on its own (idle) just as the request came
                job.exited(1, [WORKER_ENDED])
            else:
                job.exited(code, self.child.stderr_tail())

    def _on_line(self, line: str) -> None:
        """One line of the worker's stdout: an event of the job it is running, or its end."""
        event = event_of_line(line)
        if event is None:
            return
        if isinstance(event, Ready):
            self.ready.set()
            with self._lock:
                waiting = self.job
            if waiting is not None:  # its run comes next: a look still going would delay it
                waiting.end_first_look()
            return
        with self._lock:
            job = self.job
            if isinstance(event, Exit):
                self.job = None
                self.runs += 1
                self.last_used = time.monotonic()
        if job is None:
            return
        if isinstance(event, Exit):
            job.exited(event.code, [event.message])
        else:
            job.apply(event)


WORKER_ENDED = "the warm worker ended before the run finished; run it again"


class WarmJob(TrackedRun):
    """One run on a warm worker: the same status and cancel as a one-shot `Job`. Sent to a
    worker still starting TensorFlow, its NumPy variants are looked at meanwhile in a process
    of their own (`first_look.py`), shown until the run's own samples come."""

    def __init__(self, worker: WarmWorker, config: BenchConfig) -> None:
        super().__init__(config)
        self.worker = worker
        self.warm = False
        self.first_look: Job | None = None
        self.look_ended = False
        look = None if worker.ready.is_set() else first_look_config(config)
        if look is not None:  # started first: it takes the queue before the worker's run
            flags = [*cli_args(look), "--no-history", "--no-ceiling"]
            self.first_look = Job("run", flags, worker.python, look, FIRST_LOOK_NICENESS)
        arguments = [*cli_args(config), "--progress", "jsonl", "--json", str(self.result_path)]
        worker.submit(self, arguments)
        with self._lock:
            self._status.warm = self.warm

    def apply(self, event: Event) -> None:
        """A sample of the run means it holds the machine's queue: a first look not finished
        by then is still queued behind it, and would only look after the answer; it ends (as
        it does when the worker says it is ready: what it measured stays on the page)."""
        super().apply(event)
        if isinstance(event, Sample):
            self.end_first_look()

    def exited(self, code: int, lines: list[str]) -> None:
        super().exited(code, lines)
        self.end_first_look()

    def end_first_look(self) -> None:
        """End the look unless it has ended (once: the run's later samples find it done)."""
        look = self.first_look
        if look is not None and not self.look_ended:
            self.look_ended = True
            if not look.status().finished:
                look.cancel()

    def status(self) -> JobStatus:
        """The run's status; with the first look's, until the run has samples of its own."""
        found = super().status()
        if self.first_look is not None and not (found.results or found.running):
            found.first_look = self.first_look.status()
        return found

    def cancel(self) -> None:
        """End the worker (the next run starts a new one) and the first look, if any."""
        self._cancelled.set()
        if self.first_look is not None:
            self.first_look.cancel()
        self.worker.end()


# How long after a page asks for a warm worker it is started: after the page has drawn.
PREWARM_DELAY_S = 3.0


class WorkerPool:
    """Warm workers by layout, shared by every session of this dashboard server.

    A run takes a free worker of its layout, or starts one; two sessions running at once get
    two workers, and the machine-wide queue still orders their runs. On an accelerator only one
    layout is kept: a GPU's memory or a TPU is held by the process that opened it.
    """

    def __init__(self, python: str = sys.executable) -> None:
        self.python = python
        self.workers: list[WarmWorker] = []
        self._pending: dict[Layout, threading.Timer] = {}  # `prewarm_later`'s timers
        self._lock = threading.Lock()

    def _take(
        self, layout: Layout, accelerator: bool, expect: BenchConfig | None = None
    ) -> WarmWorker:
        """A free, fresh worker of `layout`, or a new one (prewarmed on a CPU; with `expect`'s
        inputs made too, when a page opened with those settings starts it: a worker started
        by a run makes that run's inputs in the run, where its timings show them)."""
        now = time.monotonic()
        with self._lock:
            self.workers = [w for w in self.workers if w.alive]
            for worker in list(self.workers):
                if worker.busy:
                    continue
                if worker.layout == layout and worker.usable(now):
                    return worker
                if worker.layout == layout or accelerator:
                    worker.end()  # stale, or another layout holding the device
                    self.workers.remove(worker)
            worker = WarmWorker(layout, self.python, prewarm=not accelerator, expect=expect)
            self.workers.append(worker)
            return worker

    def run(self, config: BenchConfig, accelerator: bool = False) -> WarmJob:
        return WarmJob(self._take(Layout.of(config), accelerator), config)

    def prewarm(self, config: BenchConfig, accelerator: bool = False) -> None:
        """Start a worker for this layout now (it imports TensorFlow and waits, holding no
        device), so the first run does not wait for TensorFlow to start."""
        layout = Layout.of(config)
        with self._lock:
            if any(w.alive and w.layout == layout for w in self.workers):
                return
        worker = self._take(layout, accelerator, expect=config)
        del worker

    def prewarm_later(
        self, config: BenchConfig, accelerator: bool = False, delay_s: float = PREWARM_DELAY_S
    ) -> None:
        """`prewarm`, `delay_s` from now: a worker importing TensorFlow takes a core, and on a
        two-core machine the page's first load drew 0.8 s later beside it. One timer per layout;
        a run that comes first starts its own worker and the timer then finds it."""
        layout = Layout.of(config)

        def start() -> None:
            with self._lock:
                if self._pending.pop(layout, None) is None:
                    return  # cancelled by `end_all` meanwhile
            self.prewarm(config, accelerator)

        with self._lock:
            if layout in self._pending or any(w.alive and w.layout == layout for w in self.workers):
                return
            timer = threading.Timer(delay_s, start)
            timer.daemon = True
            self._pending[layout] = timer
            timer.start()

    def end_all(self) -> None:
        """End every worker, and every prewarm not started yet (none starts after this)."""
        with self._lock:
            workers, self.workers = self.workers, []
            timers, self._pending = list(self._pending.values()), {}
        for timer in timers:
            timer.cancel()
        for worker in workers:
            worker.end()


POOL = WorkerPool()


def start_run(config: BenchConfig, repetitions: int = 1, device_kind: str = "CPU") -> Job | WarmJob:
    """A single run on a warm worker; repetitions in fresh processes, as they must be. On a TPU
    a run with peers gets a fresh process too: a peer cannot open a TPU TensorFlow holds."""
    accelerator = device_kind != "CPU"
    peers = any(strategy_info(name).in_own_process for name in config.strategies)
    if repetitions > 1 or (device_kind == "TPU" and peers):
        if accelerator:
            POOL.end_all()  # free the device for the fresh process
        return Job.for_run(config, repetitions)
    return POOL.run(config, accelerator)


def start_sweep(spec: SweepSpec, device_kind: str = "CPU", fill_gaps: int = 0) -> Job:
    """A sweep in a fresh process (`fill_gaps`: only that many points, those the history
    predicts least); on an accelerator the warm workers end first, since the process that
    opened the device holds it."""
    if device_kind != "CPU":
        POOL.end_all()
    return Job.for_sweep(spec, fill_gaps)

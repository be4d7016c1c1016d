"""What the page shows of a job: its status, folded from the engine's progress events.

The worker process (`worker.py`) writes JSON lines of the typed events in
`engine.results.events`; each is folded into a `JobStatus` here, and the job's end (exit code,
cancel, the last line of its stderr) sets the state the page draws.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.results.events import (
    Eliminated,
    Event,
    Phase,
    Predicted,
    Provisional,
    Queued,
    ResultWritten,
    Sample,
    Started,
    SweepDone,
    SweepPoint,
    SweepStarted,
    VariantResult,
    VariantStarted,
    event_from_dict,
)

# Terminal states; anything else means the job is still queued or running.
FINISHED = ("done", "refused", "failed", "died", "cancelled")


def event_of_line(line: str) -> Event | None:
    """The progress event a worker's stdout line holds; None for any other line."""
    try:
        return event_from_dict(json.loads(line))
    except json.JSONDecodeError:
        return None


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
    point: str = ""  # the sweep point being run (its key), once the first has started
    eta_s: float | None = None
    eta_at_s: float = 0.0  # the job's elapsed seconds when `eta_s` was estimated
    sweep_id: str = ""
    message: str = ""
    result_path: str | None = None
    events: list[Event] = field(default_factory=list)
    # Each variant's final result as it came (StrategyResult dicts), in the order they came.
    results: dict[str, dict] = field(default_factory=dict)
    variants: tuple[str, ...] = ()
    # The seconds per call of each timed block so far, by variant, until its result comes.
    running: dict[str, list[float]] = field(default_factory=dict)
    warm: bool = False  # the run went to a worker kept from an earlier run
    # Sampling by decision: samples taken so far and the most any variant takes, by variant,
    # and the variants the race eliminated ("110x python_loop's best" style reasons).
    sampled: dict[str, int] = field(default_factory=dict)
    max_samples: int = 0
    eliminated: dict[str, str] = field(default_factory=dict)
    # The answer so far while variants still sample (`events.Provisional`), in words; the
    # run's own answer replaces it when the run ends.
    provisional: str = ""
    # What the history predicts the run will find (`events.Predicted`), in its own words,
    # marked as predicted: shown until the run's own answer replaces it.
    prediction: str = ""
    # A warm run's first look (`first_look.py`): its NumPy variants measured in a process of
    # their own while the worker started TensorFlow, until the run has samples of its own.
    first_look: JobStatus | None = None

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    def snapshot(self) -> JobStatus:
        """A copy the page can read while the follower thread goes on folding events."""
        return JobStatus(
            **{
                **self.__dict__,
                "events": list(self.events),
                "results": dict(self.results),
                "running": {variant: list(times) for variant, times in self.running.items()},
                "sampled": dict(self.sampled),
                "eliminated": dict(self.eliminated),
                "first_look": self.first_look.snapshot() if self.first_look else None,
            }
        )


def _queued(status: JobStatus, event: Queued) -> None:
    status.state, status.queue_position = "queued", event.position


def _phase(status: JobStatus, event: Phase) -> None:
    status.state, status.queue_position = "running", None
    status.phase = event.phase


def _started(status: JobStatus, event: Started) -> None:
    status.variant_count = len(event.variants)
    status.variants = event.variants


def _variant_result(status: JobStatus, event: VariantResult) -> None:
    variant = event.result.get("variant") if isinstance(event.result, dict) else None
    if isinstance(variant, str):
        status.results[variant] = event.result
        status.running.pop(variant, None)


def _variant_started(status: JobStatus, event: VariantStarted) -> None:
    status.variant = event.variant
    status.variant_index += 1
    status.phase, status.sample, status.samples = "timing", 0, 0


def _eliminated(status: JobStatus, event: Eliminated) -> None:
    status.eliminated[event.variant] = f"{event.ratio:.2f}× {event.best}"


def _provisional(status: JobStatus, event: Provisional) -> None:
    status.provisional = event.words()


def _predicted(status: JobStatus, event: Predicted) -> None:
    status.prediction = event.words


def _sample(status: JobStatus, event: Sample) -> None:
    status.sample, status.samples = event.sample, event.of
    status.sampled[event.variant] = event.sample
    status.max_samples = max(status.max_samples, event.of)
    if isinstance(event.seconds, int | float) and event.variant not in status.results:
        status.running.setdefault(event.variant, []).append(float(event.seconds))


def _sweep_started(status: JobStatus, event: SweepStarted) -> None:
    status.sweep_id = event.sweep_id
    status.points_total = event.todo


def _sweep_point(status: JobStatus, event: SweepPoint) -> None:
    if event.index != status.points_done or not status.point:
        status.variant, status.variant_index, status.variant_count = "", 0, 0
    status.points_done, status.eta_s, status.point = event.index, event.eta_s, event.point


def _sweep_over(status: JobStatus, event: SweepDone | ResultWritten) -> None:
    if status.sweep_id:
        status.points_done = status.points_total


# How each kind of event changes what the page shows; any other kind is only kept.
FOLDS: dict[type, Callable[[JobStatus, Any], None]] = {
    Queued: _queued,
    Phase: _phase,
    Started: _started,
    VariantResult: _variant_result,
    VariantStarted: _variant_started,
    Eliminated: _eliminated,
    Provisional: _provisional,
    Predicted: _predicted,
    Sample: _sample,
    SweepStarted: _sweep_started,
    SweepPoint: _sweep_point,
    SweepDone: _sweep_over,
    ResultWritten: _sweep_over,
}


def apply_event(status: JobStatus, event: Event) -> None:
    """Fold one progress event from the worker into the status shown on the page."""
    status.events.append(event)
    fold = FOLDS.get(type(event))
    if fold is not None:
        fold(status, event)


def finish(status: JobStatus, code: int, cancelled: bool, stderr: list[str]) -> None:
    last_line = next((line for line in reversed(stderr) if line.strip()), "")
    if cancelled:
        status.state, status.message = "cancelled", "Run cancelled; the worker was ended."
    elif code in (0, 3):  # 3: it finished, and no variant was correct (the results say why)
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

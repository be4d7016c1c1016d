"""Progress events: what a run says while it works, typed on both ends of the pipe.

The orchestrator emits these objects; the CLI prints them as a tqdm bar or as JSON lines
(`--progress jsonl`); the dashboard's worker reads the lines back with `event_from_dict`. The
event names and fields are written once, here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar


@dataclass(frozen=True)
class Event:
    name: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, **asdict(self)}


@dataclass(frozen=True)
class Queued(Event):
    name: ClassVar[str] = "queued"
    position: int


@dataclass(frozen=True)
class Phase(Event):
    """A run-level phase (starting TensorFlow, peak bandwidth, inputs) or a variant's check."""

    name: ClassVar[str] = "phase"
    phase: str
    variant: str | None = None


@dataclass(frozen=True)
class Started(Event):
    name: ClassVar[str] = "start"
    variants: tuple[str, ...]


@dataclass(frozen=True)
class VariantStarted(Event):
    name: ClassVar[str] = "variant_start"
    variant: str


@dataclass(frozen=True)
class VariantDone(Event):
    name: ClassVar[str] = "variant_done"
    variant: str
    status: str


@dataclass(frozen=True)
class VariantResult(Event):
    """A variant's finished result (`StrategyResult.to_dict()`), sent as soon as it is final,
    so a page can show it while the run goes on; the results JSON stays the record."""

    name: ClassVar[str] = "variant_result"
    result: dict[str, Any]


@dataclass(frozen=True)
class Exit(Event):
    """`serve`: one request is over; `code` is the exit code `run` would have returned and
    `message` its last error line."""

    name: ClassVar[str] = "exit"
    code: int
    message: str = ""


@dataclass(frozen=True)
class Ready(Event):
    """`serve`: the worker has started its framework (and, with `--prewarm`, made its devices,
    probe buffers and expected inputs); a request from now on does not wait for that start."""

    name: ClassVar[str] = "ready"


@dataclass(frozen=True)
class Sample(Event):
    """A variant took its `sample`-th timed block; `seconds` is that block's time per call,
    so a page can draw the samples as they come (they are all in the results at the end)."""

    name: ClassVar[str] = "sample"
    variant: str
    sample: int
    of: int
    seconds: float | None = None


@dataclass(frozen=True)
class Eliminated(Event):
    """The race stopped sampling `variant`: its time is `ratio`× the best's (at least `low`×
    at the race's adjusted level). Its result follows at once."""

    name: ClassVar[str] = "eliminated"
    variant: str
    best: str
    ratio: float
    low: float


@dataclass(frozen=True)
class Provisional(Event):
    """The answer so far: the winner rule (`uncertainty.winner_and_ties`) over the samples so
    far names `leader` and those `tied_with` it, while the `running` variants still sample.
    The run's answer is the same rule over its whole record; this one says it is not that."""

    name: ClassVar[str] = "provisional"
    leader: str
    tied_with: tuple[str, ...] = ()
    running: tuple[str, ...] = ()

    def words(self) -> str:
        """ "provisional: numpy leads, tied so far with einsum; 2 still sampling"."""
        tied = f", tied so far with {', '.join(self.tied_with)}" if self.tied_with else ""
        left = f"{len(self.running)} still sampling" if self.running else "sampling done"
        return f"provisional: {self.leader} leads{tied}; {left}"


@dataclass(frozen=True)
class Predicted(Event):
    """What the history predicts the run will find, before its first sample (the record's
    `prediction`, `analysis/prediction.py`): `words` are the prediction's own sentence,
    marked as predicted; nothing measured is in it."""

    name: ClassVar[str] = "predicted"
    words: str


@dataclass(frozen=True)
class Done(Event):
    name: ClassVar[str] = "done"


@dataclass(frozen=True)
class ResultWritten(Event):
    name: ClassVar[str] = "result"
    run_id: str
    json_path: str | None


@dataclass(frozen=True)
class SweepStarted(Event):
    name: ClassVar[str] = "sweep"
    sweep_id: str
    points: int
    todo: int


@dataclass(frozen=True)
class SweepPoint(Event):
    name: ClassVar[str] = "sweep_point"
    point: str
    index: int
    of: int
    eta_s: float | None


@dataclass(frozen=True)
class SweepRefused(Event):
    name: ClassVar[str] = "sweep_refused"
    point: str
    message: str


@dataclass(frozen=True)
class SweepDone(Event):
    name: ClassVar[str] = "sweep_done"
    sweep_id: str
    points: int
    ran: int
    skipped_done: int
    refused: tuple[str, ...] = ()
    left_for_later: int = 0  # points a sweep that fills gaps did not run this time


EVENT_TYPES: dict[str, type[Event]] = {
    cls.name: cls
    for cls in (
        Queued,
        Phase,
        Started,
        VariantStarted,
        VariantDone,
        VariantResult,
        Exit,
        Ready,
        Sample,
        Eliminated,
        Provisional,
        Predicted,
        Done,
        ResultWritten,
        SweepStarted,
        SweepPoint,
        SweepRefused,
        SweepDone,
    )
}

Progress = Callable[[Event], None]


def silent(_event: Event) -> None:
    return None


def event_from_dict(data: Any) -> Event | None:
    """The event a JSON line describes, or None for anything that is not one of ours."""
    if not isinstance(data, dict):
        return None
    cls = EVENT_TYPES.get(data.get("event"))  # type: ignore[arg-type]
    if cls is None:
        return None
    names = {f.name for f in fields(cls)}
    values = {k: v for k, v in data.items() if k in names}
    for key, value in values.items():
        if isinstance(value, list):
            values[key] = tuple(value)
    try:
        return cls(**values)
    except TypeError:
        return None

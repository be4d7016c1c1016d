"""A GPU variant's call three ways, each on the device's own timer (CUDA events), taken after
its samples so no sample is perturbed (docs/timing.md, "Device time"):

- **warm**: the plain call on one input set, again and again: its inputs stay in the L2
  where they fit;
- **graph**: the same call captured once as a CUDA graph and replayed: no launch from the
  host, what a fused pipeline or a `torch.compile(mode="reduce-overhead")` caller pays;
- **flushed**: the plain call after a write of more than the L2 (`flush_bytes`): its inputs
  come from memory, the cold number.

Each is placed against its own level's ceiling: warm against the level its working set lives
in, flushed against memory's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.measure.uncertainty import median_ci

FORMS = ("warm", "graph", "flushed")
FORM_CALLS = 15  # each form's calls: enough for its median's interval, cheap on a GPU


def _median(values: tuple[float, ...]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


@dataclass(frozen=True)
class DeviceForms:
    warm_s: tuple[float, ...]  # seconds per call, one per call
    graph_s: tuple[float, ...]  # empty where the call could not be captured (`notes` say why)
    flushed_s: tuple[float, ...]
    flush_bytes: int | None  # what each flush wrote (twice the L2)
    timer: str  # "CUDA events"
    notes: tuple[str, ...] = ()

    def summary(
        self, bytes_moved: int, level_bps: float | None, memory_bps: float | None
    ) -> dict[str, Any]:
        """Each form's median and interval, and its fraction of its own ceiling."""
        ceilings = {"warm": level_bps, "graph": level_bps, "flushed": memory_bps}
        found: dict[str, Any] = {}
        for form in FORMS:
            samples = getattr(self, f"{form}_s")
            if not samples:
                found[form] = None
                continue
            median = _median(samples)
            ceiling = ceilings[form]
            found[form] = {
                "median_s": median,
                "median_ci_s": list(median_ci(samples)),
                "ceiling_fraction": bytes_moved / median / ceiling if ceiling else None,
            }
        return found

    def to_dict(self) -> dict[str, Any]:
        return {
            "warm_s": list(self.warm_s),
            "graph_s": list(self.graph_s),
            "flushed_s": list(self.flushed_s),
            "flush_bytes": self.flush_bytes,
            "timer": self.timer,
            "notes": list(self.notes),
        }


def take_forms(
    call: Callable[[], Any],
    timed: Callable[[Callable[[], Any]], float],
    capture: Callable[[Callable[[], Any]], Callable[[], Any]],
    flush: Callable[[], None] | None,
    flush_bytes: int | None,
    timer: str,
    calls: int = FORM_CALLS,
) -> DeviceForms:
    """The three forms of `call` (the variant's call on one input set): `timed(run)` is the
    device's seconds for one `run()` (events around it, synced); `capture(run)` records `run`
    as a graph and returns its replay; `flush()` writes `flush_bytes` (more than the L2)
    before a flushed call, outside its events. A form that cannot be taken is said in
    `notes` and left empty; the others are kept."""
    notes: list[str] = []
    warm = tuple(timed(call) for _ in range(calls))
    graph: tuple[float, ...] = ()
    try:
        replay = capture(call)
        replay()  # the first replay uploads the graph: not a timing
        graph = tuple(timed(replay) for _ in range(calls))
    except Exception as error:  # noqa: BLE001 - a call a graph cannot hold keeps its others
        reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        notes.append(f"no graph replay: {reason}")
    flushed: list[float] = []
    if flush is None:
        notes.append("no flushed form: the L2's size is not known here")
    else:
        for _ in range(calls):
            flush()
            flushed.append(timed(call))
    return DeviceForms(warm, graph, tuple(flushed), flush_bytes, timer, tuple(notes))

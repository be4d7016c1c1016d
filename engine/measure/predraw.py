"""A one-shot run's inputs, drawn while TensorFlow imports.

TensorFlow's import is most of a CLI run's start and runs on one core; drawing the inputs and
their float64 reference took a second more after it (docs/timing.md, "Figures behind the
code"). Started
before the import, on a thread (NumPy's generators and matmul release the GIL), they are ready
when the run asks. Only values are made early, never timed: the run takes exactly what
`make_inputs` and `reference` would have made at the same seed, stream and dtype, the thread
has ended before anything is measured (`wait`, before the peers' processes start), and what
no run took is dropped when it ends (`drop`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from engine.measure.correctness import CHECK_STREAM, make_inputs, reference
from engine.run_settings.config import BenchConfig

Shape = tuple[int, int, int, str, int]  # matrices, rows, columns, dtype, seed
Pair = tuple[np.ndarray, np.ndarray]


@dataclass
class _Draw:
    shape: Shape
    streams: tuple[int, ...]
    check: int  # the stream whose float64 reference is made too (`correctness.check_stream`)
    drawn: dict[int, Pair] = field(default_factory=dict)
    reference: np.ndarray | None = None
    thread: threading.Thread | None = None

    def run(self) -> None:
        try:
            for stream in self.streams:
                self.drawn[stream] = make_inputs(*self.shape, stream=stream)
                if stream == self.check:
                    self.reference = reference(*self.drawn[stream])
        except Exception:  # noqa: BLE001 - the run draws them itself, where a real failure shows
            self.drawn.clear()
            self.reference = None


_pending: _Draw | None = None


def shape_of(config: BenchConfig) -> Shape:
    """What a run's input values depend on."""
    return (config.matrices, config.dim, config.columns, config.dtype, config.seed)


def start(shape: Shape, check: int = CHECK_STREAM) -> None:
    """Draw the first timed set and the check's (`check`: the stream the run's check reads,
    the timed set itself when 0), and the check set's reference, on a thread, from now."""
    global _pending
    drop()
    _pending = _Draw(shape, tuple(dict.fromkeys((0, check))), check)
    _pending.thread = threading.Thread(target=_pending.run, name="matvec-predraw", daemon=True)
    _pending.thread.start()


def wait() -> None:
    """Until the drawing has ended: nothing may run beside a measurement."""
    if _pending is not None and _pending.thread is not None:
        _pending.thread.join()


def _drawn_for(shape: Shape) -> _Draw | None:
    """What was drawn for `shape` (after waiting for the thread), or None."""
    if _pending is None or _pending.shape != shape:
        return None
    wait()
    return _pending


def take(shape: Shape, stream: int) -> Pair | None:
    """The timed set drawn early for `shape` and `stream` (once), or None: draw it now."""
    found = _drawn_for(shape)
    return found.drawn.pop(stream, None) if found else None


def take_check(shape: Shape) -> tuple[Pair, np.ndarray] | None:
    """The check set drawn early for `shape` with its float64 reference (once), or None; a
    check of the timed set itself takes that set with `take` and its reference here."""
    found = _drawn_for(shape)
    if found is None or found.check == 0 or found.reference is None:
        return None
    if found.check not in found.drawn:
        return None
    check, found.reference = (found.drawn.pop(found.check), found.reference), None
    return check


def take_reference(shape: Shape, check: int) -> np.ndarray | None:
    """The float64 reference drawn early for `shape`'s check set `check` (once), or None."""
    found = _drawn_for(shape)
    if found is None or found.check != check or found.reference is None:
        return None
    expected, found.reference = found.reference, None
    return expected


def drop() -> None:
    """Forget whatever was drawn and not taken (after waiting for the thread)."""
    global _pending
    wait()
    _pending = None

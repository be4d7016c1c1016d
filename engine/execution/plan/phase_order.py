"""The phases of a measurement, in the one order every process kind goes through them.

The run's own process (`run/orchestrator.py`'s `measure`, TensorFlow's or the host's) and each
framework's process (`peers/worker.py`'s `run`, JAX's several processes included) enter the same
phases in the same order; a process may skip one (no profile asked, an interrupted run stops
early) but never goes back, so a probe "after" is after every variant's last call and the
record is made of finished variants. Each process keeps the phases it went through in its
sampling record (`phases`), which says where an interrupted or failed run stopped.
"""

from __future__ import annotations

PHASES: tuple[tuple[str, str], ...] = (
    ("start", "the framework imported, its devices and threads set"),
    ("probe", "the device's read bandwidth before any variant (the ceiling)"),
    ("place", "the input sets made and put on the device, the float64 reference made"),
    ("prepare", "each variant built, called once, warmed up and checked against float64"),
    ("sample", "every variant's timed blocks, interleaved or raced"),
    ("finish", "each variant's timing recorded from its samples"),
    ("device forms", "on a GPU, each variant's call as a graph replay and after an L2 flush"),
    ("profile", "each variant under its framework's profiler (when asked)"),
    ("release", "the inputs freed, the device's memory peak read"),
    ("probe again", "the read bandwidth after the variants: a ceiling that moved is seen"),
    ("record", "the results written, one record per variant"),
)
PHASE_NAMES = tuple(name for name, _ in PHASES)


class PhaseOrderError(RuntimeError):
    """A process entered a phase out of the one order: a bug in the engine, never the user's."""


class PhaseOrder:
    """The phases one process entered, each after the ones before it in `PHASES`."""

    def __init__(self) -> None:
        self.entered: list[str] = []

    def enter(self, phase: str) -> None:
        if phase not in PHASE_NAMES:
            raise PhaseOrderError(f"{phase!r} is not a phase; the phases: {PHASE_NAMES}")
        if self.entered and PHASE_NAMES.index(phase) <= PHASE_NAMES.index(self.entered[-1]):
            raise PhaseOrderError(f"{phase!r} entered after {self.entered[-1]!r}")
        self.entered.append(phase)

    def to_list(self) -> list[str]:
        return list(self.entered)

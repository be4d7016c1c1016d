"""Running a sweep: every point not yet stored, one at a time, each saved as it completes.

One replica layout per sweep keeps every point in one process (TensorFlow starts once), and
the peak bandwidth is measured once for the sweep.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from engine.backends.tensorflow.bandwidth import measure_peak
from engine.backends.tensorflow.devices import setup_devices
from engine.execution.runner import run_benchmark
from engine.machine.host import last_level_cache_bytes
from engine.measure import memory
from engine.results.events import (
    Phase,
    Progress,
    SweepDone,
    SweepPoint,
    SweepRefused,
    SweepStarted,
    silent,
)
from engine.spec.sweep import SweepSpec


def run_sweep(spec: SweepSpec, history: Any, progress: Progress | None = None) -> SweepDone:
    """Run every point not yet stored for this sweep; the returned event counts them."""
    emit = progress or silent
    points = spec.points()
    sweep_id = spec.sweep_id
    history.add_sweep(
        sweep_id,
        datetime.now(timezone.utc).isoformat(timespec="seconds"),
        spec.base.label,
        spec.to_dict(),
        len(points),
    )
    done = history.done_points(sweep_id)
    todo = [p for p in points if spec.point_key(p) not in done]
    emit(SweepStarted(sweep_id, len(points), len(todo)))
    setup = setup_devices(spec.replicas if any(p.mode != "single" for p in points) else 1)
    llc_bytes, _ = last_level_cache_bytes()
    emit(Phase("peak bandwidth"))
    peak = measure_peak(setup.devices[0], setup.kind, llc_bytes)
    refused: list[str] = []
    started = time.perf_counter()
    for index, config in enumerate(todo):
        key = spec.point_key(config)
        emit(SweepPoint(key, index, len(todo), eta_s(started, index, len(todo))))
        try:
            result = run_benchmark(config, setup=setup, peak=peak)
        except memory.PreflightError as error:
            refused.append(f"{key}: {error}")
            emit(SweepRefused(key, str(error)))
            continue
        history.add_run(result, sweep_id=sweep_id, point_key=key)
    outcome = SweepDone(
        sweep_id=sweep_id,
        points=len(points),
        ran=len(todo) - len(refused),
        skipped_done=len(points) - len(todo),
        refused=tuple(refused),
    )
    emit(outcome)
    return outcome


def eta_s(started: float, done: int, total: int) -> float | None:
    """Mean time per finished point times the points left (None before the first)."""
    if done == 0:
        return None
    return (time.perf_counter() - started) / done * (total - done)

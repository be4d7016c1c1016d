"""Running a sweep: every point not yet stored, one at a time, each saved as it completes.

Every point is a run of the one orchestrator, with whatever frameworks are installed. One
own process serves the whole sweep (TensorFlow, when usable, starts once, with one replica
layout), so does one process per peer framework (JAX, PyTorch: `peers/pool.py`, on a machine
without an accelerator), and the read bandwidth is measured by the first point and reused by
the rest. A point is planned as a run is (`plan/run_plan.py`): judged by the machine's calibrated
floor, and a point the history has measured before (in another sweep, or a run) learns from it
(`analysis/history_prior.py`), and so does a point whose problem this sweep measured with fewer
matrices: a variant that point found far slower than its best is confirmed here by one block
(`for_more_matrices`), not warmed up and sampled in full again.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from engine.analysis.history_prior import Prior, for_more_matrices, point_priors
from engine.analysis.prediction import weakest
from engine.execution.peers.pool import kept_peers
from engine.execution.plan.history_reads import PREDICTION_RUNS
from engine.execution.plan.run_plan import RunPlan, plan_run
from engine.execution.run.orchestrator import measure
from engine.execution.run.start import start_run
from engine.machine.accelerators import probe_kind
from engine.measure import memory
from engine.results.events import (
    Event,
    Phase,
    Progress,
    Started,
    SweepDone,
    SweepPoint,
    SweepRefused,
    SweepStarted,
    VariantDone,
    VariantStarted,
    silent,
)
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig
from engine.run_settings.sweep import SweepSpec


def run_sweep(
    spec: SweepSpec, history: Any, progress: Progress | None = None, fill_gaps: int = 0
) -> SweepDone:
    """Run every point not yet stored for this sweep; the returned event counts them.
    `fill_gaps`: only that many of them, those whose prediction from the history says least
    (none made first, then the widest interval: `prediction.weakest`), said as a phase."""
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
    waiting = len(todo)
    if fill_gaps and fill_gaps < len(todo):
        todo = gaps_to_fill(todo, history, fill_gaps)
        emit(Phase(f"filling gaps: the {len(todo)} points the history predicts least"))
    emit(SweepStarted(sweep_id, len(points), len(todo)))
    own = start_run(
        dict.fromkeys(name for point in points for name in point.strategies),
        probe_kind(),
        replicas=spec.replicas if any(p.mode != "single" for p in points) else 1,
    ).own
    peak = None
    measured = SmallerPoints(history.sweep_runs(sweep_id) if done else ())  # a resumed one's
    refused: list[str] = []
    started = time.perf_counter()
    with kept_peers():  # one process per peer framework serves every point
        for index, config in enumerate(todo):
            key = spec.point_key(config)
            emit(SweepPoint(key, index, len(todo), eta_s(started, index, len(todo))))
            within = PointProgress(emit, key, index, len(todo), started)
            try:
                # through the run's one door: the machine's floor, the history's priors here
                plan = measured.teach(plan_run(config, history, own.kind, peak=peak))
                result = measure(plan, own, progress=within)
            except memory.PreflightError as error:
                refused.append(f"{key}: {error}")
                emit(SweepRefused(key, str(error)))
                continue
            history.add_run(result, sweep_id=sweep_id, point_key=key)
            measured.add(result)
            peak = peak or result.peak  # the first point's probes serve the sweep
    outcome = SweepDone(
        sweep_id=sweep_id,
        points=len(points),
        ran=len(todo) - len(refused),
        skipped_done=len(points) - waiting,
        refused=tuple(refused),
        left_for_later=waiting - len(todo),
    )
    emit(outcome)
    return outcome


def gaps_to_fill(todo: list[BenchConfig], history: Any, count: int) -> list[BenchConfig]:
    """The `count` points of `todo` whose prediction from this machine's history says least,
    in the grid's order (`analysis/prediction.py`)."""
    host, kind = platform.node(), probe_kind()
    families: dict[tuple[Any, ...], list[RunResult]] = {}

    def runs_of(config: BenchConfig) -> list[RunResult]:
        family = (config.dtype, config.mode, config.replicas, config.cache)
        if family not in families:
            families[family] = history.family_runs(config, host, kind, PREDICTION_RUNS)
        return families[family]

    chosen = {id(c) for c in weakest(todo, runs_of, history.prediction_record(host, kind), count)}
    return [config for config in todo if id(config) in chosen]


class SmallerPoints:
    """What this sweep's finished points found far slower, by problem (every setting but the
    matrix count) and matrix count: what a later point with more matrices learns from."""

    def __init__(self, runs: Iterable[RunResult] = ()) -> None:
        """`runs`: the points a resumed sweep stored before."""
        self.found: dict[str, dict[int, dict[str, Prior]]] = {}
        for run in runs:
            self.add(run)

    @staticmethod
    def problem(config: BenchConfig) -> str:
        settings = {k: v for k, v in config.to_dict().items() if k != "matrices"}
        return json.dumps(settings, sort_keys=True, default=str)

    def add(self, run: RunResult) -> None:
        sizes = self.found.setdefault(self.problem(run.config), {})
        sizes[run.config.matrices] = point_priors(run)

    def teach(self, plan: RunPlan) -> RunPlan:
        """`plan` with the priors of this problem's largest point of fewer matrices; the
        history's own for this very point, where it has one, come first."""
        sizes = self.found.get(self.problem(plan.config), {})
        fewer = [size for size in sizes if size < plan.config.matrices]
        if not fewer:
            return plan
        learnt = for_more_matrices(sizes[max(fewer)], plan.config.matrices)
        return dataclasses.replace(plan, priors={**learnt, **plan.priors})


def eta_s(started: float, done: float, total: int) -> float | None:
    """Mean time per finished point times the points left (None before any work is done);
    `done` may be fractional: a point counts by the share of its variants finished."""
    if done <= 0:
        return None
    return (time.perf_counter() - started) / done * (total - done)


class PointProgress:
    """One point's run, seen from the sweep: which variant it is on, and an ETA refined as
    each variant finishes, so an 84-point grid has an estimate seconds in, not a point in.
    The point's samples and results stay out of the sweep's stream (the history keeps them)."""

    def __init__(self, emit: Progress, key: str, index: int, total: int, started: float):
        self.emit, self.key, self.index, self.total = emit, key, index, total
        self.started = started
        self.variants, self.finished = 0, 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, Started):
            self.variants = len(event.variants)
            self.emit(event)
        elif isinstance(event, VariantStarted):
            self.emit(event)
        elif isinstance(event, VariantDone) and self.variants:
            self.finished = min(self.variants, self.finished + 1)
            done = self.index + self.finished / self.variants
            eta = eta_s(self.started, done, self.total)
            self.emit(SweepPoint(self.key, self.index, self.total, eta))

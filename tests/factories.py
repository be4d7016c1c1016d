"""Synthetic RunResults for tests of storage, comparison and reports (no TensorFlow)."""

from __future__ import annotations

import uuid

from engine.measure.peak import Peak
from engine.results.model import StrategyResult
from engine.results.parts import Environment
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig


def make_run(
    samples: dict[str, list[float]] | None = None,
    *,
    label: str = "",
    device_kind: str = "CPU",
    matrices: int = 100,
    dim: int = 10,
    run_id: str | None = None,
    created_at: str = "2026-11-30T12:00:00+00:00",
    peak: float = 20e9,
) -> RunResult:
    samples = samples or {"einsum": [0.002, 0.0021, 0.0019, 0.002], "numpy": [0.003] * 4}
    work_bytes = 4 * matrices * (dim * dim + 2 * dim)
    results = [
        StrategyResult(
            strategy=variant.split("+")[0],
            variant=variant,
            mode="single",
            status="ok",
            matrices=matrices,
            flops=2 * matrices * dim * dim,
            bytes=work_bytes,
            samples_s=tuple(times),
            calls_per_sample=1,
            first_call_s=0.1,
            transfer_s=0.001,
            dispatch_s=0.0001,
            max_rel_error=1e-7,
            correct=True,
        )
        for variant, times in samples.items()
    ]
    return RunResult(
        run_id=run_id or uuid.uuid4().hex,
        created_at=created_at,
        environment=Environment(
            device_kind=device_kind,
            hostname="test-host",
            devices=("cpu:0",),
            frameworks={"tensorflow": {"version": "2.21.0"}},
        ),
        config=BenchConfig(
            matrices=matrices,
            dim=dim,
            strategies=tuple(dict.fromkeys(v.split("+")[0] for v in samples)),
            label=label,
        ),
        peak=Peak(bandwidth_bytes_per_s=peak, method="synthetic"),
        results=results,
        measured_here=True,  # as the orchestrator makes it: a run this tool measured
    )

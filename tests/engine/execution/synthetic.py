"""Synthetic variants with known answers for the sampling tests: each has a true time per call,
its samples lognormal around it, and every run draws a run-level offset per variant (what
`NoiseFloor.ratio_log_sd` models: the part of a ratio that one run cannot see)."""

from __future__ import annotations

import math

import numpy as np

from engine.execution.sampling.loop import take_samples
from engine.harness.recording import Prepared
from engine.measure.racing import RacePlan
from engine.results.model import StrategyResult


class SyntheticSampler:
    """What the sampling phase needs of a Sampler, with samples drawn from a known law."""

    def __init__(
        self, true_s: float, rng: np.random.Generator, noise: float, budget_blocks: int = 10**6
    ):
        self.true_s, self.rng, self.noise = true_s, rng, noise
        self.samples: list[float] = []
        self.budget_blocks = budget_blocks
        self.rewarms = 0
        self.confirming = False

    def can_sample(self) -> bool:
        return not self.samples or len(self.samples) < self.budget_blocks

    def rewarm(self) -> None:
        self.rewarms += 1

    def per_call_s(self) -> float:
        return self.true_s

    def sample(self) -> float:
        self.samples.append(self.true_s * math.exp(self.rng.normal(0.0, self.noise)))
        return self.samples[-1]


def synthetic_run(
    times: dict[str, float],
    seed: int,
    *,
    noise: float = 0.05,
    run_offset: float = 0.04 / math.sqrt(2),
    plan: RacePlan | None = None,
    budget_blocks: int = 10**6,
    correct: dict[str, bool] | None = None,
    load: float = 0.0,
    reduced: tuple[str, ...] = (),
    elsewhere: dict[str, list[float]] | None = None,
) -> tuple[list[Prepared], list[object]]:
    rng = np.random.default_rng(seed)
    items = []
    for name, true_s in times.items():
        shifted = true_s * math.exp(rng.normal(0.0, run_offset))  # this run's own offset
        result = StrategyResult(name, name, "single", "ok", 1, 1, 1)
        result.correct = (correct or {}).get(name, True)
        if name in reduced:
            result.accuracy_class = "bfloat16 storage, float32 accumulation"
        sampler = SyntheticSampler(shifted, rng, noise, budget_blocks)
        items.append(Prepared(result, sampler))  # type: ignore[arg-type]
    events: list[object] = []
    take_samples(
        items,
        plan=plan or RacePlan(max_samples=20),
        order="interleaved",
        seed=seed,
        emit=events.append,
        on_failure=lambda *_: None,
        load=lambda: load,  # the machine this test runs on is not the one it models
        elsewhere=elsewhere,
    )
    return items, events


def fixed_interleaved(items: list[Prepared], seed: int):
    """Twenty interleaved samples of each of `items`, on a quiet machine; the run's record."""
    return take_samples(
        items,
        plan=RacePlan(adaptive=False, max_samples=20),
        order="interleaved",
        seed=seed,
        emit=lambda _e: None,
        on_failure=lambda *_: None,
        load=lambda: 0.0,
    )


def stop(items: list[Prepared], name: str) -> str | None:
    return next(i.result.stop_reason for i in items if i.result.variant == name)

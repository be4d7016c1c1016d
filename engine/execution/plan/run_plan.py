"""A run's one front door: everything it is decided by, assembled once, before any work.

Every way in (the CLI's `run` and the dashboard's worker behind it, `sweep`, the notebook,
`engine.run`) makes its `RunPlan` here, so a run is the same run whichever door it came
through: the same noise floor for its race and its ties, the same ceilings of the hour, the
same variants confirmed from the history. Before this, each door assembled its own: a sweep
judged its cells with the default floor where `run` used the machine's calibrated one. The
orchestrator (`orchestrator.measure`) reads the plan and nothing else of its caller's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.analysis.history_prior import Prior
from engine.analysis.session_ceiling import Earlier
from engine.execution.plan.history_reads import (
    history_prediction,
    history_priors,
    machine_floor,
    session_ceilings_of,
    usable_history,
)
from engine.measure.memory import MemoryEstimate
from engine.measure.peak import Peak
from engine.measure.uncertainty import NoiseFloor
from engine.run_settings.config import BenchConfig


@dataclass(frozen=True)
class RunPlan:
    """One run's settings (validated when `config` was made) and what it reads before it
    measures. Defaults are a run without a history: the documented floor, its own probes'
    ceilings, every variant measured in full."""

    config: BenchConfig
    floor: NoiseFloor = field(default_factory=NoiseFloor)
    # what the run holds at its peak, checked against the device at the door; None: the
    # orchestrator checks it before any process starts
    estimate: MemoryEstimate | None = None
    peak: Peak | None = None  # a ceiling measured already (a sweep's first point's)
    earlier_ceilings: Earlier = field(default_factory=dict)  # this machine's, the last hour
    priors: Mapping[str, Prior] = field(default_factory=dict)  # far slower here before
    # what the history predicts the run will find (`analysis/prediction.py`), made or not;
    # None: no history was read
    prediction: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.config, BenchConfig):
            raise TypeError(f"config: a BenchConfig, not {type(self.config).__name__}")


def plan_run(
    config: BenchConfig,
    history: Any = None,
    device_kind: str = "CPU",
    *,
    learn: bool = True,
    estimate: MemoryEstimate | None = None,
    peak: Peak | None = None,
) -> RunPlan:
    """The plan of a run of `config` on this machine's `device_kind`; `history` (an opened
    one, or its path; None: none) gives the calibrated floor, the hour's ceilings, the
    priors and the prediction, each falling back to the default where the history cannot be
    read. `learn` False (`run --no-history`): the calibrated floor only (a property of the
    machine, not of earlier runs), nothing learnt from the runs stored there."""
    opened = usable_history(history) if history is not None else None
    if opened is None:
        return RunPlan(config, estimate=estimate, peak=peak)
    learnt = learn and peak is None
    floor = machine_floor(opened, device_kind)
    return RunPlan(
        config,
        floor=floor,
        estimate=estimate,
        peak=peak,
        earlier_ceilings=session_ceilings_of(opened, device_kind) if learnt else {},
        priors=history_priors(opened, config, device_kind) if learn else {},
        prediction=history_prediction(opened, config, device_kind, floor) if learn else None,
    )

"""What a run reads from its history before it measures: the machine's noise floor, the
ceilings its runs of the last hour read, the variants far slower than the best at this
problem, and what the history predicts the run will find. Each falls back to nothing (or the
default floor) where the history cannot be read: a history that cannot be used never stops a
run.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from typing import Any

from engine.machine.host import cpu_model
from engine.machine.words import counted
from engine.measure.uncertainty import NoiseFloor
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig


def usable_history(history: Any) -> Any:
    """An opened history (`history`: one already, or its path), or None where it cannot be
    used: what the run reads from it before measuring then falls back to defaults."""
    from engine.storage.history import History

    if isinstance(history, History):
        return history
    try:
        return History(history)
    except (OSError, ValueError):
        return None


def machine_floor(history: Any, device_kind: str) -> NoiseFloor:
    """This machine's calibrated noise floor from the history (an opened one, or its path),
    else the documented default."""
    opened = usable_history(history)
    try:
        found = opened.noise_floor(platform.node(), device_kind) if opened else None
    except (OSError, ValueError):  # an unusable history: the default floor
        found = None
    return found or NoiseFloor()


def session_ceilings_of(history: Any, device_kind: str) -> Any:
    """What this machine's runs of the last hour read, each level (a run's ceilings are the
    best of these and its own: `analysis/session_ceiling.py`), from the history (an opened
    one, or its path); none where it cannot be read."""
    from engine.analysis.session_ceiling import SESSION_RUNS, window_start

    opened = usable_history(history)
    try:
        return (
            opened.machine_ceilings(
                platform.node(), device_kind, SESSION_RUNS, since=window_start()
            )
            if opened
            else {}
        )
    except (OSError, ValueError):
        return {}


def history_priors(history: Any, config: BenchConfig, device_kind: str) -> dict[str, Any]:
    """The variants this machine's history shows far slower than the best at `config`'s
    problem (`analysis/history_prior.py`), from the history (an opened one, or its path);
    none where it cannot be read."""
    from engine.analysis.history_prior import stored_priors

    opened = usable_history(history)
    return stored_priors(opened, config, device_kind) if opened else {}


PREDICTION_RUNS = 200  # the newest runs of the problem's kind a prediction is made from


def history_prediction(
    history: Any, config: BenchConfig, device_kind: str, floor: NoiseFloor
) -> dict[str, Any] | None:
    """What this machine's history predicts for `config` (`analysis/prediction.py`), made or
    not (why not, then), as the record keeps it; where this machine has none, what machines of
    its kind in the store (a team's) predict, said as theirs. None where the history cannot be
    read."""
    from engine.analysis.prediction import NoPrediction, predict

    opened = usable_history(history)
    if opened is None:
        return None
    host = platform.node()
    try:
        record = opened.prediction_record(host, device_kind)
        runs = opened.family_runs(config, host, device_kind, PREDICTION_RUNS)
        made = predict(config, runs, record, floor_log_sd=floor.between_run_log_sd)
        if isinstance(made, NoPrediction) and not runs:
            same_kind = machine_of_kind(opened, device_kind)
            theirs = opened.kind_runs(config, host, device_kind, same_kind, PREDICTION_RUNS)
            if theirs:
                machines = counted(len({r.environment.hostname for r in theirs}), "other machine")
                whose = f"the history of {machines} of this kind"
                made = predict(
                    config, theirs, record, floor_log_sd=floor.between_run_log_sd, whose=whose
                )
    except (OSError, ValueError):
        return None
    return made.to_dict()


def machine_of_kind(history: Any, device_kind: str) -> Callable[[RunResult], bool]:
    """Whether a stored run was measured on a machine of this one's kind: the same processor
    on a CPU; on an accelerator, the same devices as this machine's newest run on it (none
    without one: a device's name is known only once a framework opened it)."""
    if device_kind == "CPU":
        model = cpu_model()
        return lambda run: run.environment.cpu_model == model
    newest = history.newest_run(platform.node(), device_kind)
    if newest is None:
        return lambda run: False
    devices = sorted(newest.environment.devices)
    return lambda run: sorted(run.environment.devices) == devices

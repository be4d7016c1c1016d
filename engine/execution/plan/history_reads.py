"""What a run reads from its history before it measures: the machine's noise floor, the
ceilings its runs of the last hour read, the variants far slower than the best at this
problem, and what the history predicts the run will find. Each falls back to nothing (or the
default floor) where the history cannot be read: a history that cannot be used never stops a
run.
"""

from __future__ import annotations

import platform
from typing import Any

from engine.measure.uncertainty import NoiseFloor
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
    not (why not, then), as the record keeps it; None where the history cannot be read."""
    from engine.analysis.prediction import predict

    opened = usable_history(history)
    if opened is None:
        return None
    try:
        runs = opened.family_runs(config, platform.node(), device_kind, PREDICTION_RUNS)
        record = opened.prediction_record(platform.node(), device_kind)
    except (OSError, ValueError):
        return None
    return predict(config, runs, record, floor_log_sd=floor.between_run_log_sd).to_dict()

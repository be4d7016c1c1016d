"""A run's one front door (`execution/plan/run_plan.py`): what a plan reads from a history, and
that a sweep's points are planned as a run is (they were judged by the default floor)."""

from __future__ import annotations

import dataclasses
import platform
from datetime import datetime, timezone

import pytest

from engine.execution.plan.run_plan import RunPlan, plan_run
from engine.measure.peak import Peak
from engine.measure.uncertainty import NoiseFloor
from engine.run_settings.config import BenchConfig
from engine.storage.history import History
from tests.factories import make_run

CALIBRATED = NoiseFloor(between_run_log_sd=0.21, ratio_log_sd=0.09, source="calibrated here")


def here(run):
    """`run` as this machine made it a minute ago: the plan reads this host's runs only."""
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    environment = dataclasses.replace(run.environment, hostname=platform.node())
    return dataclasses.replace(run, environment=environment, created_at=now)


@pytest.fixture
def history(tmp_path):
    store = History(tmp_path / "h.sqlite3")
    store.add_noise_floor(platform.node(), "CPU", CALIBRATED, 5, None, {})
    # the eager loop 50x the best in this problem's last run: a prior
    store.add_run(here(make_run({"einsum": [0.001] * 4, "python_loop": [0.05] * 4})))
    return store


def problem():
    return BenchConfig(matrices=100, dim=10, strategies=("einsum", "python_loop"))


def test_without_a_history_a_plan_holds_the_defaults():
    plan = plan_run(problem())
    assert plan.floor == NoiseFloor()
    assert plan.priors == {} and plan.earlier_ceilings == {} and plan.peak is None


def test_a_plan_reads_the_floor_the_priors_and_the_hours_ceilings(history):
    plan = plan_run(problem(), history, "CPU")
    assert plan.floor.between_run_log_sd == pytest.approx(0.21)
    assert plan.floor.ratio_log_sd == pytest.approx(0.09)
    assert set(plan.priors) == {"python_loop"} and plan.priors["python_loop"].ratio >= 49
    assert plan.earlier_ceilings  # the stored run's memory read, within the hour


def test_no_history_learns_nothing_from_runs_but_keeps_the_calibration(history):
    plan = plan_run(problem(), history, "CPU", learn=False)
    assert plan.floor.between_run_log_sd == pytest.approx(0.21)  # the machine's, not a run's
    assert plan.priors == {} and plan.earlier_ceilings == {}


def test_a_ceiling_given_is_used_and_the_hours_are_not_read(history):
    given = Peak(bandwidth_bytes_per_s=9e9, method="a sweep's first point")
    plan = plan_run(problem(), history, "CPU", peak=given)
    assert plan.peak is given and plan.earlier_ceilings == {}
    assert plan.floor.between_run_log_sd == pytest.approx(0.21)


def test_another_device_kind_reads_nothing_of_this_ones(history):
    plan = plan_run(problem(), history, "GPU")
    assert plan.floor == NoiseFloor() and plan.priors == {}


def test_an_unusable_history_path_plans_a_run_without_one(tmp_path):
    folder = tmp_path / "a folder"
    folder.mkdir()
    assert plan_run(problem(), str(folder), "CPU") == RunPlan(problem())


def test_a_plan_is_of_a_config():
    with pytest.raises(TypeError, match="config: a BenchConfig"):
        RunPlan({"matrices": 100})  # type: ignore[arg-type]


@pytest.mark.slow  # a real peer process
def test_a_sweeps_point_is_judged_by_the_machines_floor(tmp_path):
    """Through the one door a sweep's points read the calibrated floor as `run` does."""
    from engine.execution.run.sweep import run_sweep
    from engine.run_settings.sweep import SweepSpec

    store = History(tmp_path / "h.sqlite3")
    store.add_noise_floor(platform.node(), "CPU", CALIBRATED, 5, None, {})
    spec = SweepSpec.from_raw(
        {"matrices": "8", "dim": "4", "strategies": "numpy", "repeats": 3, "warmup": 0}
    )
    assert run_sweep(spec, store).ran == 1
    (point,) = store.sweep_runs(spec.sweep_id)
    assert point.noise_floor is not None
    assert point.noise_floor.between_run_log_sd == pytest.approx(0.21)
    assert point.noise_floor.ratio_log_sd == pytest.approx(0.09)
    assert isinstance(point.config, BenchConfig)

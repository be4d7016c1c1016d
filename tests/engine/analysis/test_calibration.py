"""The noise floor from runs: on purpose (`calibrate`) and from the runs already in the
history, on synthetic runs whose spread between processes is known exactly."""

from __future__ import annotations

import dataclasses
import math
import sqlite3
import zlib

import pytest

from engine.analysis.calibration import noise_floor, observed_floor, same_measurement
from engine.analysis.compare import compare_runs, floor_for, sides_of
from engine.machine.load import MachineLoad
from engine.measure.compare_floor import (
    COMPARE_DEFAULT_SOURCE,
    DEFAULT_COMPARE_LOG_SD,
    upper_log_sd,
)
from engine.measure.uncertainty import DEFAULT_BETWEEN_RUN_LOG_SD, NoiseFloor
from engine.results.run_result import RunResult
from engine.storage.history import History
from tests.factories import make_run

SPREAD = 0.2  # the log offsets below have exactly this standard deviation


def run_at(offset: float, matrices: int = 100, created_at: str = "2026-12-01T10:00:00+00:00"):
    """One process of an A/A series: every variant moved by the same factor, exp(offset)."""
    scale = math.exp(offset)
    return make_run(
        {"einsum": [0.002 * scale] * 6, "numpy": [0.003 * scale] * 6},
        matrices=matrices,
        created_at=created_at,
    )


def series(offsets=(-SPREAD, 0.0, SPREAD)) -> list[RunResult]:
    return [run_at(o, created_at=f"2026-12-01T10:00:0{i}+00:00") for i, o in enumerate(offsets)]


def test_the_spread_between_processes_is_read_exactly():
    floor = observed_floor(series(), "observed")
    assert floor is not None
    assert floor.between_run_log_sd == pytest.approx(SPREAD)
    assert floor.ratio_log_sd == pytest.approx(0.0, abs=1e-12)  # both moved together
    assert noise_floor(series(), "calibrated").between_run_log_sd == pytest.approx(SPREAD)


def test_too_few_runs_give_no_observed_floor_and_user_kernels_are_left_out():
    assert observed_floor(series()[:2], "observed") is None
    runs = series()
    for run in runs:
        run.results[0].user_kernel = {"source": "def f(a, x): ..."}  # its code may differ
    floor = observed_floor(runs, "observed")
    assert floor is not None and floor.ratio_log_sd == 0.0  # only numpy left: no pairs


def test_only_the_same_measurement_on_a_quiet_machine_counts():
    base = run_at(0.0)
    assert same_measurement(base, run_at(0.1))
    assert not same_measurement(base, run_at(0.0, matrices=150))  # another problem
    sequential = run_at(0.0)
    sequential.config = dataclasses.replace(sequential.config, order="sequential")
    assert not same_measurement(base, sequential)  # other neighbours before each block
    other_host = run_at(0.0)
    other_host.environment = dataclasses.replace(other_host.environment, hostname="colab")
    assert not same_measurement(base, other_host)
    upgraded = run_at(0.0)
    upgraded.environment = dataclasses.replace(
        upgraded.environment, frameworks={"tensorflow": {"version": "2.22.0"}}
    )
    assert not same_measurement(base, upgraded)
    busy = run_at(0.0)
    busy.machine_load = MachineLoad(load_at_start=None, other_cpu_s=8.0, wall_s=10.0, cores=2)
    assert not same_measurement(base, busy)


def test_a_swinging_machine_widens_the_floor_of_its_comparisons(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    for run in series():
        history.add_run(run)
    history.add_run(run_at(0.0, matrices=150))  # another measurement: not read
    fresh = run_at(0.05)
    floor = history.floor_of(fresh)
    assert floor is not None
    seen = observed_floor([fresh, *series()], "").between_run_log_sd
    # two variants, four runs each: the pooled spread on 6 degrees of freedom, at its bound
    assert floor.between_run_log_sd == pytest.approx(upper_log_sd(seen, 7))
    assert floor.between_run_log_sd > seen > DEFAULT_BETWEEN_RUN_LOG_SD
    assert floor.source.startswith("observed over 4 runs of this measurement on test-host")
    assert "at the 95% upper bound" in floor.source


def test_a_steady_machines_history_gives_its_own_narrower_floor_at_its_bound(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    for run in series((-0.01, 0.0, 0.01)):
        history.add_run(run)
    floor = history.floor_of(run_at(0.0))
    assert floor is not None and floor.between_run_log_sd < DEFAULT_COMPARE_LOG_SD
    seen = observed_floor([run_at(0.0), *series((-0.01, 0.0, 0.01))], "").between_run_log_sd
    assert floor.between_run_log_sd == pytest.approx(upper_log_sd(seen, 7))
    assert floor.between_run_log_sd > 1.5 * seen  # four runs that agreed prove little


def test_a_calibration_is_the_least_a_history_gives(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    for run in series((-0.01, 0.0, 0.01)):
        history.add_run(run)
    calibrated = NoiseFloor(between_run_log_sd=0.12, source="calibrated")
    history.add_noise_floor("test-host", "CPU", calibrated, 5, None, {})
    floor = history.floor_of(run_at(0.0))
    assert floor.between_run_log_sd == pytest.approx(0.12)
    assert all(sd >= 0.12 for _, sd in floor.variant_log_sd)
    assert "and at least the calibrated on test-host" in floor.source


def test_the_upper_bound_shrinks_towards_the_spread_as_runs_grow():
    assert upper_log_sd(0.1, 3) == pytest.approx(0.1 * math.sqrt(2 / 0.10259), rel=1e-3)
    assert upper_log_sd(0.1, 20) == pytest.approx(0.1 * 1.371, rel=1e-2)
    assert upper_log_sd(0.1, 3) > upper_log_sd(0.1, 20) > 0.1


def test_runs_compared_with_no_history_take_the_measured_default():
    a, b = run_at(-0.1), run_at(0.2)
    assert floor_for(sides_of([a, b]), None).between_run_log_sd == DEFAULT_COMPARE_LOG_SD
    assert floor_for(sides_of([a, b]), lambda run: None).source == COMPARE_DEFAULT_SOURCE


def test_an_aa_pair_on_a_swinging_machine_is_not_called_different(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    earlier = series((-0.25, 0.2, -0.15, 0.3))
    for run in earlier:
        history.add_run(run)
    a, b = run_at(-0.1), run_at(0.2)  # the same code, 1.35x apart by the moment alone
    narrow = compare_runs([a, b], floor=NoiseFloor())  # a within-run floor would call it
    assert set(narrow.loc[~narrow["baseline"], "verdict"]) == {"slower"}
    default = compare_runs([a, b])
    assert "slower" not in set(default.loc[~default["baseline"], "verdict"])
    floor = floor_for(sides_of([a, b]), history.floor_of)
    judged = compare_runs([a, b], floor=floor)
    assert "slower" not in set(judged.loc[~judged["baseline"], "verdict"])


def test_a_steady_variant_keeps_its_own_floor_beside_a_swinging_one(tmp_path):
    """NumPy steady, a TensorFlow kernel swinging 1.6x between processes (as measured here):
    NumPy's 1.5x is still called slower, the kernel's is not."""
    history = History(tmp_path / "h.sqlite3")

    def run(swing: float, work: float = 1.0, second: int = 0) -> RunResult:
        return make_run(
            {
                "einsum": [0.004 * work * math.exp(swing)] * 6,
                "numpy": [0.0044 * work * math.exp(swing / 20)] * 6,
            },
            matrices=int(100 * work),
            created_at=f"2026-12-01T10:00:0{second}+00:00",
        )

    for second, swing in enumerate((-0.25, 0.2, -0.15, 0.3)):
        history.add_run(run(swing, second=second))
        history.add_run(run(-swing, work=1.5, second=second))
    a, b = run(0.0), run(0.1, work=1.5)
    floor = floor_for(sides_of([a, b]), history.floor_of)
    assert floor.between_run_for("numpy") < 0.1  # its own steady spread, at its bound
    assert floor.between_run_for("einsum") > 0.2
    rows = compare_runs([a, b], floor=floor)
    rows = rows[~rows["baseline"]]
    verdicts = dict(zip(rows["variant"], rows["verdict"], strict=True))
    assert verdicts["numpy"] == "slower"
    assert verdicts["einsum"] == "inconclusive"


def test_a_stored_run_this_version_cannot_read_is_passed_over(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    for run in series():
        history.add_run(run)
    broken = run_at(0.0)
    history.add_run(broken)
    with sqlite3.connect(tmp_path / "h.sqlite3") as conn:  # as another version stored it
        conn.execute(
            "UPDATE runs SET payload = ? WHERE run_id = ?",
            (zlib.compress(b'{"schema_version": 99}'), broken.run_id),
        )
    like = history.like_runs(run_at(0.05))
    assert len(like) == 4 and broken.run_id not in {r.run_id for r in like}


def test_every_compared_row_names_the_floor_that_judged_it(tmp_path):
    a, b = run_at(-0.1), run_at(0.2)
    default = compare_runs([a, b])
    assert set(default["floor_kind"]) == {"default"}
    assert set(default["floor_log_sd"]) == {DEFAULT_COMPARE_LOG_SD}
    history = History(tmp_path / "h.sqlite3")
    for run in series((-0.25, 0.2, -0.15, 0.3)):
        history.add_run(run)
    judged = compare_runs([a, b], floor=floor_for(sides_of([a, b]), history.floor_of))
    assert set(judged["floor_kind"]) == {"history"}
    calibrated = NoiseFloor(0.1, 0.1, "calibrated on test-host (CPU) at now from 5 runs")
    assert set(compare_runs([a, b], floor=calibrated)["floor_kind"]) == {"calibration"}

"""Sweep specs: a base config plus axes, validated before anything runs."""

from dataclasses import replace

import pytest

from engine.run_settings.config import BenchConfig
from engine.run_settings.fields import ConfigError
from engine.run_settings.sweep import SweepSpec

RAW = {"matrices": "10,100", "dim": "4,8,16", "strategies": ["einsum"], "repeats": 2}


def test_grid_has_every_point_and_a_stable_id():
    spec = SweepSpec.from_raw(RAW)
    keys = [spec.point_key(p) for p in spec.points()]
    assert len(keys) == 6 == len(set(keys))
    assert "single:float32:100x16x16" in keys
    assert SweepSpec.from_raw(RAW).sweep_id == spec.sweep_id
    assert SweepSpec.from_raw({**RAW, "label": "other"}).sweep_id != spec.sweep_id


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"matrices": "10,abc"}, "matrices: must be an integer"),
        ({"dim": ""}, "dim: needs at least one value"),
        ({"dtype": "float32,int4"}, "dtype: must be one of"),
        ({"strategies": ["nope"]}, "strategy: unknown 'nope'"),
        ({"matrices": ",".join(str(i) for i in range(1, 5000))}, "at most 10,000"),
    ],
)
def test_bad_sweep_values(change, message):
    with pytest.raises(ConfigError, match=message):
        SweepSpec.from_raw({**RAW, **change})


def test_any_sweepable_field_is_an_axis_and_nothing_is_dropped():
    spec = SweepSpec.from_raw(
        {
            "matrices": "10",
            "dim": "4",
            "xla": "false,true",
            "cache": "warm,cold",
            "seed": "3",
            "time_budget_s": "5",
            "strategies": ["einsum"],
        }
    )
    assert dict(spec.axes) == {"xla": (False, True), "cache": ("warm", "cold")}
    points = spec.points()
    assert len(points) == 4
    assert {(p.xla, p.cache) for p in points} == {
        (False, "warm"),
        (False, "cold"),
        (True, "warm"),
        (True, "cold"),
    }
    assert all(p.seed == 3 and p.time_budget_s == 5.0 for p in points)
    assert len({spec.point_key(p) for p in points}) == 4
    assert points[0] == replace(spec.base, xla=False, cache="warm")


def test_replicas_apply_only_to_points_that_distribute():
    spec = SweepSpec.from_raw(
        {
            "matrices": "8",
            "dim": "4",
            "mode": "single,sharded",
            "replicas": 2,
            "strategies": ["einsum"],
        }
    )
    by_mode = {p.mode: p.replicas for p in spec.points()}
    assert by_mode == {"single": 1, "sharded": 2}


def test_grid_size_is_refused_before_anything_is_expanded():
    axis = ",".join(str(i) for i in range(1, 3001))
    with pytest.raises(ConfigError, match="9,000,000 points"):
        SweepSpec.from_raw({"matrices": axis, "dim": axis})


def test_a_scalar_sweep_is_one_point_of_the_base():
    spec = SweepSpec.from_raw({"matrices": "12"})
    assert spec.points() == [BenchConfig(matrices=12)]

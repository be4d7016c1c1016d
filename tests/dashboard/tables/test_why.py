"""The Why table says which time is which: the timed median beside the profiled call's own
wall time, and a note when the profiled call was much slower than the timed one."""

from __future__ import annotations

from dashboard.tables import why as why_data
from engine.results.parts import ProfileSummary
from tests.factories import make_run


def test_the_profiled_wall_time_sits_beside_the_timed_median_and_a_slow_profile_is_named():
    result = make_run({"einsum": [8.85e-3] * 5, "numpy": [1e-3] * 5})
    einsum = next(r for r in result.results if r.variant == "einsum")
    einsum.profile = ProfileSummary(
        status="ok", calls=3, ops_per_call=1, op_time_s=12e-3, host_time_s=1e-3, wall_s=13e-3
    )
    numpy_entry = next(r for r in result.results if r.variant == "numpy")
    numpy_entry.profile = ProfileSummary(
        status="ok", calls=3, ops_per_call=1, op_time_s=0.9e-3, host_time_s=0.1e-3, wall_s=1e-3
    )
    frame = why_data.profiles(result)
    shown = why_data.display_profiles(frame).set_index("strategy")
    assert shown.loc["einsum", "timed median"] == "8.85 ms"
    assert shown.loc["einsum", "call (wall)"] == "13 ms"  # a profile from before the split
    assert shown.loc["einsum", "note"].startswith("the profiled call took 1.5× the timed median")
    assert shown.loc["numpy", "note"] == ""  # as fast as timed: nothing to explain


def test_each_profiled_call_splits_into_ops_and_the_rest_with_intervals():
    result = make_run({"einsum": [8.85e-3] * 5})
    (einsum,) = result.results
    walls = (10e-3, 11e-3, 12e-3, 10e-3, 11e-3, 12e-3, 10e-3, 11e-3, 12e-3)
    einsum.profile = ProfileSummary(
        status="ok",
        calls=9,
        op_samples_s=tuple(w - 4e-3 for w in walls),
        wall_samples_s=walls,
        op_source="TensorFlow profiler: the time some op ran on a compute thread",
    )
    shown = why_data.display_profiles(why_data.profiles(result)).set_index("strategy")
    assert shown.loc["einsum", "call (wall)"] == "11 ms (10–12 ms)"
    assert shown.loc["einsum", "in ops"] == "7 ms (6–8 ms)"
    assert shown.loc["einsum", "the rest"] == "4 ms (no spread)"  # 4 ms in every call


def test_a_gpu_result_without_a_profile_shows_its_device_time():
    result = make_run({"cupy_matmul": [2e-5] * 6})
    (entry,) = result.results
    entry.device_samples_s = (1.5e-5,) * 6
    entry.device_timer = "CUDA events around each timed block"
    shown = why_data.display_profiles(why_data.profiles(result)).set_index("strategy")
    assert shown.loc["cupy_matmul", "in ops"] == "15 us (no spread)"
    assert shown.loc["cupy_matmul", "the rest"] == "5 us (no spread)"

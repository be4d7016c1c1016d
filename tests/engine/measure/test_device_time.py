"""Device truth without a device: the sampler's device timer and clock record with stand-ins
of known answers, the split of host and device (or op) time, the three forms of a call, the
NVML reading, and their round trip through the results JSON. A whole run with CuPy and NVML
stand-ins is `tests/engine/execution/test_gpu_peers.py`'s."""

from __future__ import annotations

import dataclasses
import json

import pytest

from engine.machine.gpu_clocks import BlockClocks, block_clocks, nvml_reader
from engine.measure.blocks import Kernel
from engine.measure.device_forms import DeviceForms, take_forms
from engine.measure.host_and_device import TIMED_BLOCKS, time_split
from engine.measure.timing import Sampler
from engine.results.reader import ResultsRejected
from engine.results.run_result import RunResult
from tests.factories import make_run


class StepClock:
    """A clock that moves only when the kernel is called: 1 ms a call."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def call(self, _index: int) -> None:
        self.now += 0.001


class HalfTimer:
    """A device timer that says the device worked 40% of each block's host time."""

    name = "test events"

    def __init__(self, clock: StepClock) -> None:
        self.clock = clock

    def start(self) -> None:
        self.begin = self.clock.now

    def stop(self) -> None:
        self.end = self.clock.now

    def elapsed_s(self) -> float:
        return 0.4 * (self.end - self.begin)


def clocks_every(throttled: set[int]):
    count = {"n": 0}

    def read() -> BlockClocks:
        count["n"] += 1
        mask = 0x40 if count["n"] in throttled else 0x4
        return block_clocks(mask, 1755, 1980, 2619, 61, 300_000)

    return read


def sampler(clock: StepClock, throttled: set[int]) -> Sampler:
    kernel = Kernel(
        call=clock.call,
        sync=lambda _out: None,
        device_timer=HalfTimer(clock),
        clocks=clocks_every(throttled),
    )
    return Sampler(kernel, warmup=1, budget_s=100.0, min_block_s=0.01, clock=clock)


def test_each_block_is_timed_on_the_device_and_throttled_blocks_are_left_out():
    clock = StepClock()
    taken = sampler(clock, throttled={2, 5})
    for _ in range(6):
        taken.sample()
    timing = taken.timing(repeats=6)
    assert len(timing.measurement.samples_s) == 4 and len(timing.throttled_samples) == 2
    assert len(timing.device_samples) == 4 and len(timing.clocks) == 6
    for host, device in zip(timing.measurement.samples_s, timing.device_samples, strict=True):
        assert device == pytest.approx(0.4 * host)
    (said,) = [w for w in timing.warnings if "throttled" in w]
    assert said.startswith("2 of 6 blocks were taken while the GPU throttled")
    assert "hardware thermal slowdown" in said and said.endswith("left out of the interval")


def test_a_gpu_that_throttled_throughout_keeps_its_blocks_and_says_so():
    clock = StepClock()
    taken = sampler(clock, throttled=set(range(1, 10)))
    for _ in range(3):
        taken.sample()
    timing = taken.timing(repeats=3)
    assert len(timing.measurement.samples_s) == 3 and timing.throttled_samples == ()
    assert any(
        w.startswith("every block was taken while the GPU throttled") for w in timing.warnings
    )


def test_the_clock_reasons_and_the_75_percent_rule():
    plain = block_clocks(0x4 | 0x1, 1755, 1980, 2619, 61, 312_500)
    assert plain.reasons == ("idle", "software power cap") and not plain.throttled
    assert plain.power_w == pytest.approx(312.5)
    hot = block_clocks(0x20, 1755, 1980, None, None, None)
    assert hot.throttled and hot.why == "software thermal slowdown"
    slow = block_clocks(0, 1400, 1980, 2619, 61, None)  # 71% of its maximum
    assert slow.throttled and slow.why == "SM clock under 75% of its maximum"


def test_without_nvml_nothing_is_read_and_the_hint_says_what_to_install(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pynvml", None)
    reader, why = nvml_reader("GPU-0", 0)
    assert reader is None and why.startswith("install nvidia-ml-py (pip install nvidia-ml-py==")


def test_host_and_op_time_of_the_same_calls_never_put_the_op_above_its_call():
    split = time_split([10e-6, 11e-6, 12e-6], [4e-6, 4e-6, 13e-6], "events", TIMED_BLOCKS)
    assert split.op_s == 4e-6 and split.overhead_s == pytest.approx(6e-6)
    assert split.host_s == 11e-6  # the third block's device time is held at its host's
    mostly_rest = time_split([20e-6] * 9, [2e-6] * 9, "profiler", TIMED_BLOCKS)
    assert mostly_rest.overhead_share == pytest.approx(0.9)
    assert mostly_rest.overhead_ci_s == (18e-6, 18e-6)


def test_the_three_forms_flush_before_each_cold_call_and_keep_going_without_a_graph():
    order: list[str] = []

    def timed(run):
        order.append("timed")
        run()
        return 1e-5

    def flush():
        order.append("flush")

    forms = take_forms(lambda: None, timed, lambda call: call, flush, 100, "events", calls=3)
    assert len(forms.warm_s) == len(forms.graph_s) == len(forms.flushed_s) == 3
    assert order[-6:] == ["flush", "timed"] * 3 and forms.notes == ()

    def no_graph(call):
        raise RuntimeError("operation not permitted when stream is capturing")

    kept = take_forms(lambda: None, timed, no_graph, None, None, "events", calls=3)
    assert kept.graph_s == () and kept.flushed_s == () and len(kept.warm_s) == 3
    assert kept.notes == (
        "no graph replay: operation not permitted when stream is capturing",
        "no flushed form: the L2's size is not known here",
    )


def gpu_run() -> RunResult:
    run = make_run({"cupy_matmul": [2e-5, 2.1e-5, 1.9e-5]}, matrices=1000, dim=32)
    entry = run.results[0]
    run.results[0] = dataclasses.replace(
        entry,
        device_samples_s=(1.2e-5, 1.3e-5, 1.1e-5),
        device_timer="CUDA events around each timed block",
        clocks=tuple(block_clocks(0x4, 1755, 1980, 2619, 61, 300_000) for _ in range(3)),
        throttled_samples_s=(3e-5,),
        device_forms=DeviceForms((1e-5,) * 5, (8e-6,) * 5, (2e-5,) * 5, 2**25, "CUDA events"),
    )
    return run


def test_a_gpu_results_device_parts_round_trip_and_are_placed_against_their_ceilings():
    data = json.loads(gpu_run().to_json())
    entry = data["results"][0]
    assert RunResult.from_dict(data).to_dict()["results"][0] == entry
    split = entry["time_split"]
    assert split["calls"] == "the timed blocks" and split["op_s"] == 1.2e-5
    assert split["host_s"] == 2e-5
    forms = entry["device_form_times"]
    assert forms["graph"]["median_s"] < forms["warm"]["median_s"] < forms["flushed"]["median_s"]
    level = entry["speed_of_light_s"]
    assert forms["warm"]["ceiling_fraction"] == pytest.approx(level / 1e-5)
    assert entry["clocks"][0]["reasons"] == ["software power cap"]


def test_device_samples_that_do_not_match_the_samples_are_refused_by_name():
    data = json.loads(gpu_run().to_json())
    data["results"][0]["device_samples_s"] = [1e-5]
    with pytest.raises(ResultsRejected, match=r"results\[0\]\.device_samples_s: must hold one"):
        RunResult.from_dict(data)

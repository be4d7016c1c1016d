"""JAX's profile (`backends/jax/profile.py`): each annotated call's op time is the union of
the XLA ops that started in it, on the device's plane where the trace has one. A real trace is
read in a whole run (`tests/engine/execution/test_profiling.py`), in JAX's own process: JAX is
never imported into the test process (it warns on every later fork)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from engine.backends.jax.profile import STEP_NAME, summary
from tests.conftest import ROOT

US = 1_000  # ns


@dataclass
class Event:
    name: str
    start_ns: float
    end_ns: float
    stats: list[tuple[str, object]] = field(default_factory=list)


@dataclass
class Line:
    name: str
    events: list[Event]


@dataclass
class Plane:
    name: str
    lines: list[Line]


@dataclass
class Device:
    platform: str = "cpu"
    peak: int | None = None

    def memory_stats(self) -> dict | None:
        return None if self.peak is None else {"peak_bytes_in_use": self.peak}


def op(name: str, start_us: float, end_us: float) -> Event:
    return Event(name, start_us * US, end_us * US, [("hlo_op", name), ("hlo_module", "jit_f")])


def host(*xla: Event, steps=((0, 100), (200, 300))) -> Plane:
    calls = [Event(STEP_NAME, a * US, b * US) for a, b in steps]
    other = Event("PjitFunction(f)", 1 * US, 90 * US)  # a host event without an HLO op
    return Plane("/host:CPU", [Line("python", [*calls, other]), Line("XLA", list(xla))])


def test_a_calls_op_time_is_the_union_of_its_ops_and_the_rest_is_the_host():
    """Two ops overlapping on two threads count once; an op outside every call is left out;
    the op time never exceeds its call."""
    planes = [
        host(
            op("dot", 10, 50),
            op("fusion", 40, 70),  # overlaps dot: 10..70 is 60 µs busy
            op("dot", 210, 230),
            op("dot", 150, 190),  # between the calls: no call's
            op("dot", 290, 400),  # starts in the second call, clipped to its end
        )
    ]
    found = summary(planes, 2, Device())
    assert found.status == "ok" and found.calls == 2
    assert found.op_samples_s == pytest.approx((60e-6, 30e-6))
    assert found.wall_samples_s == pytest.approx((100e-6, 100e-6))
    assert found.op_time_s == pytest.approx(45e-6)
    assert found.host_time_s == pytest.approx(55e-6)
    assert found.ops_per_call == 2.0
    assert [(o.name, o.count_per_call) for o in found.top_ops] == [("dot", 1.5), ("fusion", 0.5)]
    assert found.op_source == "JAX profiler: XLA's ops on its CPU threads"
    assert found.peak_memory_bytes is None and "not reported on the CPU" in found.memory_note


def test_the_devices_plane_is_the_op_time_where_the_trace_has_one():
    """On an accelerator the device's kernels are the ops; the host's launches are not."""
    device = Plane("/device:GPU:0", [Line("Stream #7", [op("dot", 20, 35), op("dot", 220, 231)])])
    planes = [host(op("launch", 5, 95), op("launch", 205, 295)), device]
    found = summary(planes, 2, Device("gpu", peak=4096))
    assert found.op_samples_s == pytest.approx((15e-6, 11e-6))
    assert found.op_source == "JAX profiler: XLA's ops on the GPU"
    assert found.peak_memory_bytes == 4096 and found.memory_note is None


def test_a_trace_without_its_calls_is_a_failure_not_a_zero():
    with pytest.raises(ValueError, match="no 'matvec_call' calls"):
        summary([host(op("dot", 0, 10), steps=())], 2, Device())


def test_reading_a_trace_leaves_jax_out_of_the_process():
    """Importing the trace reader (as this file does) imports no JAX: checked in a fresh
    process, since another test in this one may have imported it."""
    code = "import sys, engine.backends.jax.profile; print('jax' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr[-2000:]

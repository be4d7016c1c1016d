"""Frameworks on an accelerator, in their own processes (no GPU here: a CuPy stand-in that says
it is on one or more GPUs, `tests/fixtures/fake_cupy`, and a runtime that says it is one): each
measured against its own device's read bandwidth, and in modes replicated and sharded a GPU per
replica."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import engine.catalogue.strategy_info as info_module
from tests.conftest import ROOT
from tests.engine.execution.test_peers import events_and_outcome, peer_config


class FakeAcceleratorRuntime:
    """NumPy arrays standing in for a device's, with the device kind an accelerator says."""

    framework = "torch"
    device_kind = "GPU"

    def probe_buffer(self, elements):
        import numpy as np

        return np.ones(elements, dtype=np.float32)

    def probe_read(self):
        return lambda buffer: buffer.sum()

    def sync(self, _output):
        return None


def test_an_accelerator_peer_measures_its_own_devices_ceiling():
    from engine.execution.peers.device_probes import device_probes
    from engine.results.parts import read_probe

    (probe,) = device_probes(FakeAcceleratorRuntime(), 8 * 2**20, "before")
    parsed = read_probe(probe, "probe")
    assert parsed.extra["method"] == "torch" and parsed.extra["device_kind"] == "GPU"
    assert parsed.bandwidth_bytes_per_s > 0 and parsed.when == "before"
    cpu = FakeAcceleratorRuntime()
    cpu.device_kind = "CPU"
    assert device_probes(cpu, 8 * 2**20, "before") == []  # a CPU peer's ceiling is the host's


def test_a_gpu_framework_runs_beside_the_host_against_its_own_ceiling(tmp_path):
    """A whole run with CuPy (a NumPy stand-in that says it is on a GPU: no GPU here): its
    variants are measured in their own process, checked, placed against the read bandwidth
    of their own device, and said to be on another device than the run's."""
    out = tmp_path / "run.json"
    fake = ROOT / "tests" / "fixtures" / "fake_cupy"
    command = [sys.executable, "-m", "engine", "run", "--strategy=numpy,cupy_matmul,cupy_einsum"]
    command += ["--matrices=64", "--dim=8", "--repeats=5", "--time-budget=2", f"--json={out}"]
    done = subprocess.run(
        [*command, "--no-history", "--progress=none"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), str(ROOT)])},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(out.read_text())
    by_name = {entry["variant"]: entry for entry in data["results"]}
    l2 = [p for p in data["peak"]["probes"] if p.get("level") == "L2"]  # probed, before and after
    assert len(l2) == 2 and all(p["level_bytes"] == 4 * 2**20 for p in l2)
    # The fake's "L2" is the host's cache: whether it reads faster than the fake's memory probe
    # depends on this host and its load, so the rule is checked, not one outcome of it.
    own_memory = max(
        p["bandwidth_bytes_per_s"]
        for p in data["peak"]["probes"]
        if p.get("method") == "cupy" and "level" not in p
    )
    l2_kept = max(p["bandwidth_bytes_per_s"] for p in l2) > own_memory
    for name in ("cupy_matmul", "cupy_einsum"):
        entry = by_name[name]
        assert entry["status"] == "ok" and entry["correct"], entry
        assert entry["ceiling_bytes_per_s"] == own_memory  # its own device's, not the host's
        placed = "cupy ran on the GPU, not on the run's CPU: it is placed against that device's"
        assert f"{placed} own read bandwidth" in entry["warnings"]
        assert entry["ceiling_level"] == ("L2" if l2_kept else "memory")  # 16 KiB fits its L2
        assert [level["level"] for level in entry["device_levels"]] == (["L2"] if l2_kept else [])
        unread = [n for n in entry["notes"] if n.startswith("clocks not read per block: ")]
        assert len(unread) == 1 and not entry["clocks"]  # no NVML here: said once, and why
    note = [w for w in data["warnings"] if w.startswith("cupy_matmul, cupy_einsum ran on an")]
    assert bool(note) != l2_kept and all("no cache of it has a ceiling" in w for w in note)
    assert "read 2 times in one launch" not in l2[0]["kernel"] and "one launch" in l2[0]["kernel"]
    cupy = data["environment"]["frameworks"]["cupy"]
    assert cupy["device_kind"] == "GPU" and cupy["device_name"] == "fake GPU (NumPy)"
    assert cupy["device_memory"] == {"bytes_in_use": 0, "peak_bytes_in_use": 0}


def sharded_cupy_run(tmp_path, gpus: int) -> dict:
    out = tmp_path / "run.json"
    fake = ROOT / "tests" / "fixtures" / "fake_cupy"
    command = [sys.executable, "-m", "engine", "run", "--strategy=cupy_matmul,cupy_einsum"]
    command += ["--matrices=9", "--dim=8", "--repeats=3", "--time-budget=2", f"--json={out}"]
    command += ["--mode=sharded", "--replicas=2", "--no-history", "--progress=none"]
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(fake), str(ROOT)]),
            "FAKE_CUPY_DEVICES": str(gpus),
        },
    )
    assert done.returncode in (0, 3), done.stderr[-3000:]
    return {entry["variant"]: entry for entry in json.loads(out.read_text())["results"]}


def test_on_a_multi_gpu_box_each_replica_is_a_gpu_of_its_own(tmp_path):
    """CuPy split over two (stand-in) GPUs: each slice copied to its own device, each replica's
    kernel run with its device current (the stand-in fails a kernel given another device's
    array), the slices checked whole, and each replica timed alone on its own GPU."""
    by_name = sharded_cupy_run(tmp_path, gpus=2)
    for name in ("cupy_matmul", "cupy_einsum"):
        entry = by_name[name]
        assert entry["status"] == "ok" and entry["correct"], entry
        assert entry["distribution"]["strategy"].startswith("one GPU per replica")
        assert entry["distribution"]["shard_sizes"] == [5, 4]  # 9 matrices, as even as can be
        devices = [r["device"] for r in entry["replicas"]]
        assert devices == ["<CUDA Device 0> (cupy)", "<CUDA Device 1> (cupy)"]
        assert all(r["median_s"] > 0 for r in entry["replicas"])


def test_fewer_gpus_than_replicas_says_how_many_it_needs(tmp_path):
    by_name = sharded_cupy_run(tmp_path, gpus=1)
    entry = by_name["cupy_matmul"]
    assert entry["status"] == "unsupported"
    assert "2 replicas need 2 devices, and fewer are here; run it in mode single" in entry["error"]


def test_cupy_missing_is_unsupported_with_its_own_hint(monkeypatch):
    real = info_module.module_file
    monkeypatch.setattr(info_module, "module_file", lambda m: None if m == "cupy" else real(m))
    config = peer_config("cupy_matmul", "numpy")
    _, outcome = events_and_outcome(config)
    (result,) = outcome.results.values()
    assert result.status == "unsupported"
    assert (
        "cupy is not installed here" in result.error and "pip install cupy-cuda12x" in result.error
    )


def test_a_result_with_its_own_devices_ceiling_is_placed_against_it():
    from tests.factories import make_run

    run = make_run({"torch_bmm": [0.001] * 4, "numpy": [0.004] * 4})
    gpu = run.results[0]
    gpu.ceiling_bytes_per_s = 4.0e12
    data = run.to_dict()
    own = gpu.bytes / 0.001 / 4.0e12
    assert data["results"][0]["roofline_fraction"] == pytest.approx(own)
    assert data["results"][1]["roofline_fraction"] == pytest.approx(
        run.results[1].bytes / 0.004 / run.peak_bytes_per_s
    )
    again = type(run).from_dict(data)
    assert again.results[0].ceiling_bytes_per_s == 4.0e12


def test_an_accelerators_l2_is_a_ceiling_only_where_it_beats_its_memory():
    from engine.execution.peers.parent import device_levels
    from engine.measure.peak import Probe

    def l2(rate: float, when: str) -> Probe:
        return Probe("sum", when, rate, extra={"level": "L2", "level_bytes": 50 * 2**20})

    (level,) = device_levels([l2(9e12, "before"), l2(11e12, "after")], 4e12)
    assert (level.level, level.bytes, level.bandwidth_bytes_per_s) == ("L2", 50 * 2**20, 11e12)
    assert device_levels([l2(3e12, "before")], 4e12) == ()  # slower than memory: not a ceiling


def test_a_gpu_result_in_its_l2_is_placed_against_it_and_the_file_keeps_it():
    from engine.measure.peak import LevelCeiling
    from tests.factories import make_run

    run = make_run({"torch_bmm": [0.00001] * 4, "numpy": [0.004] * 4})  # 44 KB of inputs
    gpu = run.results[0]
    gpu.ceiling_bytes_per_s = 4.0e12
    gpu.device_levels = (LevelCeiling("L2", 50 * 2**20, 11e12),)
    data = run.to_dict()
    assert data["results"][0]["ceiling_level"] == "L2"
    assert data["results"][0]["ceiling_fraction"] == pytest.approx(gpu.bytes / 0.00001 / 11e12)
    assert data["results"][0]["roofline_fraction"] == pytest.approx(gpu.bytes / 0.00001 / 4e12)
    again = type(run).from_dict(data)
    assert again.results[0].device_levels == (LevelCeiling("L2", 50 * 2**20, 11e12),)
    cold = make_run({"torch_bmm": [0.00001] * 4})
    cold.results[0].ceiling_bytes_per_s = 4.0e12
    cold.results[0].device_levels = (LevelCeiling("L2", 1024, 11e12),)  # smaller than its set
    assert cold.to_dict()["results"][0]["ceiling_level"] == "memory"


def test_an_accelerators_l2_is_kept_only_where_it_reads_faster_than_its_memory():
    """The rule the whole run above follows, on probes with known rates."""
    from engine.execution.peers.parent import device_levels
    from engine.measure.peak import Probe

    def l2(rate: float) -> Probe:
        extra = {"method": "cupy", "level": "L2", "level_bytes": 4 * 2**20}
        return Probe("sum over one launch", "before", rate, extra=extra)

    memory = Probe("sum", "before", 3e12, extra={"method": "cupy"})
    (kept,) = device_levels([memory, l2(5e12), l2(9e12)], 3e12)
    assert (kept.level, kept.bytes, kept.bandwidth_bytes_per_s) == ("L2", 4 * 2**20, 9e12)
    assert device_levels([memory, l2(2.9e12), l2(3e12)], 3e12) == ()  # no faster: dropped


def test_an_accelerators_l2_probe_reads_half_of_it_at_least_256_mib_a_launch():
    from engine.execution.peers.device_probes import device_l2_probes

    class WithL2(FakeAcceleratorRuntime):
        def __init__(self) -> None:
            self.asked: list[tuple[int, int]] = []

        def l2_cache_bytes(self):
            return 4 * 2**20

        def l2_read(self, buffer, times):
            self.asked.append((buffer.size, times))
            return lambda: buffer.sum() * times

    runtime = WithL2()
    (probe,) = device_l2_probes(runtime, "after")
    assert runtime.asked == [(2**19, 128)]  # 2 MiB of float32, read 128 times: 256 MiB
    assert probe["level"] == "L2" and probe["level_bytes"] == 4 * 2**20
    assert "2.0 MiB float32 buffer read 128 times in one launch" in probe["kernel"]
    median = sorted(probe["samples_s"])[len(probe["samples_s"]) // 2]
    assert probe["bandwidth_bytes_per_s"] > 0 and median > 0


def test_numpy_on_a_gpu_machine_is_placed_against_the_hosts_cache_levels(monkeypatch):
    """On a GPU machine without TensorFlow the run's ceiling is the host's memory read, and
    NumPy's results are the host's: its cache levels are probed beside it (an H200 box read
    NumPy at 117% of host memory with a warm 256 MB working set in its 300 MiB L3, placed
    against memory alone)."""
    import engine.execution.run.host_process as host_process
    from engine import notebook
    from engine.machine.caches import cache_levels

    if not cache_levels()[0]:
        pytest.skip(f"this machine reports no cache sizes: {cache_levels()[1]}")
    monkeypatch.setattr(host_process, "probe_kind", lambda: "GPU")
    result = notebook.run(
        strategies=["numpy"], matrices=64, dim=8, repeats=3, warmup=1, progress=False
    )
    assert result.environment.device_kind == "GPU"
    assert result.peak.levels, result.warnings  # the host's, probed
    (entry,) = result.results
    assert result.ceiling_of(entry).level != "memory"  # 16 KiB of inputs fit the L2
    assert not any("ran on the CPU" in w for w in entry.warnings)  # against the host's peak


def test_a_gpu_variant_carries_its_device_time_clocks_and_forms(tmp_path):
    """With CuPy and NVML stand-ins (no GPU here: the fake's "device" time is the host's, its
    clocks made up, every third reading a hardware slowdown): each timed block is timed by
    events too, its clocks kept, a throttled block left out and counted, and the warm, graph
    and flushed forms are taken after the samples; a call a graph cannot hold keeps the
    others and says why."""
    fakes = [ROOT / "tests" / "fixtures" / name for name in ("fake_cupy", "fake_nvml")]
    out = tmp_path / "run.json"
    command = [sys.executable, "-m", "engine", "run", "--strategy=numpy,cupy_matmul"]
    command += ["--matrices=64", "--dim=8", "--repeats=6", "--time-budget=2", f"--json={out}"]
    done = subprocess.run(
        [*command, "--no-history", "--progress=none", "--sampling=fixed"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([*map(str, fakes), str(ROOT)]),
            "FAKE_NVML_THROTTLE_EVERY": "3",
            "FAKE_CUPY_NO_GRAPH": "1",
        },
    )
    assert done.returncode == 0, done.stderr[-3000:]
    entry = next(e for e in json.loads(out.read_text())["results"] if e["variant"] == "cupy_matmul")
    kept, left_out = entry["samples_s"], entry["throttled_samples_s"]
    assert len(entry["device_samples_s"]) == len(kept) and left_out
    assert len(entry["clocks"]) == len(kept) + len(left_out)
    assert sum(c["throttled"] for c in entry["clocks"]) == len(left_out)
    assert not [n for n in entry["notes"] if n.startswith("clocks not read")]
    assert entry["clocks"][0] == {
        "sm_mhz": 1755,
        "memory_mhz": 2619,
        "temperature_c": 61,
        "power_w": None,
        "reasons": ["software power cap"],
        "throttled": False,
    }
    said = [w for w in entry["warnings"] if "throttled" in w]
    assert said == [
        f"{len(left_out)} of {len(entry['clocks'])} blocks were taken while the GPU throttled "
        "(hardware slowdown): left out of the interval"
    ]
    split = entry["time_split"]
    assert split["calls"] == "the timed blocks"
    assert split["op_source"] == "CUDA events around each timed block"
    assert 0 <= split["op_s"] <= split["host_s"]
    forms = entry["device_forms"]
    assert len(forms["warm_s"]) == len(forms["flushed_s"]) == 15 and forms["graph_s"] == []
    assert forms["flush_bytes"] == 8 * 2**20  # twice the stand-in's 4 MiB L2
    assert forms["notes"] == [
        "no graph replay: cudaErrorStreamCaptureUnsupported: operation not permitted"
    ]
    assert entry["device_form_times"]["graph"] is None
    numpy = next(e for e in json.loads(out.read_text())["results"] if e["variant"] == "numpy")
    assert numpy["device_samples_s"] == [] and numpy["device_forms"] is None  # the host's


def test_a_captured_graph_replays_the_call():
    """The CuPy form's graph, with the stand-in: captured once, replayed as the call."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "fake_cupy"))
    try:
        import cupy

        from engine.backends.cupy.device_forms import cupy_forms

        a, x = (
            cupy.asarray(np.ones((4, 3, 3), np.float32)),
            cupy.asarray(np.ones((4, 3, 1), np.float32)),
        )
        forms = cupy_forms(lambda: cupy.matmul(a, x), 4 * 2**20)
    finally:
        sys.path.remove(str(ROOT / "tests" / "fixtures" / "fake_cupy"))
        for name in [m for m in sys.modules if m == "cupy" or m.startswith("engine.backends.cupy")]:
            del sys.modules[name]
    assert len(forms.graph_s) == 15 and forms.notes == ()

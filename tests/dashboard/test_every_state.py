"""Every state the engine can produce renders in every report, table, figure and page.

States: no results at all, one point, cache levels, every variant failed, every variant wrong,
two runs with no variant in common, a distributed run, a one-point sweep, a run whose machine
changed speed.
The rule of the door (a file that imports renders) is `test_the_door.py`.
"""

from __future__ import annotations

import dataclasses

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.figures import run as run_figures
from dashboard.report import comparison_report, run_report, sweep_report
from dashboard.tables import run as run_tables
from engine.catalogue.catalog import TORCH_INSTALL_HINT
from engine.machine.gpu_clocks import block_clocks
from engine.measure.device_forms import DeviceForms
from engine.measure.peak import LevelCeiling
from engine.results.parts import (
    DistributionSummary,
    ProfiledOp,
    ProfileSummary,
    ReplicaTiming,
)
from engine.results.run_result import RunResult
from engine.run_settings.fields import reading_stored_results
from engine.storage.history import History
from tests.conftest import ROOT
from tests.factories import make_run


def empty_run() -> RunResult:
    run = make_run({"einsum": [0.001]})
    run.results = []
    return run


def all_failed() -> RunResult:
    run = make_run({"einsum": [0.001], "numpy": [0.002]})
    for entry in run.results:
        entry.status, entry.samples_s, entry.correct = "failed", (), False
        entry.error = "ResourceExhaustedError: OOM **bold** ![x](http://127.0.0.1:9/x.png)"
    return run


def all_wrong() -> RunResult:
    run = make_run({"einsum": [0.001] * 4, "numpy": [0.002] * 4})
    for entry in run.results:
        entry.correct = False
        entry.warnings.append("incorrect: max relative error 1 exceeds tolerance 1e-6")
    return run


def distributed() -> RunResult:
    run = make_run({"batched_matvec": [0.001] * 4})
    entry = run.results[0]
    entry.mode = "sharded"
    entry.replicas = [
        ReplicaTiming(0, "cpu:0", 50, 0.0005, 1e9),
        ReplicaTiming(1, "cpu:1", 50, None),
    ]
    entry.distribution = DistributionSummary("MirroredStrategy", 2, (50, 50), 0.001)
    return run


def split_without_tensorflow() -> RunResult:
    """Mode sharded on a machine without TensorFlow: NumPy and PyTorch over host threads, JAX
    over a NamedSharding of its host devices, each with its per-replica record."""
    run = make_run(
        {
            "numpy": [0.0058, 0.0060, 0.0057, 0.0059],
            "jax_vmap": [0.0081, 0.0083, 0.0080, 0.0082],
            "torch_bmm": [0.0185, 0.0190, 0.0183, 0.0186],
        }
    )
    run.environment = dataclasses.replace(run.environment, frameworks={})
    splits = {
        "numpy": ("host threads", "host thread {} (numpy)"),
        "jax_vmap": ("NamedSharding over the framework's devices", "cpu:{}"),
        "torch_bmm": ("host threads", "host thread {} (torch)"),
    }
    for entry in run.results:
        how, device = splits[entry.variant]
        entry.mode = "sharded"
        entry.replicas = [
            ReplicaTiming(k, device.format(k), 1500, entry.median_s * 0.9, 2e10) for k in (0, 1)
        ]
        entry.distribution = DistributionSummary(how, 2, (1500, 1500), entry.median_s)
    run.config = dataclasses.replace(run.config, mode="sharded", replicas=2)
    return run


def test_a_split_without_tensorflow_names_how_each_framework_split():
    run = RunResult.from_json(split_without_tensorflow().to_json())
    assert run.environment.tensorflow is None
    shown = run_tables.display_distribution(run_tables.distribution(run))
    assert dict(zip(shown["strategy"], shown["split over"])) == {
        "numpy": "host threads",
        "jax_vmap": "NamedSharding over the framework's devices",
        "torch_bmm": "host threads",
    }
    devices = set(run_tables.replicas(run)["device"])
    assert {"host thread 1 (torch)", "cpu:0"} <= devices
    html = run_report(run)
    assert "Per-replica breakdown" in html and "NamedSharding over the framework" in html


def with_peers() -> RunResult:
    """TensorFlow beside the JAX and PyTorch peers, one of them not installed."""
    run = make_run(
        {
            "einsum": [0.002] * 4,
            "jax_vmap": [0.0015, 0.0016, 0.0014, 0.0015],
            "torch_bmm": [0.003] * 4,
            "torch_einsum": [0.001],
        }
    )
    missing = run.results[-1]
    missing.status, missing.samples_s, missing.correct = "unsupported", (), False
    missing.calls_per_sample = None
    missing.error = f"torch is not installed here; {TORCH_INSTALL_HINT}"
    frameworks = {"jax": {"version": "0.10.2", "threads": 2, "process": {"wall_s": 3.0}}}
    run.environment = dataclasses.replace(run.environment, frameworks=frameworks)
    return run


def profiled() -> RunResult:
    """Profiles of every status: a loop's thousands of ops, one batched op, a failure."""
    run = make_run({"while_loop": [0.05] * 4, "batched_matvec": [0.007] * 4, "numpy": [0.009]})
    loop, batched, host = run.results
    loop.profile = ProfileSummary(
        "ok",
        calls=3,
        ops_per_call=38_000,
        op_time_s=0.05,
        host_time_s=0.001,
        wall_s=0.051,
        top_ops=(ProfiledOp("(inline ops)", "executor step", 33_000, 0.04),),
        tracing_count=1,
        memory_note="not reported on this device (CPU)",
    )
    batched.profile = ProfileSummary(
        "ok",
        calls=3,
        ops_per_call=2,
        op_time_s=0.006,
        host_time_s=0.001,
        wall_s=0.007,
        top_ops=(ProfiledOp("MatVec/MatMul", "BatchMatMulV2", 1, 0.006),),
        tracing_count=1,
    )
    host.profile = ProfileSummary(
        "failed", error="RuntimeError: **no** ![x](http://127.0.0.1:9/x.png)"
    )
    return run


def on_a_gpu() -> RunResult:
    """A GPU's device truth: events around each block, one block throttled and left out, the
    clocks of each, the warm and flushed forms (no graph: a call a graph cannot hold)."""
    run = make_run({"cupy_matmul": [2e-5] * 5, "numpy": [3e-5] * 5})
    gpu = run.results[0]
    gpu.device_samples_s = (1.4e-5,) * 5
    gpu.device_timer = "CUDA events around each timed block"
    gpu.clocks = (
        *(block_clocks(0x4, 1755, 1980, 2619, 61, 300_000) for _ in range(5)),
        block_clocks(0x40, 1200, 1980, 2619, 91, 350_000),
    )
    gpu.throttled_samples_s = (4e-5,)
    gpu.warnings.append(
        "1 of 6 blocks were taken while the GPU throttled (hardware thermal slowdown): left "
        "out of the interval"
    )
    gpu.device_forms = DeviceForms(
        (1.3e-5,) * 15,
        (),
        (2.6e-5,) * 15,
        2**25,
        "CUDA events",
        ("no graph replay: **operation not permitted** ![x](http://127.0.0.1:9/x.png)",),
    )
    return run


def from_elsewhere() -> RunResult:
    """A run naming a strategy this process does not register (a newer version's, a user's
    kernel): it reads back, renders and compares without the catalogue knowing it."""
    data = make_run({"einsum": [0.001] * 5, "numpy": [0.002] * 5}).to_dict()
    data["config"]["strategies"] = ["numpy", "my_kernel"]
    for entry in data["results"]:
        if entry["strategy"] == "einsum":
            entry["strategy"], entry["variant"] = "my_kernel", "my_kernel"
    data.pop("winner", None)
    return RunResult.from_dict(data)


def changed_speed() -> RunResult:
    """A run the machine slowed mid-way for one kernel only: tied by the phase, with a warning."""
    fast, slow = [0.0037, 0.0038, 0.0036, 0.0037] * 2, [0.0082, 0.0081, 0.0083, 0.0082] * 3
    run = make_run({"batched_matvec": fast + slow, "numpy": [0.0044, 0.0045, 0.0043, 0.0044] * 5})
    run.sampling = {"order": "interleaved", "variants": ["batched_matvec", "numpy"]}
    run.sampling["rounds"] = [[0, 1]] * 20
    run.results[0].warnings.append("its time changed during the run: 3.7 ms for its first 8")
    return run


def cache_levels() -> RunResult:
    """A warm run with its L2 and L3 ceilings beside memory's; einsum far above its level's."""
    run = make_run({"einsum": [0.00001] * 5, "numpy": [0.002] * 5})
    run.peak = dataclasses.replace(
        run.peak,
        levels=(LevelCeiling("L2", 2 * 2**20, 130e9), LevelCeiling("L3", 32 * 2**20, 110e9)),
    )
    run.results[0].warnings.append("400% of the L2 ceiling: it read 520.0 GB/s")
    return run


STATES = {
    "cache levels": cache_levels,
    "changed speed": changed_speed,
    "from elsewhere": from_elsewhere,
    "empty": empty_run,
    "profiled": profiled,
    "on a GPU": on_a_gpu,
    "peers": with_peers,
    "one point": lambda: make_run({"einsum": [0.001]}),
    "all failed": all_failed,
    "all wrong": all_wrong,
    "distributed": distributed,
    "split without TensorFlow": split_without_tensorflow,
}


@pytest.mark.parametrize("state", list(STATES))
def test_every_state_renders_in_the_report_tables_and_figures(state):
    run = STATES[state]()
    again = RunResult.from_json(run.to_json())  # what a file of this state imports as
    html = run_report(again)
    assert "<h1>" in html
    summary = run_tables.summary(again)
    run_figures.all_figures(
        summary,
        run_tables.samples(again),
        run_tables.replicas(again),
        2e10,
        run_tables.distribution(again),
        run_tables.levels(again),
    )
    sweep_report([again], "one point")  # a one-point sweep
    comparison_report([again, again])


def test_a_one_point_sweep_opens_on_the_sweeps_page(tmp_path, monkeypatch):
    path = tmp_path / "history.sqlite3"
    monkeypatch.setenv("MATVEC_HISTORY", str(path))
    history = History(path)
    history.add_sweep("s1", "2026-11-30T12:00:00+00:00", "one point", {}, 1)
    history.add_run(make_run({"einsum": [0.001] * 4}), sweep_id="s1", point_key="p")
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/sweeps.py")
    at.run()
    assert not at.exception
    assert any("Crossover" in m.value for m in at.markdown)


def test_two_runs_with_nothing_in_common_compare_and_report():
    html = comparison_report([make_run({"numpy": [0.003] * 5}), make_run({"einsum": [0.002] * 5})])
    assert "not in the baseline" in html and "not in this run" in html


@pytest.fixture
def stored_states(tmp_path, monkeypatch):
    path = tmp_path / "history.sqlite3"
    monkeypatch.setenv("MATVEC_HISTORY", str(path))
    monkeypatch.setenv("MATVEC_QUEUE_DIR", str(tmp_path / "queue"))
    history = History(path)
    runs = {}
    for index, (name, make) in enumerate(STATES.items()):
        run = make()
        label = f"{name} ![x](http://127.0.0.1:9/x.png)"
        with reading_stored_results():  # a config as read from a file, names from elsewhere too
            run.config = type(run.config)(**{**run.config.__dict__, "label": label})
        run.created_at = f"2026-11-30T12:00:0{index}+00:00"
        history.add_run(run)
        runs[name] = run
    return runs


def opened_in_history(run: RunResult) -> AppTest:
    """The History page with a stored run opened, as a user would click it."""
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/history.py")
    at.run()
    at.session_state["history_opened"] = run.run_id
    at.run()
    return at


def test_every_state_opens_on_the_history_and_compare_pages(stored_states):
    for name, run in stored_states.items():
        at = opened_in_history(run)
        assert not at.exception, name
        assert any("The fastest way" in m.value for m in at.markdown), name
        shown = [
            e.value
            for kind in ("markdown", "caption", "info", "error", "warning")
            for e in getattr(at, kind)
        ]
        assert not any("![x](http" in text for text in shown), name  # never a live image
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/compare.py")
    ids = [run.run_id for run in stored_states.values()]
    at.query_params["runs"] = ",".join(ids)
    at.run()
    assert not at.exception


def test_the_peers_appear_with_their_framework_on_the_run_pages(stored_states):
    run = stored_states["peers"]
    at = opened_in_history(run)
    assert not at.exception
    tables = [frame.value for frame in at.dataframe]
    summary = next(t for t in tables if "framework" in t.columns and "median" in t.columns)
    frameworks = dict(zip(summary["strategy"], summary["framework"]))
    assert frameworks == {
        "einsum": "TensorFlow",
        "jax_vmap": "JAX",
        "torch_bmm": "PyTorch",
        "torch_einsum": "PyTorch",
    }
    shown = " ".join(
        e.value for kind in ("markdown", "error", "caption") for e in getattr(at, kind)
    )
    assert "jax\\_vmap" in shown or "jax_vmap" in shown
    assert "torch==2.13.0" in shown.replace("\\", "")  # the hint
    html = run_report(run)
    assert "jax_vmap" in html and "PyTorch" in html and "torch==2.13.0" in html


def test_the_why_section_draws_the_measured_profile_on_the_page_and_in_the_report(
    stored_states,
):
    run = stored_states["profiled"]
    at = opened_in_history(run)
    assert not at.exception
    headings = [m.value for m in at.markdown]
    assert "### Why (profiled)" in headings
    answer = next(m.value for m in at.markdown if "fastest correct" in m.value or "tie" in m.value)
    assert "executes 2 op(s) per call" in answer  # written from the measured numbers
    assert "`while_loop` executes 38,000 ops per call" in answer
    tables = [frame.value for frame in at.dataframe]
    why = next(t for t in tables if "ops per call" in t.columns)
    assert list(why["ops per call"]) == ["38,000", "2", "-"]
    html = run_report(run)
    assert "Why (profiled)" in html and "38,000" in html and "BatchMatMulV2" in html


def test_a_gpu_runs_device_time_shows_beside_its_host_time(stored_states):
    at = opened_in_history(stored_states["on a GPU"])
    assert not at.exception
    tables = [frame.value for frame in at.dataframe]
    why = next(t for t in tables if "in ops" in t.columns).set_index("strategy")
    assert why.loc["cupy_matmul", "in ops"] == "14 us (no spread)"
    assert why.loc["cupy_matmul", "the rest"] == "6 us (no spread)"
    shown = " ".join(c.value for c in at.caption)
    assert "Speed of light for this problem" in shown

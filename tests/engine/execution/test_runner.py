"""The runner on real TensorFlow: whole runs, failure isolation, timing honesty."""

import itertools
import json
import time

import numpy as np
import pytest
import tensorflow as tf

from engine import BenchConfig, run
from engine.backends.tensorflow.build import build_kernel
from engine.catalogue.catalog import strategy_info
from engine.results.codec import RESULT_FIELDS, RUN_FIELDS
from engine.results.events import Sample, VariantDone
from engine.results.run_result import RunResult

SMALL = {"matrices": 40, "dim": 6, "cols": 5, "warmup": 1, "repeats": 3, "time_budget_s": 5}


@pytest.fixture(scope="module")
def small_run():
    events = []
    result = run(BenchConfig(**SMALL, strategies=("all",), xla=True), progress=events.append)
    return result, events


def test_every_variant_runs_correct_and_reports_every_contract_field(small_run):
    result, _ = small_run
    data = json.loads(result.to_json())
    assert RunResult.from_dict(data).to_dict() == data  # the parser takes what a run writes
    assert list(data)[: len(RUN_FIELDS)] == list(RUN_FIELDS)
    variants = [r["variant"] for r in data["results"]]
    assert "batched_matvec+xla" in variants and "python_loop+xla" not in variants
    for entry in data["results"]:
        assert list(entry)[: len(RESULT_FIELDS)] == list(RESULT_FIELDS)
        assert entry["status"] == "ok", entry["error"]
        assert entry["correct"] is True
        # repeats=3; fewer only for one the race stopped (an eager loop at 10× the best's
        # time goes after its first sample)
        assert len(entry["samples_s"]) == 3 or entry["stop_reason"] in ("eliminated", "tied")
        assert entry["median_s"] == pytest.approx(float(np.median(entry["samples_s"])))
        assert entry["flops"] == 2 * 40 * 6 * 5
        assert entry["bytes"] == 4 * 40 * (6 * 5 + 5 + 6)
        assert entry["gbytes_per_s"] == pytest.approx(entry["bytes"] / entry["median_s"] / 1e9)
        assert entry["roofline_fraction"] == pytest.approx(
            entry["bytes"] / entry["median_s"] / data["peak"]["bandwidth_bytes_per_s"]
        )
        assert entry["first_call_s"] > 0 and entry["dispatch_s"] > 0


def test_environment_and_peak_are_recorded(small_run):
    result, _ = small_run
    env = result.environment
    assert env.device_kind == "CPU" and env.tensorflow == tf.__version__
    assert env.cpu_count >= 1 and env.threads and env.flags
    assert result.peak.bandwidth_bytes_per_s > 0
    assert "synchronised read probes" in result.peak.method and "tensorflow" in result.peak.method
    assert result.memory is not None and result.memory.total_bytes > 0


def test_progress_events_cover_every_variant(small_run):
    result, events = small_run
    done = [e.variant for e in events if isinstance(e, VariantDone)]
    # once each, in the order they finished (peers first, each from its own process)
    assert sorted(done) == sorted(r.variant for r in result.results)
    assert any(isinstance(e, Sample) for e in events)


def failing_builder(strategy, **options):
    def explode(A, x):
        raise tf.errors.ResourceExhaustedError(None, None, "OOM when allocating tensor\nmore")

    return explode


def test_a_failing_strategy_keeps_the_others():
    config = BenchConfig(**SMALL, strategies=("einsum", "batched_matvec", "numpy"))
    result = run(config, builders={"batched_matvec": failing_builder})
    by_variant = {r.variant: r for r in result.results}
    failed = by_variant["batched_matvec"]
    assert failed.status == "failed"
    assert failed.error == "ResourceExhaustedError: OOM when allocating tensor"
    assert failed.correct is False and failed.samples_s == ()
    assert by_variant["einsum"].status == "ok" and by_variant["einsum"].correct
    assert by_variant["numpy"].status == "ok"
    entries = {e["variant"]: e for e in json.loads(result.to_json())["results"]}
    entry = entries["batched_matvec"]
    assert entry["median_s"] is None and entry["gbytes_per_s"] is None


def wrong_builder(strategy, **options):
    """The classic while_loop bug: only the last y[i] survives."""
    return tf.function(lambda A, x: tf.linalg.matvec(A[-1], x[-1]))


def test_a_wrong_result_is_flagged_not_hidden():
    config = BenchConfig(**SMALL, strategies=("while_loop",))
    result = run(config, builders={"while_loop": wrong_builder})
    (entry,) = result.results
    assert entry.status == "ok" and entry.correct is False
    assert any("output shape" in w for w in entry.warnings)


def sleeping_builder(strategy, **options):
    """Real work of known length (10 ms per call) inside a tf.function."""

    def sleep(a):
        time.sleep(0.01)
        return a

    return tf.function(lambda A, x: tf.py_function(sleep, [tf.linalg.matvec(A, x)], A.dtype))


def test_known_work_is_never_reported_faster_than_it_is():
    config = BenchConfig(**{**SMALL, "repeats": 4}, strategies=("einsum",))
    (entry,) = run(config, builders={"einsum": sleeping_builder}).results
    assert entry.status == "ok", entry.error
    assert min(entry.samples_s) >= 0.01


def test_cold_cache_rotates_input_copies():
    config = BenchConfig(**SMALL, strategies=("einsum", "numpy"), cache="cold")
    result = run(config)
    assert result.cold_copies >= 2
    assert result.to_dict()["config"]["cold_copies"] == result.cold_copies
    assert all(r.correct for r in result.results)


def test_frames_are_tidy(small_run):
    result, _ = small_run
    samples = result.samples_frame()
    assert len(samples) == sum(len(r.samples_s) for r in result.results)
    assert {"variant", "seconds", "sample", "dtype"} <= set(samples.columns)
    summary = result.summary_frame()
    assert list(summary["variant"]) == [r.variant for r in result.results]


def test_build_kernel_for_unknown_strategy_raises():
    with pytest.raises(KeyError):
        build_kernel("nope")


def test_an_unknown_memory_limit_is_said_in_the_results(monkeypatch):
    monkeypatch.setattr("engine.measure.memory.available_bytes", lambda kind: (None, "TPU unknown"))
    result = run(BenchConfig(**SMALL, strategies=("einsum",)))
    assert "memory preflight could not check the limit: TPU unknown" in result.warnings


def test_samples_are_interleaved_in_recorded_seeded_rounds(small_run):
    result, _ = small_run
    sampling = result.to_dict()["sampling"]
    assert sampling["order"] == "interleaved" and sampling["seed"] == 0
    own = [r.variant for r in result.results if not strategy_info(r.strategy).in_own_process]
    assert sampling["variants"] == own  # the peers' rounds are their own processes'
    everyone = list(range(len(own)))
    assert sorted(set(sampling["rounds"][0])) == everyone  # then those still sampling
    blocks = [i for r in sampling["rounds"] for i in r]
    for index, variant in enumerate(own):
        entry = next(r for r in result.results if r.variant == variant)
        assert blocks.count(index) == len(entry.samples_s)
    turns = [i for i, _ in itertools.groupby(sampling["rounds"][0])]
    assert sorted(turns) == everyone and turns != everyone  # one turn each, shuffled
    for framework, record in sampling["peers"].items():
        peers = [
            r.variant for r in result.results if strategy_info(r.strategy).framework == framework
        ]
        assert record["variants"] == peers and record["order"] == "interleaved"
        assert sorted(set(record["rounds"][0])) == list(range(len(peers)))


def test_every_result_has_a_median_interval_and_the_run_a_winner(small_run):
    result, _ = small_run
    data = result.to_dict()
    for entry in data["results"]:
        low, high = entry["median_ci_s"]
        assert low <= entry["median_s"] <= high
    winner = data["winner"]
    assert winner["variant"] in {r.variant for r in result.results}
    assert set(winner["tied_with"]) <= {r.variant for r in result.results}
    assert winner["simplest"] in [winner["variant"], *winner["tied_with"]]
    assert "quantile_test" in data["uncertainty"]["median_ci"]


def test_the_ceiling_has_a_probe_that_does_not_go_through_tensorflow(small_run):
    result, _ = small_run
    methods = {p.extra.get("method") for p in result.peak.probes}
    assert methods == {"tensorflow", "numpy"}
    assert {p.when for p in result.peak.probes} == {"before", "after"}
    best = max(p.bandwidth_bytes_per_s for p in result.peak.probes)
    assert result.peak.bandwidth_bytes_per_s == best


def test_machine_load_and_threads_are_recorded(small_run):
    result, _ = small_run
    load = result.to_dict()["machine_load"]
    assert load["wall_s"] > 0 and load["cores"] >= 1 and load["other_cpu_fraction"] >= 0
    assert "numpy_blas" in result.environment.threads


def test_sequential_order_is_kept_when_asked():
    config = BenchConfig(**SMALL, strategies=("einsum", "numpy"), order="sequential")
    sampling = run(config).to_dict()["sampling"]
    assert sampling["order"] == "sequential"
    assert sampling["rounds"] == [[0] * 3, [1] * 3]


def test_the_run_records_where_its_wall_time_went(small_run):
    result, _ = small_run
    timings = result.to_dict()["timings"]
    phases = ("startup_s", "peers_s", "peak_s", "inputs_s", "variants_s", "profile_s")
    assert set(timings) == {*phases, "total_s", "timed_s", "rewarm_s"}
    assert all(timings[name] >= 0 for name in phases)
    assert sum(timings[name] for name in phases) <= timings["total_s"] + 1e-6
    measuring = timings["peers_s"] + timings["variants_s"]  # the split covers both
    assert timings["timed_s"] + timings["rewarm_s"] <= measuring
    assert timings["peers_s"] > 0  # "all" includes the installed peers
    assert RunResult.from_dict(result.to_dict()).timings == timings

"""A warm worker's state on real TensorFlow: what it reuses between runs, and that a warm run
is never measured more kindly than a fresh one."""

import numpy as np
import pytest

from engine import BenchConfig, run
from engine.backends.tensorflow.build import build_kernel
from engine.backends.tensorflow.warm import WarmState
from engine.machine.accelerators import DeviceError
from engine.measure.host_bandwidth import FULL, WARM
from engine.measure.memory import bandwidth_buffer_bytes, input_set_bytes
from engine.results.decode import result_from_dict
from engine.results.events import VariantDone, VariantResult

SMALL = {"matrices": 40, "dim": 6, "cols": 5, "warmup": 1, "repeats": 3, "time_budget_s": 5}


@pytest.fixture(scope="module")
def two_runs():
    """The same settings twice in one worker, counting every function the builder makes."""
    state = WarmState(keep_inputs=True)
    built = []

    def counting(strategy, **options):
        built.append(strategy)
        return build_kernel(strategy, **options)

    config = BenchConfig(**SMALL, strategies=("einsum", "numpy"), cache="cold")
    events = []
    first = run(config, state=state, builders={"einsum": counting})
    built_first = len(built)
    second = run(config, state=state, builders={"einsum": counting}, progress=events.append)
    return state, first, second, built_first, len(built), events


def test_the_second_run_reuses_devices_buffers_and_inputs(two_runs):
    state, first, second, *_ = two_runs
    assert first.sampling["worker"] == {"warm": False, "runs_before": 0, "inputs_reused": False}
    assert second.sampling["worker"] == {"warm": True, "runs_before": 1, "inputs_reused": True}
    assert state.runs == 2 and state.inputs is not None
    assert all(r.status == "ok" and r.correct for r in first.results + second.results)


def test_every_run_builds_its_functions_afresh(two_runs):
    _, first, second, built_first, built_total, _ = two_runs
    # Nothing is cached inside a timed region: the strategy is built (and traced) again.
    assert built_first >= 1 and built_total == 2 * built_first
    for result in (first, second):
        (einsum,) = [r for r in result.results if r.variant == "einsum"]
        assert einsum.first_call_s > 0


def test_cold_cache_rotation_is_unchanged_when_inputs_are_reused(two_runs):
    _, first, second, *_ = two_runs
    assert second.cold_copies == first.cold_copies >= 2
    llc = first.environment.last_level_cache_bytes
    footprint = second.cold_copies * input_set_bytes(second.config)
    assert footprint >= 4 * llc or second.cold_copies == 64


def test_a_warm_run_still_probes_before_and_after_with_a_shorter_probe(two_runs):
    _, first, second, *_ = two_runs
    full_round = [p for p in first.peak.probes if p.when == "before"]
    assert len(full_round) == 3 and all(len(p.samples_s) == FULL.repeats for p in full_round)
    fastest = max(full_round, key=lambda p: p.bandwidth_bytes_per_s).kernel
    short_rounds = [p for p in first.peak.probes if p.when == "after"] + list(second.peak.probes)
    # once warm: only the kernel that read fastest in the full round, with fewer samples
    assert [p.when for p in second.peak.probes] == ["before", "after"]
    assert {p.kernel for p in short_rounds} == {fastest}
    assert all(len(p.samples_s) == WARM.repeats for p in short_rounds)
    llc = second.environment.last_level_cache_bytes
    assert second.peak.buffer_bytes == bandwidth_buffer_bytes(llc)
    assert second.peak.bandwidth_bytes_per_s == max(
        p.bandwidth_bytes_per_s for p in second.peak.probes
    )
    assert second.timings["peak_s"] > 0


def test_each_result_is_sent_as_soon_as_it_is_final(two_runs):
    *_, second, _, _, events = two_runs
    sent = [e for e in events if isinstance(e, VariantResult)]
    assert [e.result["variant"] for e in sent] == [r.variant for r in second.results]
    for event, final in zip(sent, second.results):
        streamed = result_from_dict(event.result, "result", second.config)
        assert streamed.samples_s == final.samples_s and streamed.status == final.status
    done = [i for i, e in enumerate(events) if isinstance(e, VariantDone)]
    results = [i for i, e in enumerate(events) if isinstance(e, VariantResult)]
    assert all(r == d + 1 for d, r in zip(done, results))


def test_other_settings_make_new_inputs_and_the_old_ones_are_freed_first():
    state = WarmState(keep_inputs=True)
    config = BenchConfig(**SMALL, strategies=("numpy",), cache="warm")
    run(config, state=state)
    kept = state.inputs
    again = run(BenchConfig(**{**SMALL, "repeats": 4}, strategies=("einsum",)), state=state)
    assert again.sampling["worker"]["inputs_reused"] is True  # only timing settings changed
    other = run(BenchConfig(**{**SMALL, "seed": 9}, strategies=("numpy",)), state=state)
    assert other.sampling["worker"]["inputs_reused"] is False and state.inputs is not kept
    assert not np.array_equal(state.inputs.check_host[0], kept.check_host[0])
    assert state.inputs.check_host is state.inputs.host_timed[0]  # checked on the timed set


def test_a_one_shot_run_keeps_nothing():
    state = WarmState()
    run(BenchConfig(**SMALL, strategies=("numpy",)), state=state)
    assert state.inputs is None and state.runs == 1


def test_a_new_replica_layout_is_refused_with_the_reason():
    state = WarmState(keep_inputs=True)
    state.devices(1)
    with pytest.raises(DeviceError, match="replicas: this worker's devices are laid out for 1"):
        state.devices(2)


def test_inputs_are_reused_when_the_caller_sets_up_the_devices():
    """The notebook passes its own device layout: the kept inputs must still be found."""
    state = WarmState(keep_inputs=True)
    setup = state.devices(1)
    config = BenchConfig(**SMALL, strategies=("numpy",))
    run(config, state=WarmState(keep_inputs=True), setup=setup)  # another state: nothing kept
    fresh = WarmState(keep_inputs=True)
    run(config, state=fresh, setup=setup)
    again = run(config, state=fresh, setup=setup)
    assert again.sampling["worker"]["inputs_reused"] is True


def test_known_work_is_never_faster_in_a_warm_worker():
    from tests.engine.execution.test_runner import sleeping_builder

    state = WarmState(keep_inputs=True)
    config = BenchConfig(**{**SMALL, "repeats": 4}, strategies=("einsum",))
    for _ in range(2):
        (entry,) = run(config, state=state, builders={"einsum": sleeping_builder}).results
        assert entry.status == "ok", entry.error
        assert min(entry.samples_s) >= 0.01 and entry.first_call_s >= 0.01
    assert state.runs == 2


def test_a_warm_worker_refuses_a_run_with_other_threads_than_its_tensorflow_took():
    from engine.backends.tensorflow.warm import WarmState
    from engine.machine.accelerators import DeviceError

    state = WarmState(keep_inputs=True)
    assert state.threads(None) is None
    assert state.threads(None) is None  # the same again: fine
    with pytest.raises(DeviceError, match=r"^threads: this worker's TensorFlow runs with"):
        state.threads(1)


def test_a_one_shot_run_places_the_inputs_drawn_while_tensorflow_imported():
    """`run` starts the draw before TensorFlow's import; placement takes those very arrays
    (no second draw) and the check's reference with them. The catalogue's strategies are
    checked on the first timed set itself: no set of its own is drawn."""
    from engine.backends.tensorflow.placement import prepare
    from engine.measure import predraw
    from engine.measure.correctness import check_stream, make_inputs, reference

    config = BenchConfig(**SMALL, strategies=("einsum", "numpy"))
    shape = predraw.shape_of(config)
    predraw.start(shape, check_stream(user_kernel=False))
    predraw.wait()
    assert set(predraw._pending.drawn) == {0}  # the timed set, and no check set
    drawn = predraw._pending.drawn[0]  # the very arrays, to see they are not drawn again
    early_reference = predraw._pending.reference
    try:
        inputs = prepare(config, "/CPU:0", copies=2, keep_host=True)
    finally:
        predraw.drop()
    assert inputs.host_timed[0][0] is drawn[0] and inputs.host_timed[0][1] is drawn[1]
    assert np.array_equal(inputs.host_timed[1][0], make_inputs(*shape, stream=1)[0])
    assert inputs.check_host is inputs.host_timed[0] and inputs.check_device is inputs.timed[0]
    assert inputs.check_shared and inputs.reference is early_reference
    assert np.array_equal(inputs.reference, reference(*drawn))
    assert np.array_equal(inputs.timed[0][0].numpy(), drawn[0])


def test_a_run_with_a_users_kernel_checks_on_a_fresh_set_drawn_early_with_its_reference():
    from engine.backends.tensorflow.placement import prepare
    from engine.measure import predraw
    from engine.measure.correctness import CHECK_STREAM, check_stream, make_inputs, reference
    from tests.engine.execution.test_user_kernels import FIXTURES

    spec = f"{FIXTURES / 'numpy_kernels.py'}:mine"
    config = BenchConfig.from_raw({**SMALL, "kernels": [spec], "strategies": "numpy"})
    shape = predraw.shape_of(config)
    predraw.start(shape, check_stream(user_kernel=bool(config.kernels)))
    predraw.wait()
    drawn = predraw._pending.drawn[CHECK_STREAM]
    try:
        inputs = prepare(config, "/CPU:0", copies=1, keep_host=True)
    finally:
        predraw.drop()
    assert inputs.check_host is drawn and not inputs.check_shared
    assert not np.array_equal(inputs.check_host[0], inputs.host_timed[0][0])
    assert np.array_equal(inputs.check_host[0], make_inputs(*shape, stream=CHECK_STREAM)[0])
    assert np.array_equal(inputs.reference, reference(*drawn))


def test_a_kept_worker_keeps_its_functions_for_the_same_problem_and_says_so():
    """Compiled functions stay warm between runs of one problem: the second run's first call
    does not trace again, and its result says its first call is a warm call; another shape
    builds afresh and says nothing."""
    from engine.backends.tensorflow.process import KEPT_FUNCTION

    state = WarmState(keep_inputs=True)
    config = BenchConfig(**SMALL, strategies=("einsum", "numpy"))
    first = run(config, state=state)
    kept = dict(state.functions)
    second = run(config, state=state)
    same_functions = kept and all(state.functions.get(name) is fn for name, fn in kept.items())
    other = run(BenchConfig(**{**SMALL, "dim": 7}, strategies=("einsum",)), state=state)

    def einsum(result):
        return next(r for r in result.results if r.variant == "einsum")

    assert KEPT_FUNCTION not in einsum(first).notes
    assert KEPT_FUNCTION in einsum(second).notes and einsum(second).correct
    assert same_functions and all(fn not in kept.values() for fn in state.functions.values())
    assert KEPT_FUNCTION not in einsum(other).notes
    numpy = next(r for r in second.results if r.variant == "numpy")
    assert KEPT_FUNCTION not in numpy.notes  # nothing traced: built afresh, nothing to say


def test_a_one_shot_run_builds_afresh():
    state = WarmState()  # the CLI's: nothing outlives the run
    config = BenchConfig(**SMALL, strategies=("einsum",))
    run(config, state=state)
    again = run(config, state=state)
    assert state.functions == {} and not any(
        KEPT_FUNCTION_WORDS in n for n in again.results[0].notes
    )


KEPT_FUNCTION_WORDS = "traced and compiled earlier in this warm worker"

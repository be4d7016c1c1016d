import numpy as np
import pytest

from engine.measure.correctness import (
    check,
    fill,
    make_inputs,
    poisoned_output,
    reference,
    tolerance,
)


@pytest.fixture
def problem():
    a, x = make_inputs(50, 6, 4, "float32", seed=3, stream=0)
    return a, x, reference(a, x)


def test_inputs_are_reproducible_and_streams_differ():
    a1, _ = make_inputs(3, 2, 2, "float32", seed=1, stream=0)
    a2, _ = make_inputs(3, 2, 2, "float32", seed=1, stream=0)
    a3, _ = make_inputs(3, 2, 2, "float32", seed=1, stream=1)
    assert np.array_equal(a1, a2) and not np.array_equal(a1, a3)
    assert make_inputs(3, 2, 5, "bfloat16", 0, 0)[0].dtype.name == "bfloat16"


def test_reference_is_float64_and_chunking_changes_nothing(problem, monkeypatch):
    a, x, ref = problem
    monkeypatch.setattr("engine.measure.correctness.REFERENCE_CHUNK_ELEMENTS", 30)
    assert ref.dtype == np.float64
    assert np.array_equal(reference(a, x), ref)
    assert np.allclose(ref[7], a[7].astype(np.float64) @ x[7].astype(np.float64))


def test_exact_result_is_correct(problem):
    a, x, ref = problem
    out = poisoned_output(50, 6)
    assert fill(out, np.matmul(a, x[..., None])[..., 0]) is None
    result = check(out, ref, "float32", 4)
    assert result.correct and result.max_rel_error < tolerance("float32", 4)


def test_only_last_vector_written_is_caught(problem):
    _, _, ref = problem
    out = poisoned_output(50, 6)
    out[-1] = ref[-1]
    result = check(out, ref, "float32", 4)
    assert not result.correct and "never written" in result.message


def test_last_result_repeated_everywhere_is_caught(problem):
    _, _, ref = problem
    out = poisoned_output(50, 6)
    assert fill(out, np.broadcast_to(ref[-1], ref.shape)) is None
    assert not check(out, ref, "float32", 4).correct


def test_wrong_shape_is_reported_not_broadcast(problem):
    _, _, ref = problem
    out = poisoned_output(50, 6)
    assert fill(out, ref[-1]) == "output shape (6,), expected (50, 6)"
    assert np.isnan(out).all()


def test_zeros_fail_even_at_low_precision(problem):
    _, _, ref = problem
    result = check(np.zeros_like(ref), ref, "bfloat16", 4)
    assert not result.correct and result.max_rel_error == pytest.approx(1.0)


def test_small_error_within_dtype_tolerance(problem):
    _, _, ref = problem
    nudged = ref * (1 + 1e-3)
    assert check(nudged, ref, "float16", 4).correct
    assert not check(nudged, ref, "float32", 4).correct


def test_tolerance_grows_with_n_and_eps():
    assert tolerance("float32", 10_000) > tolerance("float32", 100)
    assert tolerance("bfloat16", 100) > tolerance("float16", 100) > tolerance("float32", 100)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
def test_inputs_depend_on_the_seed_alone_never_on_the_thread_count(dtype, monkeypatch):
    monkeypatch.setattr("engine.measure.correctness.DRAW_BLOCK_ELEMENTS", 64)  # many blocks
    monkeypatch.setattr("engine.measure.correctness.draw_threads", lambda: 1)
    one = make_inputs(40, 5, 7, dtype, seed=2, stream=3)
    monkeypatch.setattr("engine.measure.correctness.draw_threads", lambda: 3)
    three = make_inputs(40, 5, 7, dtype, seed=2, stream=3)
    assert one[0].dtype.name == dtype and one[0].shape == (40, 5, 7) and one[1].shape == (40, 7)
    assert np.array_equal(one[0], three[0]) and np.array_equal(one[1], three[1])
    values = one[0].astype(np.float64)
    assert values.min() >= -1 and values.max() <= 1  # uniform on [-1, 1)
    assert abs(values.mean()) < 0.05 and 0.5 < values.std() < 0.65  # its sd is 1/sqrt(3)
    assert not np.array_equal(values.reshape(-1)[:64], values.reshape(-1)[64:128])

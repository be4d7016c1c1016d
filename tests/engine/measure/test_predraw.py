"""Inputs drawn early (while TensorFlow imports): the same values the run would have drawn,
taken once, for its own shape only, and nothing left running or held after the run."""

import threading

import numpy as np
import pytest

from engine.measure import predraw
from engine.measure.correctness import CHECK_STREAM, make_inputs, reference
from engine.run_settings.config import BenchConfig

SHAPE = predraw.shape_of(BenchConfig(matrices=30, dim=7, cols=5, dtype="float32", seed=3))


@pytest.fixture(autouse=True)
def nothing_left():
    yield
    predraw.drop()


def test_the_values_are_the_ones_the_run_would_draw_bit_for_bit():
    predraw.start(SHAPE)
    timed, (check, expected) = predraw.take(SHAPE, 0), predraw.take_check(SHAPE)
    for got, want in (
        (timed, make_inputs(*SHAPE, stream=0)),
        (check, make_inputs(*SHAPE, stream=CHECK_STREAM)),
    ):
        assert got is not None
        assert all(
            np.array_equal(g, w) and g.dtype == w.dtype for g, w in zip(got, want, strict=True)
        )
    assert np.array_equal(expected, reference(*check))


def test_each_set_is_taken_once_and_only_for_its_own_shape():
    predraw.start(SHAPE)
    other = (31, *SHAPE[1:])
    assert predraw.take(other, 0) is None and predraw.take_check(other) is None
    assert predraw.take(SHAPE, 0) is not None
    assert predraw.take(SHAPE, 0) is None  # taken: the run draws any further need itself
    assert predraw.take(SHAPE, 1) is None  # never drawn early
    assert predraw.take_check(SHAPE) is not None and predraw.take_check(SHAPE) is None


def test_a_draw_that_fails_leaves_the_run_to_draw_for_itself(monkeypatch):
    def failing(*_args, **_kwargs):
        raise MemoryError("no room")

    monkeypatch.setattr(predraw, "make_inputs", failing)
    predraw.start(SHAPE)
    assert predraw.take(SHAPE, 0) is None and predraw.take_check(SHAPE) is None


def test_a_check_of_the_timed_set_draws_that_set_alone_with_its_reference():
    predraw.start(SHAPE, check=0)
    assert predraw.take_check(SHAPE) is None  # no set of its own
    assert predraw.take_reference(SHAPE, CHECK_STREAM) is None  # not that check's
    timed, expected = predraw.take(SHAPE, 0), predraw.take_reference(SHAPE, 0)
    assert timed is not None and expected is not None
    assert np.array_equal(expected, reference(*make_inputs(*SHAPE, stream=0)))
    assert predraw.take_reference(SHAPE, 0) is None  # taken once


def test_wait_and_drop_end_the_thread_and_forget_what_was_not_taken():
    predraw.start(SHAPE)
    predraw.wait()
    assert not any(t.name == "matvec-predraw" for t in threading.enumerate())
    predraw.drop()
    assert predraw.take(SHAPE, 0) is None  # nothing held after the run

"""What a kept peer process holds (`peers/kept.py`): the last problem's inputs, reused only by a
request of the same problem, only in a process that keeps and only while they are small; the
old set is let go before another is drawn."""

from __future__ import annotations

import gc
import weakref

import numpy as np

from engine.execution.peers.kept import Kept
from engine.harness.variant import PlacedInputs


def inputs(value: float) -> PlacedInputs:
    a, x = np.full((2, 3, 3), value), np.ones((2, 3))
    return PlacedInputs([(a, x)], (a, x), np.zeros((2, 3)), 0.0)


def test_a_keeping_process_reuses_the_same_problems_inputs_and_says_so():
    kept, made = Kept(), []
    kept.keeping = True

    def make() -> PlacedInputs:
        made.append(inputs(len(made)))
        return made[-1]

    first, reused_first = kept.placed(("jax", 30), make, lambda: True)
    second, reused_second = kept.placed(("jax", 30), make, lambda: True)
    assert (reused_first, reused_second) == (False, True)
    assert second is first and len(made) == 1
    other, reused_other = kept.placed(("jax", 40), make, lambda: True)
    assert not reused_other and other is not first and len(made) == 2
    _, reused_again = kept.placed(("jax", 30), make, lambda: True)  # one set at a time
    assert not reused_again and len(made) == 3


def test_nothing_is_kept_by_a_one_shot_process_or_when_the_inputs_are_large():
    one_shot = Kept()
    for _ in range(2):
        _, reused = one_shot.placed("key", lambda: inputs(1.0), lambda: True)
        assert not reused
    assert one_shot.inputs is None
    large = Kept()
    large.keeping = True
    for _ in range(2):
        _, reused = large.placed("key", lambda: inputs(1.0), lambda: False)
        assert not reused
    assert large.inputs is None


def test_the_kept_set_is_let_go_before_another_is_drawn():
    kept = Kept()
    kept.keeping = True
    kept.placed("small", lambda: inputs(1.0), lambda: True)
    held = weakref.ref(kept.inputs.check[0])  # type: ignore[union-attr]
    seen_while_drawing = []

    def make() -> PlacedInputs:
        gc.collect()
        seen_while_drawing.append(held() is None)
        return inputs(2.0)

    kept.placed("other", make, lambda: True)
    assert seen_while_drawing == [True]


def test_a_peer_checks_the_catalogues_strategies_on_the_first_timed_set_and_a_kernel_on_its_own():
    from engine.backends.numpy.runtime import NumpyRuntime
    from engine.execution.peers.inputs import place_inputs
    from engine.measure.correctness import CHECK_STREAM, make_inputs, reference
    from engine.run_settings.config import BenchConfig

    config = BenchConfig(matrices=20, dim=4, cols=3, seed=5)
    shape = (20, 4, 3, "float32", 5)
    catalogue = place_inputs(NumpyRuntime("float32", threads=1), config, copies=2)
    assert catalogue.check is catalogue.timed[0]
    assert np.array_equal(catalogue.reference, reference(*make_inputs(*shape, stream=0)))
    kernel = place_inputs(NumpyRuntime("float32", threads=1), config, copies=2, keep_host=True)
    assert kernel.check is not kernel.timed[0]
    assert np.array_equal(kernel.check[0], make_inputs(*shape, stream=CHECK_STREAM)[0])
    assert np.array_equal(kernel.reference, reference(*make_inputs(*shape, stream=CHECK_STREAM)))

"""Every strategy on real TensorFlow: correct on many shapes, every dtype, with and without XLA."""

import numpy as np
import pytest
import tensorflow as tf

from engine.backends.tensorflow.build import build_kernel
from engine.backends.tensorflow.context import to_host
from engine.backends.tensorflow.errors import classify
from engine.catalogue.catalog import kernel_source, strategy_info, strategy_names
from engine.measure.correctness import check, fill, make_inputs, poisoned_output, reference

# The peers (JAX, PyTorch) run in processes of their own: tests/engine/execution/test_peers.py.
TF_AND_NUMPY = tuple(n for n in strategy_names() if not strategy_info(n).in_own_process)
SHAPES = [(5, 3, 3), (7, 4, 9), (1, 6, 6), (9, 1, 1), (4, 1, 5), (3, 8, 1), (300, 2, 2)]


def run_strategy(name, shape, dtype="float32", xla=False, dataset_batch=4):
    matrices, rows, cols = shape
    a, x = make_inputs(matrices, rows, cols, dtype, seed=11, stream=5)
    fn = build_kernel(name, xla=xla, dataset_batch=dataset_batch)
    args = (a, x) if strategy_info(name).runs_on_host else (tf.constant(a), tf.constant(x))
    storage = strategy_info(name).storage  # reduced precision: float32 inputs narrowed
    if storage:
        args = tuple(tf.cast(t, storage) for t in args)
    out = poisoned_output(matrices, rows)
    assert fill(out, to_host(fn(*args))) is None
    return check(out, reference(a, x), storage or dtype, cols)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", TF_AND_NUMPY)
def test_every_strategy_is_correct_on_every_shape(name, shape):
    result = run_strategy(name, shape)
    assert result.correct, result.message


@pytest.mark.parametrize("name", [n for n in strategy_names() if strategy_info(n).supports_xla])
def test_every_xla_variant_is_correct(name):
    assert run_strategy(name, (6, 5, 3), xla=True).correct


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
@pytest.mark.parametrize("name", [n for n in TF_AND_NUMPY if not strategy_info(n).storage])
def test_every_dtype_is_correct_or_clearly_unsupported(name, dtype):
    try:
        result = run_strategy(name, (6, 5, 7), dtype=dtype)
    except Exception as error:  # a dtype a device lacks must classify as unsupported
        assert classify(error) == "unsupported", error
    else:
        assert result.correct, result.message


def test_non_graph_strategies_have_no_xla_variant():
    with pytest.raises(ValueError, match="no \\+xla variant"):
        build_kernel("python_loop", xla=True)


def test_dataset_batch_not_dividing_b_still_covers_every_matrix():
    assert run_strategy("dataset", (10, 3, 3), dataset_batch=3).correct


@pytest.mark.parametrize("name", strategy_names())
def test_kernel_source_is_the_real_function(name):
    source = kernel_source(name)
    function = strategy_info(name).kernel.partition(":")[2]  # compiled points share a kernel
    assert source.startswith(f"def {function}(")
    assert kernel_source(f"{name}+xla") == source


def test_while_loop_keeps_every_result_not_only_the_last():
    a, x = make_inputs(4, 3, 3, "float32", seed=0, stream=0)
    y = build_kernel("while_loop")(tf.constant(a), tf.constant(x)).numpy()
    assert y.shape == (4, 3)
    assert np.allclose(y, reference(a, x), atol=1e-5)

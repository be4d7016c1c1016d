"""Inputs on TensorFlow's CPU are the drawn arrays themselves, not copies, where TensorFlow can
read them in place; everywhere else (a sliced array, a device other than the first CPU) they
are copied, as before. Real TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

from engine.backends.tensorflow.loader import tf
from engine.backends.tensorflow.placement import in_place, place
from engine.measure.correctness import ALIGN_BYTES, aligned_empty, make_inputs


class Exported:
    """A tensor's DLPack capsule, for NumPy to see which memory the tensor reads."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, stream=None, **_options):
        return tf.experimental.dlpack.to_dlpack(self.tensor)

    def __dlpack_device__(self):
        return (1, 0)  # the host's CPU


def address(tensor) -> int:
    return np.from_dlpack(Exported(tensor)).ctypes.data


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [((3, 5, 7), np.float32), ((1,), np.float16), ((2, 3), np.float64), ((100, 33), np.uint8)],
)
def test_an_aligned_array_starts_on_the_boundary_and_holds_its_shape(shape, dtype):
    array = aligned_empty(shape, dtype)
    assert array.ctypes.data % ALIGN_BYTES == 0
    assert array.shape == shape and array.dtype == dtype and array.flags.c_contiguous


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_the_drawn_inputs_become_cpu_tensors_over_their_own_memory(dtype):
    host = make_inputs(7, 5, 3, dtype, seed=2, stream=0)
    a, x = place(host, "/CPU:0")
    assert address(a) == host[0].ctypes.data and address(x) == host[1].ctypes.data
    assert np.array_equal(a.numpy(), host[0]) and np.array_equal(x.numpy(), host[1])
    found = tf.einsum("bij,bj->bi", a, x).numpy().astype(np.float64)
    expected = np.einsum("bij,bj->bi", host[0].astype(np.float64), host[1].astype(np.float64))
    assert np.allclose(found, expected, rtol=1e-2, atol=1e-2)


def test_an_array_tensorflow_cannot_read_in_place_is_copied():
    """An array one element past the alignment TensorFlow's kernels check (a tensor over it
    would abort the process), a strided one (not contiguous) and a bfloat16 one (a dtype
    NumPy's DLPack does not carry) are copied, with their values."""
    a, x = make_inputs(6, 4, 4, "float32", seed=1, stream=0)
    off_boundary, strided = a.reshape(-1)[1:], a[:, ::2]
    assert off_boundary.ctypes.data % ALIGN_BYTES and in_place(off_boundary, "/CPU:0") is None
    assert in_place(strided, "/CPU:0") is None
    placed, _ = place((off_boundary, x), "/CPU:0")
    assert address(placed) != off_boundary.ctypes.data
    assert np.array_equal(placed.numpy(), off_boundary)
    brain = make_inputs(3, 2, 2, "bfloat16", seed=1, stream=0)
    assert in_place(brain[0], "/CPU:0") is None
    assert np.array_equal(place(brain, "/CPU:0")[0].numpy(), brain[0])


@pytest.mark.parametrize("device", ["/GPU:0", "/TPU:0", "/CPU:1"])
def test_only_the_first_cpu_takes_the_arrays_in_place(device):
    """A GPU's or TPU's tensor lives in its own memory, and a replicated run's logical CPU
    would copy a tensor of the first CPU inside its timed calls: those are always copied."""
    array = make_inputs(2, 2, 2, "float32", seed=0, stream=0)[0]
    assert in_place(array, device) is None

"""Inputs made once, placed on the device once, outside every timed region.

Host->device transfer is timed here, on its own, so no strategy's number silently includes it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.backends.tensorflow.loader import tf
from engine.backends.tensorflow.sync import sync_all
from engine.catalogue.catalog import strategy_info
from engine.measure import predraw
from engine.measure.correctness import (
    ALIGN_BYTES,
    CHECK_STREAM,
    check_stream,
    make_inputs,
    reference,
)
from engine.run_settings.config import BenchConfig


@dataclass
class Inputs:
    timed: list[tuple[Any, Any]]  # device tensors, one (A, x) per cold-cache copy
    host_timed: list[tuple[np.ndarray, np.ndarray]]  # same values on the host (for numpy)
    check_host: tuple[np.ndarray, np.ndarray]
    check_device: tuple[Any, Any]
    reference: np.ndarray  # float64 (B, m) for the check inputs
    transfer_s: float  # host->device time for one (A, x) set
    check_shared: bool = False  # the check reads the first timed set (no set of its own)

    @property
    def held_bytes(self) -> int:
        """What these inputs hold: device sets (timed and check), host sets, the reference."""
        per_set = self.check_host[0].nbytes + self.check_host[1].nbytes
        sets = len(self.timed) + len(self.host_timed) + (0 if self.check_shared else 2)
        return per_set * sets + self.reference.nbytes


def place(host: tuple[np.ndarray, np.ndarray], device: str) -> tuple[Any, Any]:
    """The inputs as tensors on `device`: on a CPU the drawn arrays themselves where TensorFlow
    can read them in place (`in_place`), else copies."""
    with tf.device(device):
        a, x = (placed(array, device) for array in host)
    sync_all()
    return a, x


def placed(array: np.ndarray, device: str) -> Any:
    """`array` in place where it can be, else copied onto the device of the enclosing scope."""
    found = in_place(array, device)
    return tf.identity(tf.convert_to_tensor(array)) if found is None else found


def in_place(array: np.ndarray, device: str) -> Any | None:
    """`array` as a tensor over its own memory (DLPack), when `device` is the CPU that tensor
    lands on and the array is C-contiguous and aligned as TensorFlow's kernels require; None
    otherwise (a GPU, a logical CPU of a replicated run, a sliced or read-only array, a dtype
    DLPack does not carry). Copying a sweep's largest input set into fresh memory instead took
    most of that point's time (docs/timing.md, "Figures behind the code"): the pages are
    touched once, by the draw."""
    if not first_cpu(device) or not array.flags.c_contiguous or array.ctypes.data % ALIGN_BYTES:
        return None
    try:
        tensor = tf.experimental.dlpack.from_dlpack(array.__dlpack__())
    except (BufferError, TypeError, ValueError, tf.errors.OpError):
        return None
    return tensor if first_cpu(tensor.device) else None


def first_cpu(device: str) -> bool:
    """Whether `device` names the first (or only) CPU."""
    spec = tf.DeviceSpec.from_string(device)
    return spec.device_type == "CPU" and (spec.device_index or 0) == 0


def keeps_host_inputs(config: BenchConfig) -> bool:
    """Whether a strategy of `config` reads the inputs on the host (NumPy's): then the host
    copies are kept beside the device ones."""
    return any(strategy_info(name).runs_on_host for name in config.strategies)


def prepare(config: BenchConfig, device: str, copies: int, keep_host: bool) -> Inputs:
    """The timed sets (`copies` of them) on `device`, and the check's: the first timed set
    itself for the catalogue's strategies, a fresh set where a user's kernel is in the run
    (`correctness.check_stream`)."""
    shape = predraw.shape_of(config)
    check = check_stream(bool(config.kernels))
    timed: list[tuple[Any, Any]] = []
    host_timed: list[tuple[np.ndarray, np.ndarray]] = []
    transfer_s = 0.0
    first_host: tuple[np.ndarray, np.ndarray] | None = None
    for stream in range(copies):
        host = predraw.take(shape, stream) or make_inputs(*shape, stream=stream)
        start = time.perf_counter()
        timed.append(place(host, device))
        if stream == 0:
            transfer_s, first_host = time.perf_counter() - start, host
        if keep_host:
            host_timed.append(host)
    if check == 0 and first_host is not None:
        check_host, check_device = first_host, timed[0]
        expected = predraw.take_reference(shape, 0)
    else:
        early = predraw.take_check(shape)
        check_host = early[0] if early else make_inputs(*shape, stream=CHECK_STREAM)
        check_device, expected = place(check_host, device), early[1] if early else None
    return Inputs(
        timed=timed,
        host_timed=host_timed,
        check_host=check_host,
        check_device=check_device,
        reference=reference(*check_host) if expected is None else expected,
        transfer_s=transfer_s,
        check_shared=check_device is timed[0],
    )

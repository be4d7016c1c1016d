"""Peak memory bandwidth, measured on the run's own device in the same run.

Matvec reads each matrix element once and does two FLOPs with it, so it is memory-bound on
every device: the honest ceiling is the read bandwidth this device actually reaches, measured by
a streaming reduction over a buffer several times larger than the last-level cache.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from engine.memory import bandwidth_buffer_bytes
from engine.timing import Kernel, time_kernel

PROBE_WARMUP = 2
PROBE_REPEATS = 15
PROBE_BUDGET_S = 20.0


_SYNC_DEVICES = {"supported": True}


def sync_all(output: Any = None) -> None:
    """Block until all queued device work is done; `output` is read back where that is the
    only way (a multi-worker eager context has no SyncDevice op)."""
    if _SYNC_DEVICES["supported"]:
        try:
            tf.test.experimental.sync_devices()
            return
        except tf.errors.InternalError:
            _SYNC_DEVICES["supported"] = False
    if output is not None:
        tf.nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, output)


def measure_peak(device: str, llc_bytes: int) -> dict[str, Any]:
    """Read bandwidth of `tf.reduce_sum` over a float32 buffer resident on `device`."""
    size_bytes = bandwidth_buffer_bytes(llc_bytes)
    elements = size_bytes // 4
    with tf.device(device):
        buffer = tf.random.uniform((elements,), dtype=tf.float32)
        reduce = tf.function(tf.reduce_sum)
        timing = time_kernel(
            Kernel(call=lambda _: reduce(buffer), sync=sync_all),
            warmup=PROBE_WARMUP,
            repeats=PROBE_REPEATS,
            budget_s=PROBE_BUDGET_S,
        )
    median_s = timing.measurement.median_s
    return {
        "bandwidth_bytes_per_s": elements * 4 / median_s,
        "method": (
            f"median of {len(timing.measurement.samples_s)} synchronised tf.reduce_sum calls "
            f"over a {size_bytes / 2**20:.0f} MiB float32 buffer on {device} "
            f"(>= {size_bytes / max(1, llc_bytes):.1f}x the last-level cache): read bandwidth"
        ),
        "device": device,
        "buffer_bytes": elements * 4,
        "samples_s": list(timing.measurement.samples_s),
        "calls_per_sample": timing.measurement.calls_per_sample,
        "iqr_s": timing.measurement.iqr_s,
    }

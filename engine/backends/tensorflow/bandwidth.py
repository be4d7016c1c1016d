"""Peak memory bandwidth, measured on the run's own device in the same run.

Matvec reads each matrix element once and does two FLOPs with it, so it is memory-bound on
every device: the honest ceiling is the read bandwidth this device actually reaches, measured
by streaming reductions over a buffer several times larger than the last-level cache. Two
kernels (a flat sum and matvec-shaped row sums) are probed, before and after the strategies,
and the best median is the peak: on a shared, noisy machine a single probe can catch a slow
moment and flatter every roofline fraction.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from engine.backends.tensorflow.sync import sync_all
from engine.measure.memory import bandwidth_buffer_bytes
from engine.measure.timing import Kernel, time_kernel
from engine.results.model import Peak, Probe

PROBE_WARMUP = 2
PROBE_REPEATS = 15
PROBE_BUDGET_S = 10.0
ROW_LENGTH = 128  # row sums over (N, 128): the access pattern of a batched matvec


def _probe(name: str, fn: Any, buffer: tf.Tensor, when: str) -> Probe:
    timing = time_kernel(
        Kernel(call=lambda _i: fn(buffer), sync=sync_all),
        warmup=PROBE_WARMUP,
        repeats=PROBE_REPEATS,
        budget_s=PROBE_BUDGET_S,
    )
    size = int(buffer.shape.num_elements()) * 4
    return Probe(
        kernel=name,
        when=when,
        bandwidth_bytes_per_s=size / timing.measurement.median_s,
        samples_s=timing.measurement.samples_s,
        calls_per_sample=timing.measurement.calls_per_sample,
        extra={"method": "tensorflow"},
    )


def measure_probes(device: str, llc_bytes: int, when: str) -> list[Probe]:
    """Both read probes once, on `device`, over a float32 buffer >= 4x the last-level cache."""
    elements = bandwidth_buffer_bytes(llc_bytes) // 4 // ROW_LENGTH * ROW_LENGTH
    with tf.device(device):
        buffer = tf.random.uniform((elements,), dtype=tf.float32)
        rows = tf.reshape(buffer, (-1, ROW_LENGTH))
        return [
            _probe("tf.reduce_sum (flat)", tf.function(tf.reduce_sum), buffer, when),
            _probe(
                f"tf.reduce_sum(axis=-1) over (N, {ROW_LENGTH}) rows",
                tf.function(lambda t: tf.reduce_sum(t, axis=-1)),
                rows,
                when,
            ),
        ]


def peak_from(probes: list[Probe], device: str, llc_bytes: int) -> Peak:
    """The results JSON `peak` object: the best probe median, with every probe kept."""
    best = max(probes, key=lambda p: p.bandwidth_bytes_per_s)
    size = bandwidth_buffer_bytes(llc_bytes)
    return Peak(
        bandwidth_bytes_per_s=best.bandwidth_bytes_per_s,
        method=(
            f"best median of {len(probes)} synchronised read probes ({best.kernel} was "
            f"best, {best.when} the strategies) over a {size / 2**20:.0f} MiB float32 "
            f"buffer on {device}, {size / max(1, llc_bytes):.1f}x the last-level cache"
        ),
        device=device,
        buffer_bytes=size,
        probes=tuple(probes),
    )


def measure_peak(device: str, llc_bytes: int) -> Peak:
    """One round of probes (used alone by callers that measure once)."""
    return peak_from(measure_probes(device, llc_bytes, "before"), device, llc_bytes)

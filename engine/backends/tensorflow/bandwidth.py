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
from engine.measure.host_bandwidth import METHOD as HOST_METHOD
from engine.measure.host_bandwidth import measure_host_read
from engine.measure.memory import bandwidth_buffer_bytes
from engine.measure.timing import Kernel, time_kernel
from engine.results.parts import Peak, Probe

PROBE_WARMUP = 2
PROBE_REPEATS = 15
PROBE_BUDGET_S = 10.0
FRAMEWORK_SHORTFALL = 0.90  # warn when TensorFlow reads this much slower than the host probe
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


def host_probe(device_kind: str, llc_bytes: int, when: str) -> list[Probe]:
    """The independent probe (NumPy, no TensorFlow): on a CPU device it reads the same memory."""
    if device_kind != "CPU":
        return []  # host RAM is not the device's memory: no like-for-like ceiling
    found = measure_host_read(bandwidth_buffer_bytes(llc_bytes))
    return [
        Probe(
            kernel=found.kernel,
            when=when,
            bandwidth_bytes_per_s=found.bandwidth_bytes_per_s,
            samples_s=found.samples_s,
            calls_per_sample=found.calls_per_sample,
            extra={"method": HOST_METHOD, "threads": found.threads},
        )
    ]


def peak_from(probes: list[Probe], device: str, llc_bytes: int) -> Peak:
    """The results JSON `peak` object: the best probe median, with every probe kept."""
    best = max(probes, key=lambda p: p.bandwidth_bytes_per_s)
    size = bandwidth_buffer_bytes(llc_bytes)
    methods = sorted({str(p.extra.get("method", "tensorflow")) for p in probes})
    return Peak(
        bandwidth_bytes_per_s=best.bandwidth_bytes_per_s,
        method=(
            f"best median of {len(probes)} synchronised read probes ({', '.join(methods)}; "
            f"{best.kernel} was best, {best.when} the strategies) over a "
            f"{size / 2**20:.0f} MiB float32 buffer on {device}, "
            f"{size / max(1, llc_bytes):.1f}x the last-level cache"
        ),
        device=device,
        buffer_bytes=size,
        probes=tuple(probes),
    )


def measure_peak(device: str, device_kind: str, llc_bytes: int) -> Peak:
    """One round of probes (used alone by callers that measure once)."""
    probes = measure_probes(device, llc_bytes, "before") + host_probe(
        device_kind, llc_bytes, "before"
    )
    return peak_from(probes, device, llc_bytes)


def ceiling_warning(peak: Peak) -> str | None:
    """Said when TensorFlow's own best read is well under the independent ceiling."""
    tf_best = max(
        (p.bandwidth_bytes_per_s for p in peak.probes if p.extra.get("method") == "tensorflow"),
        default=None,
    )
    best = peak.bandwidth_bytes_per_s
    if tf_best is None or not best or tf_best >= FRAMEWORK_SHORTFALL * best:
        return None
    return (
        f"TensorFlow's best read probe reached {tf_best / 1e9:.1f} GB/s, {tf_best / best:.0%} "
        f"of the {best / 1e9:.1f} GB/s measured without it: the roofline uses the higher one"
    )

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

from engine.backends.tensorflow.loader import tf
from engine.backends.tensorflow.sync import sync_all
from engine.measure.host_bandwidth import (
    FULL,
    PROBE_MIN_BLOCK_S,
    ProbeEffort,
    host_buffer,
    host_probe,
)
from engine.measure.memory import bandwidth_buffer_bytes
from engine.measure.peak import Peak, Probe
from engine.measure.timing import Kernel, time_kernel

FRAMEWORK_SHORTFALL = 0.90  # warn when TensorFlow reads this much slower than the host probe
ROW_LENGTH = 128  # row sums over (N, 128): the access pattern of a batched matvec
ROWS_KERNEL = f"tf.reduce_sum(axis=-1) over (N, {ROW_LENGTH}) rows"
HOST_KERNEL = "numpy"


class ProbeBuffers:
    """The probe buffers and traced probe functions, made once per process and reused by every
    round (before and after, and every later run of a warm worker)."""

    def __init__(self, device: str, device_kind: str, llc_bytes: int) -> None:
        self.device, self.device_kind, self.llc_bytes = device, device_kind, llc_bytes
        self.buffer_bytes = bandwidth_buffer_bytes(llc_bytes)
        elements = self.buffer_bytes // 4 // ROW_LENGTH * ROW_LENGTH
        with tf.device(device):
            # Ones, not random numbers: a reduction reads any value at the same speed, and
            # drawing 256 MiB of them took 0.25 s of every fresh run against 0.1 s.
            self.flat = tf.ones((elements,), dtype=tf.float32)
            self.rows = tf.reshape(self.flat, (-1, ROW_LENGTH))
        self.flat_sum = tf.function(tf.reduce_sum)
        self.row_sums = tf.function(lambda t: tf.reduce_sum(t, axis=-1))
        self.host = host_buffer(self.buffer_bytes) if device_kind == "CPU" else None
        self.rounds = 0
        self.best: str | None = None  # the fastest kernel of the first full round

    def matches(self, device: str, device_kind: str, llc_bytes: int) -> bool:
        return (self.device, self.device_kind, self.llc_bytes) == (device, device_kind, llc_bytes)

    @property
    def held_bytes(self) -> int:
        return self.buffer_bytes * (2 if self.host is not None else 1)


def _probe(name: str, fn: Any, buffer: tf.Tensor, when: str, effort: ProbeEffort) -> Probe:
    timing = time_kernel(
        Kernel(call=lambda _i: fn(buffer), sync=sync_all),
        warmup=effort.warmup,
        repeats=effort.repeats,
        budget_s=effort.budget_s,
        min_block_s=PROBE_MIN_BLOCK_S,
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


def probe_round(buffers: ProbeBuffers, when: str, effort: ProbeEffort = FULL) -> list[Probe]:
    """A round of read probes over the same buffers: the full round times both TensorFlow
    kernels and (on a CPU device) the NumPy one; a short round, once a full one has run in
    this process, times only the kernel that read fastest then."""
    kernels: dict[str, Any] = {
        "tf.reduce_sum (flat)": lambda: _probe(
            "tf.reduce_sum (flat)", buffers.flat_sum, buffers.flat, when, effort
        ),
        ROWS_KERNEL: lambda: _probe(ROWS_KERNEL, buffers.row_sums, buffers.rows, when, effort),
    }
    if buffers.host is not None:
        kernels[HOST_KERNEL] = lambda: host_probe(buffers.host, when, effort)[0]
    chosen = list(kernels)
    if effort != FULL and buffers.best in kernels:
        chosen = [buffers.best]
    with tf.device(buffers.device):
        probes = [kernels[name]() for name in chosen]
    if buffers.best is None and effort == FULL:
        buffers.best = chosen[
            max(range(len(probes)), key=lambda i: probes[i].bandwidth_bytes_per_s)
        ]
    buffers.rounds += 1
    return probes


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

"""A ceiling per cache level: NumPy's threaded read, over a buffer sized to fit each level.

The memory probe reads a buffer several times the last-level cache; a warm working set that
fits a cache is read from that cache, faster, and its fraction of memory's ceiling says
nothing (the cache-aware roofline: Ilic, Pratas and Sousa, IEEE CAL 2014). So each level the
OS reports gets a probe of its own, with the memory probe's kernel (`host_bandwidth`): one
thread per core, each taking `np.max` over its slice. A small slice read once per call would
time NumPy's call overhead, not the cache, so each call reads its slice many times over
through a view whose rows all alias it (stride 0): one call, one release of the GIL, at
least `READ_PER_CALL_BYTES` read.

A level is kept only where its probe beats the level above it (a VM may report a cache its
guests do not see): otherwise it is dropped, with a note, and never used as a ceiling.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np
from numpy.lib.stride_tricks import as_strided

from engine.machine.caches import CacheLevel, unprobed_note
from engine.measure.host_bandwidth import FULL, METHOD, WARM, ProbeEffort, threads_for_host
from engine.measure.memory import format_bytes
from engine.measure.peak import LevelCeiling, Peak, Probe
from engine.measure.timing import Kernel, time_kernel

READ_PER_CALL_BYTES = 16 * 2**20  # per thread: a call reads its slice this much, at least
LEVEL_MIN_BLOCK_S = 0.002  # calls take ~0.1 ms; 2 ms blocks keep the clock's cost under 0.1%
# A level's probe buffer: half its capacity, so the run's other data does not evict it; and
# for a level above another, at least twice the one below, so it does not read that one.
FILL_FRACTION = 0.5
ABOVE_LOWER_MULTIPLE = 2
LARGER_LEVEL_FRACTION = 0.25  # ... and a quarter of its own capacity where that is more


def probe_bytes(levels: tuple[CacheLevel, ...]) -> list[int]:
    """The buffer each level's probe reads (smallest level first)."""
    sizes = []
    below = 0
    for level in levels:
        wanted = max(ABOVE_LOWER_MULTIPLE * below, int(LARGER_LEVEL_FRACTION * level.bytes))
        size = min(int(FILL_FRACTION * level.bytes), wanted) if below else level.bytes // 2
        sizes.append(size)
        below = level.bytes
    return sizes


@dataclass
class LevelBuffers:
    """Each level's buffer and its repeated views, one per thread, made once and reused."""

    levels: tuple[CacheLevel, ...]
    threads: int
    views: list[list[np.ndarray]]
    sizes: list[int]

    @classmethod
    def make(cls, levels: tuple[CacheLevel, ...], threads: int | None = None) -> LevelBuffers:
        workers = threads or threads_for_host()
        views, sizes = [], []
        for size in probe_bytes(levels):
            per_thread = max(1, size // 4 // workers)
            buffer = np.ones(per_thread * workers, dtype=np.float32)
            rows = max(1, READ_PER_CALL_BYTES // (per_thread * 4))
            views.append(
                [
                    as_strided(part, shape=(rows, per_thread), strides=(0, 4), writeable=False)
                    for part in np.split(buffer, workers)
                ]
            )
            sizes.append(per_thread * workers * 4)
        return cls(levels, workers, views, sizes)


def probe_level(
    views: list[np.ndarray], pool: ThreadPoolExecutor, effort: ProbeEffort
) -> tuple[float, tuple[float, ...], int]:
    """Median read bandwidth of every thread's `np.max` over its repeated slice."""
    timing = time_kernel(
        Kernel(call=lambda _i: list(pool.map(np.max, views)), sync=lambda _out: None),
        warmup=effort.warmup,
        repeats=effort.repeats,
        budget_s=effort.budget_s,
        min_block_s=LEVEL_MIN_BLOCK_S,
    )
    read = sum(view.shape[0] * view.shape[1] * 4 for view in views)
    measured = timing.measurement
    return read / measured.median_s, measured.samples_s, measured.calls_per_sample


def probe_levels(buffers: LevelBuffers, when: str, effort: ProbeEffort = FULL) -> list[Probe]:
    """One probe per level, in level order, each tagged with its level."""
    probes = []
    with ThreadPoolExecutor(max_workers=buffers.threads) as pool:
        for level, views, size in zip(buffers.levels, buffers.views, buffers.sizes, strict=True):
            rate, samples, calls = probe_level(views, pool, effort)
            probes.append(
                Probe(
                    kernel=(
                        f"numpy.max over {buffers.threads} float32 slices of a "
                        f"{format_bytes(size)} buffer, {buffers.threads} threads"
                    ),
                    when=when,
                    bandwidth_bytes_per_s=rate,
                    samples_s=samples,
                    calls_per_sample=calls,
                    extra={"method": METHOD, "threads": buffers.threads, "level": level.name},
                )
            )
    return probes


def level_ceilings(
    levels: tuple[CacheLevel, ...], probes: list[Probe], memory_bytes_per_s: float | None
) -> tuple[tuple[LevelCeiling, ...], list[str]]:
    """Each level's ceiling (its best probe), smallest first, and a note for each level
    dropped because it read no faster than the level above it."""
    ceilings: list[LevelCeiling] = []
    for level in levels:
        own = tuple(p for p in probes if p.extra.get("level") == level.name)
        if own:
            best = max(p.bandwidth_bytes_per_s for p in own)
            ceilings.append(LevelCeiling(level.name, level.bytes, best, own))
    kept: list[LevelCeiling] = []
    notes = []
    above = memory_bytes_per_s or 0.0
    above_name = "memory"
    for ceiling in reversed(ceilings):  # from the largest level down
        rate = ceiling.bandwidth_bytes_per_s or 0.0
        if rate <= above:
            notes.append(
                f"the {ceiling.level} ceiling is not used: its probe read "
                f"{rate / 1e9:.1f} GB/s, no faster than {above_name} ({above / 1e9:.1f} GB/s), "
                "so this machine does not show that cache to the run"
            )
            continue
        kept.append(ceiling)
        above, above_name = rate, ceiling.level
    return tuple(reversed(kept)), notes


def unprobed_device(device_kind: str) -> str:
    """Why a run on an accelerator has memory's ceiling only."""
    if device_kind == "TPU":
        return "the TPU's on-chip memory is not probed"
    return f"the {device_kind}'s caches are not probed"


# A process's level buffers, made at its first run and kept: a warm worker's later runs reuse
# them (9 MiB here), and probe with the shorter effort, as its memory probe does.
_KEPT: dict[tuple[CacheLevel, ...], LevelBuffers] = {}


class LevelProber:
    """A run's cache-level probes: the levels found at its start (none, with the reason, off a
    CPU or where the OS reports no sizes), probed with the memory probe before and after the
    variants; `settle` puts the best of each beside memory's ceiling. The first round of a
    process is the full one; a warm process's rounds are the short one (`host_bandwidth.WARM`)."""

    def __init__(self, device_kind: str, levels: tuple[CacheLevel, ...], reason: str | None):
        self.levels = levels if device_kind == "CPU" else ()
        self.reason = reason if device_kind == "CPU" else unprobed_device(device_kind)
        self.probes: list[Probe] = []

    def probe(self, when: str) -> None:
        if not self.levels:
            return
        buffers = _KEPT.get(self.levels)
        effort = WARM if buffers is not None else FULL
        if buffers is None:
            _KEPT.clear()  # another topology (affinity changed): the old buffers go
            buffers = _KEPT[self.levels] = LevelBuffers.make(self.levels)
        self.probes += probe_levels(buffers, when, effort)

    def settle(self, peak: Peak) -> tuple[Peak, list[str]]:
        """`peak` with its levels, and the notes: levels dropped, or why there are none."""
        if not self.levels:
            return peak, [unprobed_note(self.reason)] if self.reason else []
        if not self.probes:
            return peak, []
        levels, notes = level_ceilings(self.levels, self.probes, peak.bandwidth_bytes_per_s)
        return replace(peak, levels=levels), notes

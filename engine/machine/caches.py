"""The CPU caches a run can use, as the OS reports them: the levels a ceiling is probed for.

Read from `/sys/devices/system/cpu/cpu*/cache/index*` for the CPUs this process may run on.
A level's capacity is the sum over its distinct instances among those CPUs (two cores with
1 MiB of L2 each give the run 2 MiB of L2; one L3 shared by both gives 32 MiB), because a
run's threads split its working set across them. Only levels 2 and up are kept, and of
those the L2 and the last level: L1 is too small for a read probe to time honestly.

Where the OS reports nothing usable (a container without sysfs, macOS, a size of 0 or over
1 TiB, unreadable files), there are no levels and the reason says so once; the run then
measures memory only, as before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

SYSFS_CPUS = Path("/sys/devices/system/cpu")
MAX_CACHE_BYTES = 2**40  # a reported size above 1 TiB is not a cache


@dataclass(frozen=True)
class CacheLevel:
    """One cache level the run's CPUs share out: `bytes` is its capacity across them."""

    name: str  # "L2", "L3"
    bytes: int
    instances: int


def run_cpus() -> list[int]:
    """The CPUs this process may run on (all of them where affinity is unknown)."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def parse_size(text: str) -> int | None:
    """'1024K' -> 1048576; None for anything that is not a size."""
    text = text.strip().upper()
    scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
    digits = text.rstrip("KMG")
    return int(digits) * scale if digits.isdigit() else None


def cache_levels(
    root: Path = SYSFS_CPUS, cpus: list[int] | None = None
) -> tuple[tuple[CacheLevel, ...], str | None]:
    """The run's L2 and last-level cache (smallest first), or none and why."""
    cpus = run_cpus() if cpus is None else cpus
    instances: dict[int, dict[str, int]] = {}  # level -> {shared cpu list: size}
    try:
        for cpu in cpus:
            for index in sorted((root / f"cpu{cpu}" / "cache").glob("index*")):
                if (index / "type").read_text().strip() == "Instruction":
                    continue
                level = int((index / "level").read_text().strip())
                size = parse_size((index / "size").read_text())
                if size is None or size <= 0 or size > MAX_CACHE_BYTES:
                    return (), f"the OS reports L{level} as {size or 0:,} bytes"
                shared = (index / "shared_cpu_list").read_text().strip() or str(cpu)
                instances.setdefault(level, {})[shared] = size
    except (OSError, ValueError) as error:
        return (), f"the cache sizes could not be read ({type(error).__name__})"
    found = sorted(level for level in instances if level >= 2)
    if not found:
        return (), "the OS reports no L2 or larger cache"
    kept = sorted({found[0], found[-1]})
    levels = tuple(
        CacheLevel(f"L{level}", sum(instances[level].values()), len(instances[level]))
        for level in kept
    )
    return levels, None


def unprobed_note(reason: str) -> str:
    """The run's one note when only memory's ceiling could be measured."""
    return (
        f"only memory's ceiling was measured: {reason}, so every variant is placed against "
        "memory, and a warm working set that fits a cache may read above it"
    )

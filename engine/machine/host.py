"""Host facts: CPU model, last-level cache size, memory a run may use on each device kind."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil

# Fallback when the OS does not report the last-level cache: big enough for today's server CPUs.
FALLBACK_LLC_BYTES = 512 * 2**20


def usable_cores() -> int:
    """The cores this process may run on (its affinity), else the machine's count."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def last_level_cache_bytes() -> tuple[int, str]:
    """Largest CPU cache the OS reports, and where the number came from."""
    best = 0
    for size_file in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size"):
        text = size_file.read_text().strip().upper()
        scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
        digits = text.rstrip("KMG")
        if digits.isdigit():
            best = max(best, int(digits) * scale)
    if best:
        return best, "sysfs"
    return FALLBACK_LLC_BYTES, "fallback (not reported by the OS)"


def available_bytes(device_kind: str) -> tuple[int | None, str]:
    """Memory the run may use on `device_kind`, and how it was found (None: unknown)."""
    if device_kind == "CPU":
        return int(psutil.virtual_memory().available), "available host RAM"
    if device_kind == "GPU" and shutil.which("nvidia-smi"):
        try:
            text = subprocess.run(
                ["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            ).stdout
            free_mib = min(int(line) for line in text.split() if line.strip().isdigit())
            return free_mib * 2**20, "nvidia-smi free memory of the smallest GPU"
        except (OSError, subprocess.SubprocessError, ValueError):
            pass
    return None, f"{device_kind} memory could not be read before TensorFlow starts"


def host_facts(llc_bytes: int, llc_source: str) -> dict[str, Any]:
    """The host part of a results `environment`, whichever framework ran: versions of NumPy
    and Python, the platform, the CPU and its cache."""
    import numpy as np

    return {
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "hostname": platform.node(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpu_affinity_count": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else None,
        "last_level_cache_bytes": llc_bytes,
        "last_level_cache_source": llc_source,
    }

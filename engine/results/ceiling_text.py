"""A result's ceiling in words, for the table and the CLI: the fraction of the level it read
from ("28% of L2"), and the run's ceilings in one line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.measure.peak import MEMORY, Peak


def ceiling_words(entry: Mapping[str, Any]) -> str:
    """A result's fraction of the ceiling of the level it read from, the level named: "28% of
    L2", "91% of memory"; a file without levels: of memory. "-" without a ceiling or a time."""
    level = entry.get("ceiling_level")
    fraction = entry.get("ceiling_fraction") if level else entry.get("roofline_fraction")
    if fraction is None or fraction != fraction:
        return "-"
    return f"{fraction:.0%} of {level or MEMORY}"


def ceilings_line(peak: Peak) -> str:
    """ "peak read bandwidth 35.8 GB/s (measured); caches: L2 132.2 GB/s, L3 118.0 GB/s"."""
    if not peak.bandwidth_bytes_per_s:
        return ""
    line = f"peak read bandwidth {peak.bandwidth_bytes_per_s / 1e9:.1f} GB/s (measured)"
    caches = [
        f"{level.level} {level.bandwidth_bytes_per_s / 1e9:.1f} GB/s"
        for level in peak.levels
        if level.bandwidth_bytes_per_s
    ]
    return f"{line}; caches: {', '.join(caches)}" if caches else line

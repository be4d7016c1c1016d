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
    """ "peak read bandwidth 35.8 GB/s (measured); caches: L2 132.2 GB/s, L3 118.0 GB/s"; a
    ceiling that is the session's best says this run's own figure beside it."""
    if not peak.bandwidth_bytes_per_s:
        return ""
    memory = "; ".join(["measured", *_own_words(peak.own_bytes_per_s)])
    line = f"peak read bandwidth {peak.bandwidth_bytes_per_s / 1e9:.1f} GB/s ({memory})"
    caches = [
        f"{level.level} {level.bandwidth_bytes_per_s / 1e9:.1f} GB/s"
        + "".join(f" ({words})" for words in _own_words(level.own_bytes_per_s))
        for level in peak.levels
        if level.bandwidth_bytes_per_s
    ]
    return f"{line}; caches: {', '.join(caches)}" if caches else line


def _own_words(own: float | None) -> list[str]:
    """Where a ceiling is the session's best (`analysis/session_ceiling.py`), this run's own."""
    if not own:
        return []
    return [f"this machine's best within the hour; this run's probes {own / 1e9:.1f}"]

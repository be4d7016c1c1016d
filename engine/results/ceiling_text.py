"""A result's ceiling in words, for the table and the CLI: the fraction of the level it read
from ("28% of L2"), and the run's ceilings in one line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.measure.peak import MEMORY, LevelCeiling, Peak


def ceiling_words(entry: Mapping[str, Any]) -> str:
    """A result's fraction of the ceiling of the level it read from, the level named: "28% of
    L2", "91% of memory"; a file without levels: of memory. "-" without a ceiling or a time."""
    level = entry.get("ceiling_level")
    fraction = entry.get("ceiling_fraction") if level else entry.get("roofline_fraction")
    if fraction is None or fraction != fraction:
        return "-"
    return f"{fraction:.0%} of {level or MEMORY}"


def ceilings_line(peak: Peak) -> str:
    """ "peak read bandwidth 35.8 GB/s; caches: L2 132.2 GB/s, L3 118.0 GB/s (each read by this
    run's own probes)"; a ceiling that is the machine's best within the hour says so, with
    this run's own figure beside it."""
    if not peak.bandwidth_bytes_per_s:
        return ""
    memory = peak.ceilings()[-1]
    levels = [level for level in peak.levels if level.bandwidth_bytes_per_s]
    mixed = any(level.own_bytes_per_s for level in (*levels, memory))

    def shown(level: LevelCeiling, name: str) -> str:
        words = f" ({level.source})" if mixed else ""
        return f"{name}{level.bandwidth_bytes_per_s / 1e9:.1f} GB/s{words}"

    line = shown(memory, "peak read bandwidth ")
    if levels:
        line += "; caches: " + ", ".join(shown(level, f"{level.level} ") for level in levels)
    if mixed:
        return line
    return f"{line} ({'each ' if levels else ''}read by {memory.source})"

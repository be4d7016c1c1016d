"""Human formatting, kept apart from the data (torch.utils.benchmark's select_unit idea)."""

from __future__ import annotations

import math

import pandas as pd

from engine.results import RunResult

TIME_UNITS: tuple[tuple[str, float], ...] = (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9))


def select_time_unit(seconds: float) -> tuple[str, float]:
    """The largest unit in which `seconds` is at least 1."""
    for unit, scale in TIME_UNITS:
        if seconds >= scale:
            return unit, scale
    return TIME_UNITS[-1]


def format_seconds(seconds: float | None, digits: int = 3) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    unit, scale = select_time_unit(abs(seconds))
    return f"{seconds / scale:.{digits}g} {unit}"


def format_number(value: float | None, fmt: str = ".3g") -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return format(value, fmt)


def summary_table(result: RunResult) -> str:
    """The CLI's readable table: one row per variant, failures and wrong results spelt out."""
    rows = []
    for entry in result.to_dict()["results"]:
        status = entry["status"]
        if status == "ok" and not entry["correct"]:
            status = "WRONG"
        roof = entry["roofline_fraction"]
        rows.append(
            {
                "strategy": entry["variant"],
                "median": format_seconds(entry["median_s"]),
                "IQR": format_seconds(entry["iqr_s"]),
                "GB/s": format_number(entry["gbytes_per_s"], ".1f"),
                "GFLOP/s": format_number(entry["gflops_per_s"], ".1f"),
                "roofline": "-" if roof is None else f"{roof:.0%}",
                "max rel err": format_number(entry["max_rel_error"], ".1e"),
                "status": status,
            }
        )
    table = pd.DataFrame(rows).to_string(index=False)
    notes = [
        f"  {entry['variant']}: {entry['error'] or '; '.join(entry['warnings'])}"
        for entry in result.to_dict()["results"]
        if entry["error"] or entry["warnings"]
    ]
    peak = result.peak.get("bandwidth_bytes_per_s")
    header = f"peak read bandwidth {peak / 1e9:.1f} GB/s (measured)" if peak else ""
    return "\n".join([header, table, *(["notes:", *notes] if notes else [])]).strip()

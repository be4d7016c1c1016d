"""A comparison between runs formatted as a table. No Streamlit here."""

from __future__ import annotations

import pandas as pd

from engine.results.formatting import format_interval, format_seconds


def ratio_text(ratio: float) -> str:
    """Two decimals, or two significant digits below 0.1: never "0.00"."""
    return f"{ratio:.2f}" if ratio >= 0.1 else f"{ratio:.2g}"


def comparison_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per strategy, one column per run: median [95% interval], and for the runs that
    are not the baseline the ratio [interval] and the verdict."""
    rows = []
    for variant, group in frame.groupby("variant", sort=False):
        row: dict[str, str] = {"strategy": variant}
        for _, item in group.iterrows():
            if item["status"] == "absent":  # no median to show: say so, once
                row[str(item["run"])] = "not in this run"
                continue
            cell = format_seconds(item["median_s"])  # "-" for a missing (NaN) median
            if isinstance(item["median_ci_s"], list):
                cell += f" [{format_interval(item['median_ci_s'])}]"
            if not item["baseline"] and isinstance(item["ratio_ci"], list):
                low, high = item["ratio_ci"]
                noisy = ", noisy" if item["noisy"] else ""
                noisy += ", busy machine" if item.get("note") else ""
                ratio = ratio_text(item["ratio"])
                cell += (
                    f" · {ratio}x the time [{ratio_text(low)}, {ratio_text(high)}]: "
                    f"{item['verdict']}{noisy}"
                )
            elif not item["baseline"]:
                cell += " · no ratio: it needs a timing on both sides"
            if item["status"] not in ("ok", "absent") or (
                item["status"] == "ok" and not item["correct"]
            ):
                cell += f" [{item['status'] if item['status'] != 'ok' else 'WRONG'}]"
            row[str(item["run"])] = cell
        rows.append(row)
    return pd.DataFrame(rows)


def comparison_notes(frame: pd.DataFrame) -> list[str]:
    """The distinct notes of a comparison (a busy machine widened or blocked a verdict)."""
    if "note" not in frame:
        return []
    return list(dict.fromkeys(note for note in frame["note"] if isinstance(note, str) and note))

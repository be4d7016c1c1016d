"""A comparison between runs formatted as a table. No Streamlit here."""

from __future__ import annotations

import pandas as pd

from engine.results.formatting import format_seconds


def comparison_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Side by side: one row per strategy, one median column per run, ratios and verdicts."""
    rows = []
    for variant, group in frame.groupby("variant", sort=False):
        row: dict[str, str] = {"strategy": variant}
        for _, item in group.iterrows():
            cell = format_seconds(item["median_s"])
            if not item["baseline"] and item["ratio_to_baseline"] == item["ratio_to_baseline"]:
                p = "" if item["p_value"] is None else f", p={item['p_value']:.2g}"
                noisy = ", noisy" if item["noisy"] else ""
                cell += f" ({item['ratio_to_baseline']:.2f}x, {item['verdict']}{p}{noisy})"
            if item["status"] not in ("ok", "absent") or (
                item["status"] == "ok" and not item["correct"]
            ):
                cell += f" [{item['status'] if item['status'] != 'ok' else 'WRONG'}]"
            row[str(item["run"])] = cell
        rows.append(row)
    return pd.DataFrame(rows)

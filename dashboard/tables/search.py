"""A search's points as a table: where each sits in the space, its time, its ratio to the best
and why it stopped. No Streamlit here."""

from __future__ import annotations

from typing import Any

import pandas as pd

from engine.results.formatting import format_seconds


def search_table(summary: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for point in summary["points"]:
        ratio = point.get("ratio_to_best")
        rows.append(
            {
                "point": point["point"],
                "framework": point.get("framework", ""),
                "expression": point.get("expression", ""),
                "compiler": point.get("compiler", ""),
                "chunks": point.get("chunks", 1),
                "threads": "1" if point.get("threads") == 1 else "all",
                "storage": point.get("storage") or "as asked",
                "median": format_seconds(point.get("median_s")),
                "× best": "-" if ratio is None else f"{ratio:.2f}",
                "stopped": point.get("stop_reason") or point.get("status", ""),
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    order = [float(r) if r not in ("-",) else float("inf") for r in frame["× best"]]
    return frame.assign(_order=order).sort_values("_order").drop(columns="_order")

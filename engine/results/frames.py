"""A run as pandas frames, for the dashboard's tables and the notebook: pandas is imported only
when a frame is asked for, so the engine's runs never need it. Built from the model's entries
alone: drawing a table computes no verdict."""

from __future__ import annotations

from typing import Any

from engine.results.codec import run_entries
from engine.results.model import RunRecord


def summary_frame(run: RunRecord) -> Any:
    """One row per strategy variant, with every contract field but the raw samples."""
    import pandas as pd

    rows = []
    for entry in run_entries(run):
        row = {k: v for k, v in entry.items() if k not in ("samples_s", "replicas")}
        row["warnings"] = "; ".join(entry["warnings"])
        row["notes"] = "; ".join(entry["notes"])
        rows.append(row)
    return pd.DataFrame(rows)


def samples_frame(run: RunRecord) -> Any:
    """Tidy: one row per timing sample (seconds per call), labelled with the run's config."""
    import pandas as pd

    config = run.config
    rows = [
        {
            "run_id": run.run_id,
            "label": config.label,
            "device_kind": run.environment.device_kind,
            "strategy": result.strategy,
            "variant": result.variant,
            "mode": result.mode,
            "dtype": config.dtype,
            "matrices": config.matrices,
            "dim": config.dim,
            "cols": config.columns,
            "cache": config.cache,
            "sample": index,
            "calls_per_sample": result.calls_per_sample,
            "seconds": seconds,
            "correct": result.correct,
            "accuracy_class": result.accuracy_class,
        }
        for result in run.results
        for index, seconds in enumerate(result.samples_s)
    ]
    return pd.DataFrame(rows)


def levels_frame(run: RunRecord) -> Any:
    """The run's ceilings, smallest level first, memory last (`bytes` NaN: no bound)."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "level": ceiling.level,
                "bytes": ceiling.bytes,
                "gbytes_per_s": (ceiling.bandwidth_bytes_per_s or 0) / 1e9 or None,
            }
            for ceiling in run.peak.ceilings()
            if ceiling.bandwidth_bytes_per_s
        ],
        columns=["level", "bytes", "gbytes_per_s"],
    )

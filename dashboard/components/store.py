"""The run history as the dashboard sees it: one History per server, cheap listings."""

from __future__ import annotations

import streamlit as st

from engine.analysis.compare import run_name
from engine.storage.history import History
from engine.storage.history_file import default_location


@st.cache_resource(show_spinner=False)
def _history_at(path: str) -> History:
    return History(path)


def history() -> History:
    """The store the CLI and the dashboard's workers write to (a file or a PostgreSQL URL)."""
    return _history_at(str(default_location()))


def run_choices(limit: int = 2000) -> dict[str, str]:
    """run_id -> a readable one-line description, newest first; it starts with the run's name
    as Compare's tables and reports name it (`run_name`)."""
    frame = history().list_runs().head(limit)
    return {
        row.run_id: (
            f"{run_name(row.label, row.hostname, row.device_kind, row.run_id)} · "
            + (f"{row.source} · " if row.source.startswith("reported") else "")
            + f"{row.created_at[:16].replace('T', ' ')} · "
            f"{row.matrices}×{row.dim}×{row.cols} {row.dtype} {row.mode}"
        )
        for row in frame.itertuples()
    }

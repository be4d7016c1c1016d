"""History page: every stored run (dashboard, CLI, imports); filter, open, delete, import."""

from __future__ import annotations

import datetime as dt

import streamlit as st

from dashboard.components.charts import chart
from dashboard.components.plain import plain
from dashboard.components.results import show_results
from dashboard.components.store import history
from dashboard.figures.history import series_figure
from engine.analysis.change_points import series_of, step_words
from engine.machine.words import counted
from engine.results.parse import parse_results
from engine.results.reader import ResultsRejected
from engine.storage.run_rows import DISPLAY_COLUMNS, RunFilter


def import_panel() -> None:
    with st.expander("Import a results JSON from another machine"):
        upload = st.file_uploader(
            "Results JSON (from `python -m engine run --json`)", type=["json"], key="upload"
        )
        if upload is not None and st.session_state.get("imported") != upload.file_id:
            st.session_state["imported"] = upload.file_id
            try:
                run = parse_results(upload.getvalue())
            except ResultsRejected as error:
                st.session_state["import_message"] = ("error", f"Not imported: {error}")
            else:
                stored = history().add_run(run, source="import")
                st.session_state["import_message"] = (
                    ("success", f"Imported run {run.run_id}.")
                    if stored
                    else ("info", f"Run {run.run_id} is already stored.")
                )
        kind, message = st.session_state.get("import_message", (None, ""))
        if kind:
            getattr(st, kind)(plain(message))


st.title("Run history")
st.caption(plain(f"Stored in {history().name}: runs from the dashboard, the CLI and imports."))
import_panel()

cols = st.columns([1, 2, 1, 1])
kinds = ["all", *history().device_kinds()]
device = cols[0].selectbox("Device", kinds, key="history_device")
label = cols[1].text_input("Label contains", key="history_label")
since = cols[2].date_input("From", value=None, key="history_since")
until = cols[3].date_input("Until", value=None, key="history_until")
frame = history().list_runs(
    RunFilter(
        device_kind=None if device == "all" else device,
        label_contains=label or None,
        since=since.isoformat() if isinstance(since, dt.date) else None,
        until=until.isoformat() if isinstance(until, dt.date) else None,
    )
)
st.write(f"{len(frame):,} run(s)")
view = frame[list(DISPLAY_COLUMNS)].assign(best_median_s=frame["best_median_s"] * 1e3)
selection = st.dataframe(
    view,
    hide_index=True,
    width="stretch",
    on_select="rerun",
    selection_mode="multi-row",
    key="history_table",
    column_config={
        "created_at": st.column_config.TextColumn("created (UTC)"),
        "device_kind": st.column_config.TextColumn("device"),
        "matrices": st.column_config.NumberColumn("B"),
        "dim": st.column_config.NumberColumn("m"),
        "cols": st.column_config.NumberColumn("n"),
        "best_variant": st.column_config.TextColumn(
            "fastest measured",
            help="the lowest median among the run's correct strategies; its page says "
            "whether others tie with it",
        ),
        "best_median_s": st.column_config.NumberColumn("its median (ms)", format="%.4g"),
        "run_id": st.column_config.TextColumn("run"),
    },
)
# The table's selection outlives a deletion: rows past the end of the new table are gone.
rows = selection.selection.rows if selection else []
chosen = [frame.iloc[i]["run_id"] for i in rows if 0 <= i < len(frame)]

actions = st.columns(3)
if actions[0].button("Open run", disabled=len(chosen) != 1, key="history_open"):
    st.session_state["history_opened"] = chosen[0]
if actions[1].button("Compare runs", disabled=len(chosen) < 2, key="history_compare"):
    st.session_state["compare_runs"] = chosen
    st.switch_page("views/compare.py")
if actions[2].button("Delete runs", disabled=not chosen, key="history_delete"):
    st.session_state["confirm_delete"] = chosen
pending = st.session_state.get("confirm_delete")
if pending:
    st.warning(f"Delete {counted(len(pending), 'run')} for good?")
    yes, no = st.columns(2)
    if yes.button("Yes, delete", key="delete_yes"):
        for run_id in pending:
            history().delete_run(run_id)
        st.session_state.pop("confirm_delete")
        st.session_state.pop("history_opened", None)
        st.rerun()
    if no.button("Keep them", key="delete_no"):
        st.session_state.pop("confirm_delete")
        st.rerun()


def over_time_panel(label: str) -> None:
    """Each machine's series of one problem and variant, its steps marked and explained
    (what `python -m engine history changes` prints); read on demand: it opens every run."""
    if not st.toggle("Changes over time", key="history_over_time"):
        return
    found = [s for s in series_of(history().all_runs(label_contains=label or None)) if s.run_ids]
    if not found:
        st.info("No correct, timed runs to draw over time yet.")
        return
    names = [
        f"{s.machine} · {s.problem} · {s.variant} ({counted(len(s.run_ids), 'run')}, "
        f"{len(s.steps)} step{'s' if len(s.steps) != 1 else ''})"
        for s in found
    ]
    chosen = st.selectbox("Series", names, key="history_series")
    series = found[names.index(chosen) if chosen in names else 0]
    chart(series_figure(series), "history_series_chart")
    if not series.steps:
        st.caption(plain(f"No step in {counted(len(series.run_ids), 'run')}."))
    for step in series.steps:
        st.caption(plain(step_words(step)))


over_time_panel(label)

opened = st.session_state.get("history_opened")
if opened:
    try:
        run = history().get_run(opened)
    except ResultsRejected as error:
        st.error(plain(f"That stored run cannot be shown: {error}"))
    else:
        if run is None:
            st.info("That run is no longer stored.")
        else:
            st.divider()
            show_results(run.to_json(), key="history")

"""Engine advice in the dashboard's own words: the engine speaks to the CLI ("a longer
--time-budget", "--repetitions 5", "use cache=cold"); on a page the same advice names the
control a user changes there. One table, applied wherever engine text reaches a page."""

from __future__ import annotations

from typing import Any

from engine.run_settings.config import field_setting

REPETITIONS = "Repetitions (fresh processes)"  # the Run page's control (views/run.py)


def _label(name: str) -> str:
    return field_setting(name).label


# Longest first: "--repetitions 5" before "--repetitions".
CLI_TO_CONTROLS: tuple[tuple[str, str], ...] = (
    ("a longer --time-budget", f"a longer {_label('time_budget_s')}"),
    ("a longer --search-budget", f"a longer {_label('search_budget_s')}"),
    ("--time-budget", _label("time_budget_s")),
    ("--repetitions 5", f"{REPETITIONS} at 5"),
    ("use --repetitions", f"use {REPETITIONS}"),
    ("--repetitions", REPETITIONS),
    ("use cache=cold", f"set {_label('cache')} to cold"),
    ("use cache=warm", f"set {_label('cache')} to warm"),
    ("cache=cold", f"{_label('cache')} cold"),
    ("cache=warm", f"{_label('cache')} warm"),
    (
        "run `python -m engine calibrate`",
        f"run this configuration with {REPETITIONS} at 5 on the Run page",
    ),
    (
        "more runs per side, alternated, narrow it",
        f"more runs per side narrow it ({REPETITIONS} on the Run page, each side's run in turn)",
    ),
    ("and its re-warms", "and the warm-up calls before each variant's turns"),
)


def in_page_words(text: Any) -> Any:
    """`text` with each CLI flag it advises replaced by the dashboard control's name (a cell
    with no text, None or NaN, as it is)."""
    if not isinstance(text, str):
        return text
    for flag, control in CLI_TO_CONTROLS:
        text = text.replace(flag, control)
    return text

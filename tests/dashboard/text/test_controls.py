"""Engine advice on a page names the dashboard's controls, never the CLI's flags."""

from __future__ import annotations

import re

import pytest

from dashboard.run_view import build
from dashboard.tables import run as run_tables
from dashboard.text.controls import in_page_words
from dashboard.text.explain import answer_for, comparison_method
from engine.analysis.ceiling import cache_note
from engine.measure.compare_floor import compare_default
from engine.results.formatting import tie_words
from engine.run_settings.config import field_setting
from tests.factories import make_run

FLAG = re.compile(r"--[a-z]|cache=(cold|warm)")


@pytest.mark.parametrize("reason", ["samples", "processes", "floor"])
def test_every_tie_reason_names_a_control(reason):
    words = tie_words({"ratio": 1.1, "ratio_ci": [0.9, 1.3], "tie_reason": reason}, 0.05)
    assert FLAG.search(words)  # the engine speaks to the CLI...
    shown = in_page_words(words)
    assert not FLAG.search(shown)  # ...the page to its own controls
    assert "Time budget per strategy (s)" in shown or "Repetitions (fresh processes) at 5" in shown


def test_the_cache_note_names_the_cache_control():
    shown = in_page_words(cache_note(4 * 2**20, 32 * 2**20))
    assert "set Cache to cold" in shown and not FLAG.search(shown)


def test_the_answer_and_the_table_notes_of_a_tie_speak_the_pages_words():
    run = make_run({"einsum": [0.0010, 0.0019, 0.0011, 0.0018], "numpy": [0.0012] * 4})
    run.results[0].warnings.append("its samples spread; use cache=cold or --repetitions 5")
    summary = run_tables.summary(run)
    table = run_tables.display_table(summary)
    assert not any(FLAG.search(note) for note in table["note"])
    winner = run.winner_dict()
    assert winner["ratios"]["einsum"]["tie_reason"] == "samples"  # a tie on spread samples
    answer = answer_for(run, summary.iloc[0], winner, None)
    assert "a longer Time budget per strategy (s) would narrow that" in answer
    assert not FLAG.search(answer)


# Said on a page, each names something a dashboard user has no control or word for.
JARGON = ("jit_compile=True", "PJRT_DEVICE", "ridge point", "re-warm", "python -m engine")


def test_the_run_pages_answer_and_took_line_speak_the_pages_words():
    run = make_run({"einsum": [0.002] * 6, "numpy": [0.003] * 6})
    run.timings = {"total_s": 5.0, "variants_s": 2.0, "timed_s": 1.0, "rewarm_s": 0.5}
    view = build(run)
    said = " ".join([view.answer, view.took or "", field_setting("xla").label])
    assert "warm-up calls before each variant's turns" in said
    for word in JARGON:
        assert word not in said, word


def test_the_compare_pages_way_out_of_a_wide_floor_is_a_control_on_a_page():
    said = comparison_method(compare_default(), 0.05)
    assert "Repetitions (fresh processes) at 5 on the Run page" in said
    assert "python -m engine" not in said

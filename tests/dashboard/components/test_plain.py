"""Text on a page renders as itself: user text plain, engine commands as code, never raw
backticks (an error box showed `pip install ...` with its backticks, the link's underline
running through the closing one)."""

from __future__ import annotations

from dashboard.components.plain import plain, with_code

HINT = "cupy is not installed here; e.g. `pip install cupy-cuda12x` (see https://cupy.dev)"


def test_a_command_in_engine_text_is_code_and_the_rest_plain():
    shown = with_code(HINT)
    assert "`pip install cupy-cuda12x`" in shown  # a code span: literal, no link in it
    assert shown.startswith("cupy is not installed here; e\\.g\\. ")
    assert "https\\:" in shown  # outside the span: escaped as plain text always was


def test_markup_outside_a_code_span_stays_plain():
    evil = "![x](http://127.0.0.1:9/x.png) and `rm -rf /`"
    shown = with_code(evil)
    assert shown.startswith("\\!\\[x\\]\\(http")  # no image is fetched
    assert shown.endswith("`rm -rf /`")


def test_unbalanced_backticks_leave_it_all_plain():
    assert with_code("a ` b") == plain("a ` b")
    assert with_code("no code here") == plain("no code here")

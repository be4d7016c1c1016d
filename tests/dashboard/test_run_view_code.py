"""The code a reader copies: the fastest measured's first, always; in a tie whose simplest
strategy is another, the simplest after it, with the words saying which is which."""

from __future__ import annotations

from dashboard import run_view
from dashboard.report.run import run_report
from tests.factories import make_run


def test_in_a_tie_the_fastest_measured_is_shown_first_and_the_simplest_after():
    # einsum is a touch faster; numpy is the simpler: tied within the margin.
    run = make_run({"einsum": [0.00200] * 12, "numpy": [0.00201] * 12})
    chosen = run.winner_dict()
    assert chosen["variant"] == "einsum" and chosen["tied_with"] == ["numpy"]
    assert chosen["simplest"] == "numpy"
    view = run_view.build(run)
    assert view.code == run.code_for("einsum")
    assert view.simplest == "numpy" and view.simplest_code == run.code_for("numpy")
    assert "The code shown first is **einsum**, the fastest measured; then **numpy**" in view.answer
    html = run_report(run)
    assert html.index("def einsum(") < html.index("The simplest of the tied strategies, numpy")


def test_a_clear_win_shows_one_block():
    run = make_run({"einsum": [0.002] * 12, "numpy": [0.004] * 12})
    view = run_view.build(run)
    assert view.code == run.code_for("einsum") and view.simplest is None

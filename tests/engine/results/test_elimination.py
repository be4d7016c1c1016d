"""An elimination's words stay true of the final record: its sample count, its time over the
final winner with the interval the verdict gives that pair, or that the record ties it."""

from __future__ import annotations

from engine.results.elimination import restate_eliminations
from engine.results.verdict import run_ratio
from tests.factories import make_run

RACED = "eliminated after 3 samples: slower than einsum beyond the 5% margin at the race's level"


def eliminated_run(slow: list[float]):
    run = make_run({"einsum": [1.0e-3, 1.01e-3, 0.99e-3, 1.0e-3, 1.02e-3], "numpy": slow})
    numpy = next(r for r in run.results if r.variant == "numpy")
    numpy.stop_reason, numpy.notes = "eliminated", [RACED, "another note"]
    return run, numpy


def test_a_clear_elimination_is_told_with_the_records_own_ratio():
    run, numpy = eliminated_run([2.0e-3, 2.02e-3, 1.98e-3])
    restate_eliminations(run)
    found = run_ratio(run, "numpy", "einsum")
    expected = (
        f"eliminated after 3 samples: {found.ratio:.2f}× einsum's time (95% interval "
        f"{found.low:.2f}–{found.high:.2f}), beyond the 5% margin"
    )
    assert numpy.notes == [expected, "another note"]


def test_an_elimination_the_final_record_ties_says_so():
    """The race's look separated it; the final numbers (4.9% apart, intervals overlapping)
    do not: the words said "beyond the 5% margin" all the same."""
    run, numpy = eliminated_run([1.049e-3, 1.0e-3, 1.1e-3])
    assert "numpy" in run.winner_dict()["tied_with"]
    restate_eliminations(run)
    assert numpy.notes[0].startswith("eliminated after 3 samples when it read slower than einsum")
    assert "the final record ties it with einsum" in numpy.notes[0]


def test_one_sample_is_one_sample():
    run, numpy = eliminated_run([30e-3])
    restate_eliminations(run)
    assert numpy.notes[0].startswith("eliminated after 1 sample: ")

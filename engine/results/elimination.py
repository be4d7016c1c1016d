"""One story from elimination to final numbers.

The race eliminates a variant at a look, against that look's best, from the samples it had
then; the note it writes names no ratio. The final record can tell another story: the best
may change, the medians move, the verdict (with the run's floor) may tie what the race
separated. So once the run's record is whole, each elimination is restated from it: the
record's own sample count, and its time over the final winner with the interval the verdict
gives that very pair (`verdict.run_ratio`); an elimination the final record does not bear out
says so instead of keeping words that are no longer true.
"""

from __future__ import annotations

import re
from typing import Any

from engine.machine.words import counted
from engine.results.verdict import run_ratio

PREFIX = "eliminated after "
RACED_AGAINST = re.compile(r"slower than (\S+) beyond")


def samples_words(count: int) -> str:
    return counted(count, "sample")


def restated(run: Any, result: Any, record: dict[str, Any], said: str | None) -> str:
    """The note of an eliminated `result`, true of the final record."""
    count = samples_words(len(result.samples_s))
    winner, margin = record["variant"], record["margin"]
    earlier = RACED_AGAINST.search(said or "")
    against = earlier.group(1) if earlier else "the best at that look"
    if result.variant == winner:
        return (
            f"eliminated after {count} when it read slower than {against}, yet the fastest "
            "in the final record: the race stopped it early; measure again for its full numbers"
        )
    found = run_ratio(run, result.variant, winner)
    if found is None:
        return f"eliminated after {count}"
    told = f"{found.ratio:.2f}× {winner}'s time (95% interval {found.low:.2f}–{found.high:.2f})"
    if result.variant in record["tied_with"]:
        return (
            f"eliminated after {count} when it read slower than {against} beyond the "
            f"{margin:.0%} margin; the final record ties it with {winner}: {told}"
        )
    return f"eliminated after {count}: {told}, beyond the {margin:.0%} margin"


def restate_eliminations(run: Any) -> None:
    """Rewrite each eliminated result's note from the run's final record (in place)."""
    record = run.winner_dict()
    if record is None:
        return
    for result in run.results:
        if result.stop_reason != "eliminated" or not result.samples_s:
            continue
        said = next((n for n in result.notes if n.startswith(PREFIX)), None)
        words = restated(run, result, record, said)
        result.notes = [words if n == said else n for n in result.notes]
        if said is None:
            result.notes.append(words)

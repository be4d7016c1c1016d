"""The confirming variants of one run: those the history shows far slower than the best at
this problem (`analysis/history_prior.py`), prepared with one checked call and no warm-up
(`Sampler(confirm=True)`), in the run's own process at their first turn (`Prepared.deferred`),
so the others' first samples come without waiting for an eager loop's check.

Each takes one block, after every other variant has had its turn in that round, so the
block is judged against this run's own best: when it is again more than `CONFIRMED_SLOWER`
times every sample of the best (`racing.confirmed_slower`), the variant is eliminated with
that one sample, and its note says what the history said and what confirmed it; otherwise its
block is dropped (taken cold, it is not a sample like the others) and it is warmed up,
autoranged and measured in full like any other. What the history said is never a sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from engine.analysis.history_prior import Prior
from engine.harness.recording import Prepared
from engine.measure.racing import CONFIRMED_SLOWER, confirmed_slower
from engine.results.events import Eliminated, Progress
from engine.results.model import StrategyResult


class Confirmation:
    """Which variants are still to be confirmed, and the judging of each one's block."""

    def __init__(
        self,
        prepared: list[Prepared],
        priors: Mapping[str, Prior],
        emit: Progress,
        elsewhere: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        """`elsewhere`: the samples of correct variants this run measured in other processes
        (a peer's), which a block here may be judged against too."""
        self.prepared, self.priors, self.emit = prepared, priors, emit
        self.elsewhere = dict(elsewhere or {})
        self.pending = {
            index
            for index, item in enumerate(prepared)
            if item.deferred is not None or (item.sampler is not None and item.sampler.confirming)
        }
        self.judged: dict[str, dict[str, Any]] = {}

    def prepared_now(self, index: int) -> None:
        """A deferred variant was prepared at its turn: still to confirm only if its sampler
        is a confirming one (a failed preparation is final, and says why)."""
        sampler = self.prepared[index].sampler
        if sampler is None or not sampler.confirming:
            self.pending.discard(index)

    def waits(self, index: int) -> bool:
        """Whether `index` takes its turn after the others (its block is judged against them)."""
        return index in self.pending

    def judge(self, index: int) -> bool:
        """After `index`'s turn: eliminate it when its block confirms the history, else send
        it to full measurement. Returns False when its block was dropped."""
        if index not in self.pending:
            return True
        self.pending.discard(index)
        item = self.prepared[index]
        sampler, result = item.sampler, item.result
        if sampler is None or not sampler.samples:  # its block failed: the failure says so
            return True
        prior = self.priors.get(result.variant)
        found = confirmed_slower(self.candidates(), {result.variant}, {result.variant})
        bound = found.get(result.variant)
        said = prior.words() if prior else "from history: far slower than the best"
        if bound is not None and result.correct:
            result.stop_reason = "eliminated"
            result.notes.append(
                f"eliminated after 1 sample: slower than {bound.best} beyond the margin, "
                f"confirming the history"
            )
            result.notes.append(
                f"{said}; here one checked first call and one timed block (at least "
                f"{bound.low:.1f}× every sample of {bound.best}) confirmed it, so it had no "
                "warm-up and no further samples"
            )
            self.emit(Eliminated(result.variant, bound.best, bound.ratio, bound.low))
            self.judged[result.variant] = {**(prior.to_dict() if prior else {}), "confirmed": True}
            return True
        read = self.reading(result.variant)
        result.notes.append(
            f"{said}; no correct variant had samples to judge its first block against, so it "
            "was measured in full"
            if read is None
            else f"{said}; its first block here read {read}, not over {CONFIRMED_SLOWER:g}× "
            "every sample of the best, so that block was dropped and it was measured in full"
        )
        self.judged[result.variant] = {**(prior.to_dict() if prior else {}), "confirmed": False}
        sampler.measure_in_full()
        return False

    def candidates(self) -> dict[str, list[float]]:
        """The correct variants with samples that a block can be judged against (as the race's),
        those measured elsewhere in this run among them."""
        here = samples_so_far(self.prepared)
        return {
            **{name: list(samples) for name, samples in self.elsewhere.items() if samples},
            **{name: s for name, s in here.items() if self.stop_of(name) != "eliminated"},
        }

    def stop_of(self, variant: str) -> str | None:
        return next(
            (i.result.stop_reason for i in self.prepared if i.result.variant == variant), None
        )

    def reading(self, variant: str) -> str | None:
        """What `variant`'s block read against the best so far, in words; None without a
        correct variant to judge it against."""
        candidates = self.candidates()
        others = {name: s for name, s in candidates.items() if name != variant}
        if variant not in candidates or not others:
            return None
        best = min(others, key=lambda name: float(np.median(others[name])))
        ratio = candidates[variant][0] / max(others[best])
        return f"{ratio:.1f}× the slowest sample of {best}"


def comparable(result: StrategyResult) -> bool:
    """A result another's samples may be judged against: correct, of the run's accuracy."""
    return result.status == "ok" and bool(result.correct) and not result.accuracy_class


def samples_of(results: Iterable[StrategyResult]) -> dict[str, list[float]]:
    """The samples of the comparable results measured in other processes: what a confirming
    block may be judged against."""
    return {r.variant: list(r.samples_s) for r in results if comparable(r) and r.samples_s}


def samples_so_far(prepared: Iterable[Prepared]) -> dict[str, list[float]]:
    """The samples taken so far in this process of each comparable variant (the provisional
    answer's and a confirming block's candidates)."""
    return {
        item.result.variant: list(item.sampler.samples)
        for item in prepared
        if item.sampler is not None and item.sampler.samples and comparable(item.result)
    }

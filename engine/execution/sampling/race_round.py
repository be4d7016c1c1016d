"""One look of the race (`sampling/loop.py` calls it after each round, and after each turn for the
gross rule): which running variants are eliminated, against this process's best or the best
another process of the run measured, and which are settled as tied. A point of another accuracy
class (reduced precision) is never the best to beat, and is raced against it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.harness.recording import Prepared
from engine.measure.racing import (
    RacePlan,
    RatioBound,
    grossly_slower,
    race,
    separated_from_elsewhere,
    settled_ties,
)
from engine.results.events import Eliminated, Progress


def race_round(
    prepared: list[Prepared],
    plan: RacePlan,
    emit: Progress,
    gross_only: bool = False,
    elsewhere: Mapping[str, Sequence[float]] | None = None,
) -> None:
    """Eliminate the running variants confidently slower than the best (correct ones only),
    or than `elsewhere`'s best beyond what their remaining samples could change (other
    processes' samples, final), and stop those that more samples could not separate from the
    best (`tied`). `gross_only`: only those grossly slower (`racing.grossly_slower`), a rule
    of single samples with no level to spend, so it may look after every turn, not only at a
    round's end."""
    candidates = {
        index: item.sampler.samples
        for index, item in enumerate(prepared)
        if item.sampler is not None
        and item.result.correct
        and item.result.stop_reason != "eliminated"
        and not item.result.accuracy_class  # another accuracy: never the best to beat
    }
    running = {i for i in candidates if prepared[i].result.stop_reason is None}
    named = {prepared[i].result.variant: s for i, s in candidates.items()}
    index_of = {prepared[i].result.variant: i for i in candidates}
    running_names = {prepared[i].result.variant for i in running}
    if gross_only:
        gone = grossly_slower(named, running_names) if plan.adaptive else {}
    else:
        gone = race(named, running_names, plan)
    across = {}
    if elsewhere and not gross_only:
        across = separated_from_elsewhere(named, running_names - set(gone), elsewhere, plan)
    for index, samples in other_accuracy(prepared).items():
        variant = prepared[index].result.variant
        index_of[variant] = index
        gone |= beside_the_best(variant, samples, named, plan, gross_only)
        if elsewhere and not gross_only and variant not in gone:
            across |= separated_from_elsewhere({variant: samples}, {variant}, elsewhere, plan)
    for variant, bound in {**gone, **across}.items():
        item = prepared[index_of[variant]]
        item.result.stop_reason = "eliminated"
        taken = len(item.sampler.samples) if item.sampler else 0
        # No ratio in the note: the one a reader sees is the run's record's, from all the
        # samples (the best's median moves after this look; a second number would disagree).
        item.result.notes.append(
            f"eliminated after {taken} samples: slower than {bound.best} beyond the "
            f"{plan.margin:.0%} margin at the race's adjusted level"
            if variant in gone
            else f"eliminated after {taken} samples: slower than {bound.best} (measured in "
            f"its own process) beyond the {plan.margin:.0%} margin, by more than the spread "
            "between processes, which more samples here would not shrink"
        )
        emit(Eliminated(variant, bound.best, bound.ratio, bound.low))
    gone = {**gone, **across}
    if gross_only:
        return
    for variant, best in settled_ties(named, running_names - set(gone), plan).items():
        item = prepared[index_of[variant]]
        item.result.stop_reason = "tied"
        taken = len(item.sampler.samples) if item.sampler else 0
        item.result.notes.append(
            f"stopped after {taken} samples: more could not separate it from {best} (the "
            "spread of ratios between runs, not its samples, decides this pair)"
        )


def other_accuracy(prepared: list[Prepared]) -> dict[int, Sequence[float]]:
    """The running correct points of another accuracy class (a reduced-precision point): never
    the best to beat, but raced against it (`beside_the_best`)."""
    return {
        index: item.sampler.samples
        for index, item in enumerate(prepared)
        if item.sampler is not None
        and item.result.correct
        and item.result.stop_reason is None
        and item.result.accuracy_class
    }


def beside_the_best(
    variant: str,
    samples: Sequence[float],
    named: Mapping[str, Sequence[float]],
    plan: RacePlan,
    gross_only: bool,
) -> dict[str, RatioBound]:
    """A point of another accuracy, eliminated by the race's own rule when slower than the
    best of the run's accuracy (what `reduced_precision` asks: would the trade be faster? a
    point confidently slower has answered it). One faster than that best is the race's best
    in this comparison, so it is never eliminated here and samples on."""
    field = {**named, variant: samples}
    if gross_only:
        return grossly_slower(field, {variant}) if plan.adaptive else {}
    return race(field, {variant}, plan)

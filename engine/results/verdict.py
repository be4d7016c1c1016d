"""The winner policy: which correct variant is fastest, which are tied with it, and which of
those to copy. One answer, given everywhere (the JSON, the CLI, the pages, the reports, the
history's list); derived from the samples each time, never stored as a second truth.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from engine.catalogue.catalog import is_known, sampling_process, strategy_info
from engine.machine.load import MachineLoad
from engine.measure.phases import phase_ties
from engine.measure.uncertainty import (
    RATIO_CI_METHOD,
    NoiseFloor,
    RatioEstimate,
    Winner,
    ratio_interval,
    winner_and_ties,
)
from engine.results.model import RunRecord, StrategyResult


def effective_floor(floor: NoiseFloor, load: MachineLoad | None) -> NoiseFloor:
    """The floor ties are judged with: the machine's, widened when it was busy."""
    return floor.under_load(load.other_cpu_fraction if load else None)


def winner_of(
    results: Sequence[StrategyResult],
    floor: NoiseFloor,
    seed: int,
    sampling: Mapping[str, Any] | None = None,
) -> Winner | None:
    """The fastest correct variant and those not distinguishable from it (ties), among the
    variants of the requested dtype's accuracy (a reduced-precision point is never one).
    With the run's `sampling` record, a variant within the margin of the winner, or faster,
    on one side of a change of the machine's speed is tied too (`engine.measure.phases`)."""
    candidates = tuple(
        (r.variant, tuple(r.samples_s), sampling_process(r.variant))
        for r in results
        if r.status == "ok" and r.correct and r.samples_s and not r.accuracy_class
    )
    found = _bootstrapped(candidates, floor, seed)
    if found is None or not sampling:
        return found
    eliminated = {r.variant for r in results if r.stop_reason == "eliminated"}
    others = [  # an eliminated variant stays separated, as the race promised its ties
        name for name in found.ratios if name not in found.tied_with and name not in eliminated
    ]
    samples = {name: s for name, s, _ in candidates}
    by_phase = phase_ties(found.variant, others, samples, sampling, found.margin)
    if not by_phase:
        return found
    tied = tuple(name for name in found.ratios if name in found.tied_with or name in by_phase)
    return dataclasses.replace(found, tied_with=tied, by_phase=by_phase)


@functools.lru_cache(maxsize=256)
def _bootstrapped(
    candidates: tuple[tuple[str, tuple[float, ...], str], ...], floor: NoiseFloor, seed: int
) -> Winner | None:
    """The bootstrap behind `winner_of`, computed once per set of samples: the JSON, the CLI
    table, the page and the report all ask for it."""
    samples = {name: s for name, s, _ in candidates}
    processes = {name: process for name, _, process in candidates}
    return winner_and_ties(samples, floor, seed=seed, processes=processes)


def simplest_of(group: Sequence[str]) -> str:
    """Among tied variants, the one to copy: the catalogue's simplest, else the first."""
    return min(
        group,
        key=lambda v: (strategy_info(v).simplicity if is_known(v) else 99, group.index(v)),
    )


def winner_record(found: Winner | None) -> dict[str, Any] | None:
    """`winner` in the results JSON: the winner, its ties with their ratios, the one to copy."""
    if found is None:
        return None
    group = [found.variant, *found.tied_with]
    simplest = simplest_of(group)
    return {
        "variant": found.variant,
        "tied_with": list(found.tied_with),
        "margin": found.margin,
        "ratios": {
            name: {
                "ratio": r.ratio,
                "ratio_ci": [r.low, r.high],
                **tie_record(found, name),
                **phase_record(found, name),
            }
            for name, r in found.ratios.items()
        },
        "simplest": simplest,
        "simplest_reason": strategy_info(simplest).simplicity_reason if is_known(simplest) else "",
        "method": RATIO_CI_METHOD,
    }


def tie_record(found: Winner, name: str) -> dict[str, Any]:
    """A tie's `tie_reason` (`uncertainty.TIE_REASONS`) and the floor each side of its ratio
    carried (`side_log_sd`), from which every sentence about it is worded ({} otherwise)."""
    if name not in found.reasons:
        return {}
    return {"tie_reason": found.reasons[name], "side_log_sd": found.side_log_sd[name]}


def phase_record(found: Winner, name: str) -> dict[str, Any]:
    """`phase` of a ratio tied by a change of the machine's speed: whose samples changed, at
    which round, and the variant's time over the winner's before and after ({} otherwise)."""
    tie = found.by_phase.get(name)
    return {"phase": dataclasses.asdict(tie)} if tie is not None else {}


def reduced_precision_record(
    results: Sequence[StrategyResult], found: Winner | None, floor: NoiseFloor, seed: int
) -> dict[str, Any] | None:
    """`reduced_precision` in the results JSON: the fastest correct point of a reduced
    accuracy class, its time over the winner's with the interval, and both errors, so the
    trade is read side by side; None when no such point ran or there is no winner."""
    reduced = [
        r for r in results if r.accuracy_class and r.status == "ok" and r.correct and r.samples_s
    ]
    winner = next((r for r in results if found and r.variant == found.variant), None)
    if not reduced or winner is None:
        return None
    best = min(reduced, key=lambda r: r.median_s or math.inf)
    same = sampling_process(best.variant) == sampling_process(winner.variant)
    ratio = ratio_interval([winner.samples_s], [best.samples_s], floor.side_log_sd(same), seed)
    return {
        "variant": best.variant,
        "accuracy_class": best.accuracy_class,
        "ratio_to_winner": ratio.ratio,
        "ratio_ci": [ratio.low, ratio.high],
        "max_rel_error": best.max_rel_error,
        "winner": winner.variant,
        "winner_max_rel_error": winner.max_rel_error,
        "method": RATIO_CI_METHOD,
    }


def run_floor(run: RunRecord) -> NoiseFloor:
    """The floor a run's ties are judged with: the machine's, widened when it was busy."""
    return effective_floor(run.noise_floor, run.machine_load)


def run_winner(run: RunRecord) -> Winner | None:
    """A run's fastest correct variant and those not distinguishable from it (ties)."""
    return winner_of(run.results, run_floor(run), run.config.seed, run.sampling)


def run_ratio(run: RunRecord, variant: str, reference: str) -> RatioEstimate | None:
    """`variant`'s time over `reference`'s in this run, with the interval the verdict gives the
    same pair: the run's floor (widened when busy), its seed, each side's process, and the
    faster side first, as the winner is in the winner record. A pair with the winner is that
    record's own ratio, bit for bit (or its inverse), so a chart of speedups and a sentence
    about a tie cannot give one pair two intervals. None when either has no correct samples."""
    usable = {
        r.variant: tuple(r.samples_s)
        for r in run.results
        if r.status == "ok" and r.correct and r.samples_s
    }
    if variant not in usable or reference not in usable:
        return None
    order = list(usable)
    fast, slow = sorted(
        (reference, variant), key=lambda name: (median(usable[name]), order.index(name))
    )
    side = run_floor(run).side_log_sd(sampling_process(fast) == sampling_process(slow))
    found = ratio_interval([usable[fast]], [usable[slow]], side, run.config.seed)
    if slow == variant:
        return found
    return dataclasses.replace(
        found,
        ratio=1 / found.ratio,
        low=1 / found.high,
        high=1 / found.low,
        runs_a=found.runs_b,
        runs_b=found.runs_a,
    )


# Which time a verdict judges, and why: the timed blocks end in a synchronisation, so their
# time is what a loop that calls the kernel pays; a fused pipeline pays the device's time,
# shown beside it where it was measured (a result's `time_split`).
JUDGED_ON = "host time: synchronised calls, what a loop that calls the kernel pays"


def run_winner_record(run: RunRecord) -> dict[str, Any] | None:
    """A run's `winner` record (the results JSON's, the pages', the CLI's). A run not measured
    here carries `reported_by` (the machine its file names): every reader says whose word the
    verdict is, and none names it the fastest on that word alone."""
    record = winner_record(run_winner(run))
    if record is not None:
        record["judged_on"] = JUDGED_ON
    if record is not None and run.reported_by is not None:
        record["reported_by"] = run.reported_by
    if record is not None and run.config.search:  # what a longer sampling would take there
        record["budget_flag"] = "--search-budget"
    return record


def run_reduced_precision(run: RunRecord) -> dict[str, Any] | None:
    """A run's `reduced_precision` record: the fastest reduced-precision point beside the
    winner, with both errors (None when none ran): a trade the user chooses, never the answer."""
    return reduced_precision_record(run.results, run_winner(run), run_floor(run), run.config.seed)

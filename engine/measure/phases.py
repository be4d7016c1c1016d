"""When the machine changed speed during a run, and what that does to the answer.

On a shared host a two-thread kernel can run at half its speed for seconds while a one-thread
kernel next to it is untouched (docs/timing.md, "Slow phases that are not neighbours").
Interleaving puts every variant of a run into such a phase alike, but the phase does not move
them alike, so which one has the lowest median depends on how much of the run the phase took:
a TensorFlow kernel at 3.7 ms for the first 8 rounds and 8.2 ms after loses to NumPy's steady
4.4 ms over the run, though it was the faster one while the machine was at speed.

Here a variant's samples, in the order they were taken, are tested for one change in level
(Pettitt's test: the Mann–Whitney statistic of the samples before and after each possible
split, its largest absolute value, and the approximate p-value `2 exp(-6K² / (n³ + n²))`,
which errs on the high side: in this module's tests fewer than α of the runs of steady samples
are called shifted). A shift counts when its p-value is below `ALPHA` over the variants tested
(Bonferroni), each side has at least `MIN_EACH` samples, and the two sides' medians differ by
more than the tie margin. The run's rounds (`sampling.rounds`) then split every variant of the
same process at the same moment, and a variant that was within the margin of the winner, or
faster, on one side of it is tied with the winner, with both sides' ratios as the reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.measure.uncertainty import DEFAULT_MARGIN, PhaseTie

ALPHA = 0.05
MIN_EACH = 5  # samples on each side of a change before it is believed
MIN_SEGMENT = 3  # samples of each variant on each side before a side's ratio is read


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their average: `scipy.stats.rankdata`'s default, done here
    with NumPy (a test holds the two equal) since importing SciPy's stats costs a command 0.7 s
    that a run of one variant needs for nothing else."""
    order = np.argsort(values, kind="mergesort")
    inverse = np.empty(values.size, dtype=np.intp)
    inverse[order] = np.arange(values.size)
    ordered = values[order]
    starts = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    group = np.cumsum(starts)[inverse]  # 1-based index of each value's group of equal ones
    bounds = np.concatenate((np.flatnonzero(starts), [values.size]))
    return 0.5 * (bounds[group] + bounds[group - 1] + 1)


def pettitt(samples: Sequence[float]) -> tuple[int, float]:
    """The most likely change point `k` (samples[:k] against samples[k:]) and its p-value."""
    values = np.asarray(samples, dtype=np.float64)
    n = values.size
    if n < 2:
        return 0, 1.0
    ranks = average_ranks(values)
    splits = np.arange(1, n)
    statistic = 2 * np.cumsum(ranks)[:-1] - splits * (n + 1)
    best = int(np.argmax(np.abs(statistic)))
    largest = float(abs(statistic[best]))
    p_value = min(1.0, 2 * math.exp(-6 * largest**2 / (n**3 + n**2)))
    return best + 1, p_value


@dataclass(frozen=True)
class PhaseShift:
    """A variant whose time changed during the run: its first `at_sample` samples against the
    rest (medians in seconds per call)."""

    variant: str
    at_sample: int
    samples: int
    before_s: float
    after_s: float
    p_value: float

    def warning(self) -> str:
        later = self.samples - self.at_sample
        return (
            f"its time changed during the run: {self.before_s * 1e3:.3g} ms for its first "
            f"{self.at_sample} samples, {self.after_s * 1e3:.3g} ms for its last {later} "
            f"(Pettitt p = {self.p_value:.2g}); the machine's speed changed (another process, "
            "or the host), so its median mixes both; run it again, or use --repetitions"
        )


def phase_shift(
    variant: str, samples: Sequence[float], tested: int = 1, margin: float = DEFAULT_MARGIN
) -> PhaseShift | None:
    """The one change in level in `samples` (in the order taken), if there is a clear one."""
    if len(samples) < 2 * MIN_EACH:
        return None
    at, p_value = pettitt(samples)
    if p_value >= ALPHA / max(1, tested) or not MIN_EACH <= at <= len(samples) - MIN_EACH:
        return None
    before, after = float(np.median(samples[:at])), float(np.median(samples[at:]))
    if before <= 0 or after <= 0 or abs(math.log(after / before)) <= math.log1p(margin):
        return None
    return PhaseShift(variant, at, len(samples), before, after, p_value)


def rounds_of(sampling: Mapping[str, Any] | None, variant: str, count: int) -> list[int] | None:
    """The round each of `variant`'s `count` samples was taken in, from an interleaved run's
    record; None when the record cannot say (sequential order, another process, old files,
    or an imported record that is not the shape the engine writes: it is free-form JSON)."""
    if not sampling or sampling.get("order") != "interleaved":
        return None
    names, rounds = sampling.get("variants"), sampling.get("rounds")
    if not isinstance(names, list) or not isinstance(rounds, list) or variant not in names:
        return None
    if not all(isinstance(round_, list) for round_ in rounds):
        return None
    index = names.index(variant)
    # a turn of several blocks lists the variant once per block
    found = [number for number, round_ in enumerate(rounds) for i in round_ if i == index]
    return found if len(found) == count else None


def record_of(sampling: Mapping[str, Any] | None, variant: str) -> Mapping[str, Any] | None:
    """The sampling record of the process `variant` was sampled in: the run's own, or a peer
    framework's (`sampling.peers`, e.g. JAX's on a machine without TensorFlow)."""
    if not sampling:
        return None
    peers = sampling.get("peers")
    records = [sampling, *(peers.values() if isinstance(peers, dict) else ())]
    for record in records:
        names = record.get("variants") if isinstance(record, dict) else None
        if isinstance(names, list) and variant in names:
            return record
    return None


def _split(samples: Sequence[float], rounds: Sequence[int], at: int) -> tuple[list, list]:
    before = [s for s, r in zip(samples, rounds, strict=True) if r < at]
    after = [s for s, r in zip(samples, rounds, strict=True) if r >= at]
    return before, after


def phase_ties(
    best: str,
    others: Sequence[str],
    samples: Mapping[str, Sequence[float]],
    sampling: Mapping[str, Any] | None,
    margin: float = DEFAULT_MARGIN,
) -> dict[str, PhaseTie]:
    """The `others` (variants the ties did not include) that were within `margin` of `best`,
    or faster, on one side of a moment the machine changed speed: a change that any variant
    sampled in the winner's process shows. A change of one variant splits them all: it is the
    machine's, not the variant's. Variants of other processes are left as they are."""
    record = record_of(sampling, best)
    rounds = {name: rounds_of(record, name, len(s)) for name, s in samples.items()}
    if rounds.get(best) is None:
        return {}
    timed = {name: s for name, s in samples.items() if rounds[name] is not None}
    moments: dict[int, str] = {}  # round -> the first variant (by name) whose samples changed
    for name in sorted(timed):
        shift = phase_shift(name, timed[name], len(timed), margin)
        if shift is not None:
            moments.setdefault(rounds[name][shift.at_sample], name)
    found: dict[str, PhaseTie] = {}
    for other in others:
        if rounds.get(other) is None:
            continue
        for at, changed in sorted(moments.items()):
            (best_before, best_after), (other_before, other_after) = (
                _split(timed[v], rounds[v], at) for v in (best, other)
            )
            if min(map(len, (best_before, best_after, other_before, other_after))) < MIN_SEGMENT:
                continue
            before = float(np.median(other_before) / np.median(best_before))
            after = float(np.median(other_after) / np.median(best_after))
            if min(before, after) <= 1 + margin:
                found[other] = PhaseTie(changed, at, before, after)
                break
    return found

"""Whether a variant's blocks read differently after slower neighbours: the run checks itself.

Every block that follows another variant's is preceded by a re-warm (`Sampler.rewarm`). On a
shared host that does not always hold a fast kernel's time: blocks right after a slower
neighbour can read slow (`benchmarks/predecessors.py` measures by how much; docs/timing.md),
and at some moments a two-thread kernel stays slow for longer than any re-warm a run can
afford. A run cannot see that by comparing
processes, but it can in its own record: its blocks are interleaved in a recorded order, so
each variant's blocks split into those right after a neighbour more than `SLOWER` times slower
per call and those after the others, both spread through the same run. A two-sided
Mann–Whitney U test (SciPy) on the two groups, Bonferroni-adjusted over the run's variants,
with the ratio of their medians beyond `MARGIN`, is a measured neighbour effect: the variant
gets a warning saying so and what to do. A variant's first block (after preparation) is in
neither group.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

SLOWER = 2.0  # a neighbour more than this many times slower per call is a slower neighbour
MIN_EACH = 5  # blocks of each kind before the test is made
ALPHA = 0.05  # over the whole run: each of its variants is tested at ALPHA / variants
MARGIN = 0.05  # a ratio within this of 1 does not matter (the tie margin)


@dataclass(frozen=True)
class NeighbourEffect:
    """A variant's median after slower neighbours over its median after the others."""

    ratio: float
    p_value: float
    after_slower: int
    after_others: int

    def warning(self) -> str:
        return (
            f"its blocks right after slower neighbours read {self.ratio:.2f}× its blocks after "
            f"the others (Mann–Whitney p = {self.p_value:.2g}; {self.after_slower} and "
            f"{self.after_others} blocks): on this machine what ran before moves it, so its "
            "median here may not be its time alone; measure it by itself or with "
            "--order sequential (docs/timing.md)"
        )


def after_each_block(
    sequence: Sequence[int], samples: Mapping[int, Sequence[float]]
) -> Iterator[tuple[int, int, float]]:
    """(the variant whose block ran just before, or -1 at the start; this block's variant;
    its sample) for every block of the run, in the order it ran.

    `sequence`: every block of the run in the order it ran (indices into the run's variants);
    `samples[i]`: variant i's samples in the order taken, one per block of i in `sequence`.
    """
    taken = dict.fromkeys(samples, 0)
    previous = -1
    for current in sequence:
        if current in taken and taken[current] < len(samples[current]):
            yield previous, current, samples[current][taken[current]]
            taken[current] += 1
        previous = current


def blocks_by_neighbour(
    index: int, sequence: Sequence[int], samples: Mapping[int, Sequence[float]]
) -> tuple[list[float], list[float]]:
    """Variant `index`'s samples after a slower neighbour, and after the others (arguments
    as for `after_each_block`)."""
    medians = {i: float(np.median(s)) for i, s in samples.items() if len(s)}
    after_slower: list[float] = []
    after_others: list[float] = []
    for previous, current, sample in after_each_block(sequence, samples):
        if current == index and previous >= 0 and previous != index and previous in medians:
            slower = medians[previous] > SLOWER * medians[index]
            (after_slower if slower else after_others).append(sample)
    return after_slower, after_others


def neighbour_effect(
    index: int, sequence: Sequence[int], samples: Mapping[int, Sequence[float]]
) -> NeighbourEffect | None:
    """The effect on variant `index`, or None: too few blocks of a kind, or none shown."""
    after_slower, after_others = blocks_by_neighbour(index, sequence, samples)
    if len(after_slower) < MIN_EACH or len(after_others) < MIN_EACH:
        return None
    from scipy import stats  # on first use: SciPy.stats costs every command 0.7 s at start

    p_value = float(stats.mannwhitneyu(after_slower, after_others).pvalue)
    ratio = float(np.median(after_slower)) / float(np.median(after_others))
    tested = max(1, sum(1 for s in samples.values() if len(s)))
    if p_value >= ALPHA / tested or abs(np.log(ratio)) <= np.log1p(MARGIN):
        return None
    return NeighbourEffect(ratio, p_value, len(after_slower), len(after_others))

"""The sampling phase: every prepared variant's timed blocks, interleaved or in sequence.

Interleaved (the default): round after round, each variant still sampling takes one block, in
an order shuffled by a generator seeded from the config's seed; the executed order is recorded
in the results (`sampling.rounds`, indices into `sampling.variants`), so it can be checked and
reproduced. A slow moment of a shared machine then falls on every variant alike instead of on
whichever happened to be running. Sequential: each variant takes all its samples in turn.

A variant whose block raises is marked failed and leaves the rotation; the others go on.
`on_done` is called for each variant as soon as it has taken its last sample (or could take
none), so its result can be finished and shown while the others are still sampling; nothing
it does runs inside another variant's timed block.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.execution.recording import Prepared
from engine.results.events import Progress, Sample


@dataclass
class SamplingRecord:
    order: str
    seed: int
    variants: list[str]
    rounds: list[list[int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "order": self.order,
            "seed": self.seed,
            "variants": self.variants,
            "rounds": self.rounds,
        }


def _wants_sample(item: Prepared, repeats: int) -> bool:
    """Still sampling: has a sampler, needs samples, and its budget allows one more block."""
    sampler = item.sampler
    return sampler is not None and len(sampler.samples) < repeats and sampler.can_sample()


def take_samples(
    prepared: list[Prepared],
    *,
    repeats: int,
    order: str,
    seed: int,
    emit: Progress,
    on_failure: Callable[[Prepared, BaseException], None],
    on_done: Callable[[Prepared], None] | None = None,
) -> SamplingRecord:
    """Fill every sampler with up to `repeats` samples; returns what was run, in order."""
    record = SamplingRecord(order, seed, [p.result.variant for p in prepared])
    shuffle = random.Random(seed)
    reported: set[int] = set()

    def report_finished() -> None:
        for index, item in enumerate(prepared):
            if index not in reported and not _wants_sample(item, repeats):
                reported.add(index)
                if on_done is not None:
                    on_done(item)

    def one_block(index: int) -> bool:
        item = prepared[index]
        assert item.sampler is not None
        try:
            item.sampler.sample()
        except Exception as error:  # noqa: BLE001 - one variant's failure keeps the others
            on_failure(item, error)
            return False
        samples = item.sampler.samples
        emit(Sample(item.result.variant, len(samples), repeats, samples[-1]))
        return True

    report_finished()  # those that failed before sampling
    if order == "sequential":
        for index, item in enumerate(prepared):
            taken = []
            while _wants_sample(item, repeats) and one_block(index):
                taken.append(index)
            if taken:
                record.rounds.append(taken)
            report_finished()
        return record

    while True:
        waiting = [i for i, item in enumerate(prepared) if _wants_sample(item, repeats)]
        if not waiting:
            return record
        shuffle.shuffle(waiting)
        record.rounds.append([i for i in waiting if one_block(i)])
        report_finished()

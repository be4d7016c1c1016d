"""Progress reporters for the runner's events: a tqdm bar for people, JSON lines for programs.

The dashboard's worker is the CLI itself with `--progress jsonl`, so the dashboard and the CLI
share one code path and the same event stream (`engine.results.events`).
"""

from __future__ import annotations

import json
import sys
import time
from typing import TextIO

from tqdm import tqdm

from engine.results.events import (
    Done,
    Event,
    Phase,
    Sample,
    SweepDone,
    SweepPoint,
    SweepRefused,
    SweepStarted,
    VariantDone,
    VariantStarted,
)


class JsonLinesProgress:
    """One JSON object per line, flushed at once, each stamped with elapsed seconds."""

    def __init__(self, stream: TextIO = sys.stdout) -> None:
        self.stream = stream
        self.start = time.perf_counter()

    def __call__(self, event: Event) -> None:
        stamped = {**event.to_dict(), "elapsed_s": round(time.perf_counter() - self.start, 3)}
        self.stream.write(json.dumps(stamped) + "\n")
        self.stream.flush()


class BarProgress:
    """A tqdm bar per strategy variant on stderr, counting samples."""

    def __init__(self, stream: TextIO = sys.stderr, bar: type[tqdm] = tqdm) -> None:
        self.stream = stream
        self.make_bar = bar  # tqdm.auto's class in a notebook: a widget bar there
        self.bar: tqdm | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, Phase) and event.variant is None:
            self.stream.write(f"{event.phase}...\n")
        elif isinstance(event, VariantStarted):
            self.close()
            self.bar = self.make_bar(desc=f"{event.variant:<20}", file=self.stream, unit="sample")
        elif isinstance(event, Sample) and self.bar is not None:
            self.bar.total = event.of
            self.bar.update(event.sample - self.bar.n)
        elif isinstance(event, VariantDone):
            if self.bar is not None:
                self.bar.set_postfix_str(event.status)
            self.close()
        elif isinstance(event, Done):
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class SweepBarProgress:
    """One tqdm bar over the sweep's points (tqdm's own ETA), on stderr."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self.stream = stream
        self.bar: tqdm | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, SweepStarted):
            skipped = event.points - event.todo
            if skipped:
                self.stream.write(f"resuming: {skipped} of {event.points} points done\n")
            self.bar = tqdm(total=event.todo, desc="sweep", unit="point", file=self.stream)
        elif isinstance(event, SweepPoint) and self.bar is not None:
            self.bar.update(event.index - self.bar.n)
            self.bar.set_postfix_str(event.point)
        elif isinstance(event, SweepRefused):
            self.stream.write(f"refused {event.point}: {event.message}\n")
        elif isinstance(event, SweepDone) and self.bar is not None:
            self.bar.update(self.bar.total - self.bar.n)
            self.bar.close()

"""Progress reporters for a run's events: a tqdm bar for people, JSON lines for programs.

The dashboard's worker is the CLI itself with `--progress jsonl`, so the dashboard and the CLI
share one code path and the same event stream (`engine.results.events`).
"""

from __future__ import annotations

import json
import sys
import time
from typing import TextIO

from tqdm import tqdm

from engine.cli.terminal import unfiltered
from engine.machine.words import counted
from engine.results.events import (
    Done,
    Eliminated,
    Event,
    Phase,
    Predicted,
    Provisional,
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

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout  # the one in force now (serve redirects it)
        self.start = time.perf_counter()

    def __call__(self, event: Event) -> None:
        stamped = {**event.to_dict(), "elapsed_s": round(time.perf_counter() - self.start, 3)}
        self.stream.write(json.dumps(stamped) + "\n")
        self.stream.flush()


class BarProgress:
    """On stderr: a line per variant while it is prepared, then one bar over the sampling that
    follows the work left: a variant that stops (precise, eliminated, out of budget) is
    credited with all of its samples at once, and each elimination is said as it happens."""

    def __init__(self, stream: TextIO | None = None, bar: type[tqdm] = tqdm) -> None:
        self.stream = stream or unfiltered(sys.stderr)
        self.make_bar = bar  # tqdm.auto's class in a notebook: a widget bar there
        self.bar: tqdm | None = None
        self.taken: dict[str, int] = {}
        self.stopped: set[str] = set()
        self.most = 0
        self.so_far = ""  # the provisional answer's words, on the bar while it runs

    def __call__(self, event: Event) -> None:
        if isinstance(event, Phase) and event.variant is None:
            self.close()
            if event.phase.startswith("sampling"):  # each process samples its own variants
                self.taken, self.stopped, self.most, self.so_far = {}, set(), 0, ""
            self.stream.write(f"{event.phase}...\n")
        elif isinstance(event, VariantStarted):  # a deferred one's comes while the bar runs
            self.write(f"  preparing {event.variant}")
        elif isinstance(event, Sample):
            self.taken[event.variant] = event.sample
            self.most = max(self.most, event.of)
            self.redraw()
        elif isinstance(event, Eliminated):
            # No ratio: the one the answer gives is the record's, from every sample; the
            # ratio at this look would be a second number for the same pair.
            self.write(f"  eliminated {event.variant}: slower than {event.best}")
        elif isinstance(event, VariantDone):
            self.stopped.add(event.variant)
            self.redraw()
        elif isinstance(event, Provisional):
            self.so_far = f"{event.leader} leads" + (
                f" (tied so far: {', '.join(event.tied_with)})" if event.tied_with else ""
            )
            self.redraw()
        elif isinstance(event, Predicted):
            self.write(event.words)
        elif isinstance(event, Done):
            self.close()

    def write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
        else:
            self.stream.write(line + "\n")

    def redraw(self) -> None:
        if not self.taken:
            return
        variants = set(self.taken) | self.stopped
        if self.bar is None:
            self.bar = self.make_bar(desc="sampling", file=self.stream, unit="sample")
        self.bar.total = self.most * len(variants)
        done = sum(self.most if v in self.stopped else self.taken.get(v, 0) for v in variants)
        self.bar.update(done - self.bar.n)
        running = len(variants - self.stopped)
        so_far = f" · provisional: {self.so_far}" if self.so_far else ""
        self.bar.set_postfix_str(f"{running} running, {len(self.stopped)} stopped{so_far}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class SweepBarProgress:
    """One tqdm bar over the sweep's points (tqdm's own ETA), on stderr."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or unfiltered(sys.stderr)
        self.bar: tqdm | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, SweepStarted):
            skipped = event.points - event.todo
            if skipped:
                self.stream.write(f"resuming: {skipped} of {counted(event.points, 'point')} done\n")
            self.bar = tqdm(total=event.todo, desc="sweep", unit="point", file=self.stream)
        elif isinstance(event, SweepPoint) and self.bar is not None:
            self.bar.update(event.index - self.bar.n)
            self.bar.set_postfix_str(event.point)
        elif isinstance(event, SweepRefused):
            self.stream.write(f"refused {event.point}: {event.message}\n")
        elif isinstance(event, SweepDone) and self.bar is not None:
            self.bar.update(self.bar.total - self.bar.n)
            self.bar.close()

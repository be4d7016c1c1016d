"""A run's own process watched for a call that never returns.

Every other framework runs in a process of its own, which the parent ends when one of its
calls outlives the call limit (`peers/process.py`). TensorFlow's variants run in the run's own
process, where nothing outside can watch them, so a thread inside does: every progress event
of the run (a variant prepared, a sample taken, a variant finished) is a sign of life, and
one variant's step that goes on past the limit with none means a call that will not return
(a deadlocked device, a stuck compile). A Python thread cannot interrupt a call stuck in
native code, so the watch keeps what finished (the finished variants' results, as they were
streamed), has it saved by the caller (`on_hung`), says which variant and after how long,
and ends the process: its children end with it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.results.events import Progress, VariantResult

POLL_S = 0.5
EXIT_HUNG = 4  # docs/cli.md: a call never returned; what finished was saved first

# The step under way in this process: (variant, when it began). The sampling loop sets it at
# each variant's turn, which no progress event announces (an event follows each block).
_step: list[Any] = [None, time.monotonic()]


def step(variant: str | None) -> None:
    """Say which variant's calls this process is about to make."""
    _step[:] = [variant, time.monotonic()]


@dataclass
class Hung:
    """What the watch knows when it gives up: the variant whose step never ended, how long
    it waited, and every result that finished before (as the run streamed them)."""

    variant: str | None
    waited_s: float
    limit_s: float
    finished: list[dict[str, Any]] = field(default_factory=list)

    def sentence(self) -> str:
        who = self.variant or "the run"
        return (
            f"{who} made no progress for {self.waited_s:.0f} s (the limit for this problem "
            f"is {self.limit_s:.0f} s): a framework call that never returned, as a "
            "deadlocked device or a stuck compile would; the run was ended from inside"
        )


class HangWatch:
    """Wrap a run's progress with `watching`; `on_hung` is called once, from the watch's own
    thread, when a step outlives `limit_s`; then the process ends with `EXIT_HUNG`."""

    def __init__(
        self,
        limit_s: float,
        on_hung: Callable[[Hung], None],
        clock: Callable[[], float] = time.monotonic,
        end: Callable[[int], None] = os._exit,
    ) -> None:
        self.limit_s = limit_s
        self.on_hung = on_hung
        self.clock = clock
        self.end = end
        self.last = clock()
        self.variant: str | None = None
        self.finished: list[dict[str, Any]] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="hang-watch", daemon=True)

    def watching(self, emit: Progress) -> Progress:
        def seen(event: Any) -> None:
            self.last = self.clock()
            if hasattr(event, "variant"):  # whose step it is now (None: the run's own)
                self.variant = event.variant
            if isinstance(event, VariantResult):
                self.finished.append(event.result)
            emit(event)

        return seen

    def __enter__(self) -> HangWatch:
        self.last = self.clock()
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stopped.set()

    def _latest(self) -> tuple[str | None, float]:
        """The newest sign of life: a progress event, or a step begun since."""
        variant, began = _step
        if began > self.last:
            return variant, began
        return self.variant, self.last

    def _watch(self) -> None:
        while not self.stopped.wait(POLL_S):
            variant, last = self._latest()
            waited = self.clock() - last
            if waited <= self.limit_s:
                continue
            if self.stopped.is_set():
                return
            try:
                self.on_hung(Hung(variant, waited, self.limit_s, list(self.finished)))
            finally:
                self.end(EXIT_HUNG)
            return


def partial_run(config: Any, hung: Hung, device_kind: str) -> Any:
    """The run as far as it got: every finished variant's result as it was streamed, the one
    that hung failed with the reason, the rest skipped; no ceiling (the probe after the
    variants never ran). A record like any other: it is saved, signed and compared."""
    import platform
    import uuid
    from datetime import datetime, timezone

    from engine.catalogue.catalog import variant_name
    from engine.execution.plan.variants import plan_variants
    from engine.harness.recording import blank_result
    from engine.measure.peak import Peak
    from engine.results.decode import result_from_dict
    from engine.results.parts import Environment
    from engine.results.run_result import RunResult

    done = {}
    for index, entry in enumerate(hung.finished):
        result = result_from_dict(entry, f"results[{index}]", config)
        done[result.variant] = result
    results = []
    for strategy, option in plan_variants(config, device_kind):
        name = variant_name(strategy, option)
        if name in done:
            results.append(done[name])
            continue
        status = "failed" if name == hung.variant else "skipped"
        result = blank_result(config, strategy, option, status)
        result.error = (
            hung.sentence()
            if status == "failed"
            else f"not measured: the run was ended when {hung.variant or 'it'} hung"
        )
        results.append(result)
    return RunResult(
        run_id=uuid.uuid4().hex,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        environment=Environment(device_kind=device_kind, hostname=platform.node()),
        config=config,
        peak=Peak(None, "not measured: the run was ended before its probe after the variants"),
        results=results,
        warnings=[hung.sentence()],
        measured_here=True,
    )

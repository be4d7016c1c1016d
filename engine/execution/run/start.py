"""The one way a run begins (`start_run`), from every door: the CLI's `run` (and the warm
worker's requests, which are `run`s), a sweep's points, the notebook and `engine.run`.

It picks the run's own process once — the run framework's (TensorFlow's, from its folder)
when the run needs it and it is usable here, else the host's — and, where the door asks for
it (`early`), starts the kept peer processes and draws the check set on the second core while
that framework imports, waiting for both before anything is timed. Which framework that is,
and whether it can run, is asked of its declaration (`FrameworkInfo.problem`): nothing here
names it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.catalogue.catalog import run_framework, run_framework_problem
from engine.execution.peers.early_start import prestart_peers
from engine.execution.peers.pool import settle_peers
from engine.execution.run.own_process import OwnProcess, needs_run_framework, own_process
from engine.measure import predraw
from engine.measure.correctness import check_stream
from engine.results.events import Phase, Progress, silent
from engine.run_settings.config import BenchConfig


@dataclass(frozen=True)
class Started:
    """A run's own process, started, and the seconds its start took (the run framework's
    import, beside the peers' and the check set's): part of the run's `startup_s`."""

    own: OwnProcess
    start_s: float


def start_run(
    strategies: Iterable[str],
    device_kind: str,
    progress: Progress = silent,
    *,
    state: Any = None,
    setup: Any = None,
    builders: Any = None,
    replicas: int | None = None,
    early: BenchConfig | None = None,
) -> Started:
    """The own process for runs of `strategies` (`state`, `setup`, `builders`: a kept one's,
    as `own_process` takes them; `replicas`: a sweep's one device layout). `early`: a single
    run's config, whose peers are prestarted and whose check set is predrawn while the run
    framework imports (`predraw.drop()` after measuring frees what it did not take)."""
    strategies = tuple(strategies)
    started = time.perf_counter()
    if early is not None:
        prestart_peers(early, device_kind)  # loading and drawing: nothing timed runs yet
    lead = run_framework()
    starts_lead = lead is not None and needs_run_framework(strategies)
    starts_lead = starts_lead and not run_framework_problem()
    if starts_lead and (state is None or not getattr(state, "warm", False)):
        progress(Phase(f"starting {lead.label}"))
    if early is not None and starts_lead and state is None and early.mode == "single":
        check = check_stream(bool(early.kernels))  # the set the run's check reads
        predraw.start(predraw.shape_of(early), check)  # on the second core, while it imports
    own = own_process(state, setup, builders, replicas, strategies)
    if early is not None:
        predraw.wait()  # ended before anything is measured
        settle_peers()  # as are the peer processes' starts
    return Started(own, time.perf_counter() - started)

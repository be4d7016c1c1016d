"""One run of a BenchConfig, whatever is installed: the one orchestrator.

Every framework but TensorFlow runs in a process of its own (`peers/parent.py`), started first,
before TensorFlow holds the device. The run's own process is one more runtime (`OwnProcess`):
the process of the framework that declares it runs the run (`FrameworkInfo.process == "run"`:
TensorFlow's `backends/tensorflow/process.py`, its devices, warm state, probes, executors and
profiles) when it is usable here, else the host's (`run/host_process.py`: NumPy's read probe,
and that framework's strategies `unsupported` with what to install). Then, in this order: the
read probe before, the own process's variants prepared, all samples taken (interleaved by
default, `sampling/loop.py`), each variant finished, profiles, the read probe after and the
ceiling settled. The CLI, the notebook, `engine.run`, sweeps, calibration (its repetitions are
runs) and the dashboard's worker all come here. Nothing in this module imports a framework.

A failure in one variant is its own result; SIGINT at any point keeps what finished (the
caller saves it: `RunInterrupted`).
"""

from __future__ import annotations

from typing import Any

from engine.analysis.prediction import outcome
from engine.execution.plan.run_plan import RunPlan
from engine.execution.run.measuring import Measuring
from engine.execution.run.own_process import OwnProcess
from engine.execution.run.start import start_run
from engine.machine.accelerators import probe_kind
from engine.measure import memory
from engine.measure.peak import Peak
from engine.measure.uncertainty import NoiseFloor
from engine.results.elimination import restate_eliminations
from engine.results.events import Phase, Progress, silent
from engine.results.run_result import RunInterrupted, RunResult
from engine.run_settings.config import BenchConfig


def measure(plan: RunPlan, own: OwnProcess, progress: Progress | None = None) -> RunResult:
    """Measure every variant of the plan's config (`plan/run_plan.py`: its one front door);
    raises PreflightError/DeviceError before any work, RunInterrupted (carrying what
    finished) on SIGINT. The plan's `peak`: a ceiling measured already (a sweep's), else
    probed before and after the variants; `earlier_ceilings`: what this machine's runs of the
    last hour read (`analysis/session_ceiling.py`); `priors`: the variants the history shows
    far slower than the best here, each confirmed by one block (`analysis/history_prior.py`;
    adaptive single-worker runs only). The phases, in the one order (`plan/phase_order.py`):
    the peers' processes, the own process's start, its probes, inputs and preparation, the
    sampling, the finish, the profile, the release, the probes again, the record."""
    run = Measuring(plan, own, progress or silent)
    run.measure_peers()
    run.start_own()
    prepared = run.prepare()
    record, results = run.sample(prepared)
    if run.config.profile and not run.interrupted:
        run.order.enter("profile")
        run.emit(Phase("profiles"))
        own.profile(prepared, run.run_id)
    run.clock.lap("profile_s")
    run.order.enter("release")
    del prepared
    own.release()
    result = run.record(record, results)
    restate_eliminations(result)  # each elimination's words, true of the final record
    judge_prediction(result)
    if run.interrupted:
        raise RunInterrupted(result)
    return result


def judge_prediction(result: RunResult) -> None:
    """The prediction's outcome, from the run's own verdict (never the other way round)."""
    if result.prediction is not None and "winner" in result.prediction:
        found = outcome(result.prediction, result.winner_dict(), result.results)
        if found is not None:
            result.prediction = {**result.prediction, "outcome": found}


def run_benchmark(
    config: BenchConfig,
    progress: Progress | None = None,
    builders: Any = None,
    setup: Any = None,
    peak: Peak | None = None,
    state: Any = None,
    floor: NoiseFloor | None = None,
    estimate: memory.MemoryEstimate | None = None,
) -> RunResult:
    """`measure` with this machine's own process, started by `start_run`: the Python door
    (`engine.run`)."""
    kind = probe_kind()
    own = start_run(config.strategies, kind, state=state, setup=setup, builders=builders).own
    plan = RunPlan(config, floor=floor or NoiseFloor(), estimate=estimate, peak=peak)
    return measure(plan, own, progress)

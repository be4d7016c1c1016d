"""The `run`, `devices` and `strategies` commands."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from typing import Any

from engine.cli.exit_codes import EXIT_INTERRUPTED, STARTING_INTERRUPTED
from engine.cli.flags import config_from_args
from engine.execution.plan.history_reads import usable_history
from engine.machine.accelerators import probe_kind
from engine.machine.cluster import worker_count
from engine.machine.host import last_level_cache_bytes
from engine.machine.jax_cluster import ClusterError, check_layout, jax_processes
from engine.measure import memory, predraw
from engine.measure.peak import Peak
from engine.process.interrupts import interrupt_ends_at_once
from engine.results.events import Phase, Queued, ResultWritten, silent
from engine.results.files import check_output_file, save_fallback, write_text_atomically
from engine.results.run_result import RunInterrupted
from engine.run_settings.config import BenchConfig
from engine.run_settings.fields import ConfigError, Setting
from engine.storage.history_file import check_history_path
from engine.storage.run_queue import RunQueue

EXIT_OK, EXIT_UNSAVED = 0, 1
EXIT_NO_CORRECT = 3  # measured, saved, and no variant produced a correct result


def quiet_tensorflow() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def reporter(kind: str) -> Any:
    from engine.cli.progress import BarProgress, JsonLinesProgress

    made = {"bar": BarProgress, "jsonl": JsonLinesProgress}.get(kind)
    return made() if made else silent


# The ceiling's method where `--no-ceiling` asked for none: said wherever the roofline would be.
NOT_PROBED = "not probed (--no-ceiling): no ceiling, no roofline"
REPETITIONS = Setting(kind="int", help="", label="", limits=(1, 1000))


def command_run(args: argparse.Namespace, warm: Any = None) -> int:
    """`warm`: a `WarmState` kept by `serve` between runs; None for a fresh process."""
    config = config_from_args(args)
    try:  # JAX's multi-process settings, at the door
        check_layout(config.mode, config.replicas)
    except ClusterError as error:
        raise ConfigError(error.field, error.message) from None
    repetitions = REPETITIONS.parse("repetitions", args.repetitions)
    # Every output is checked now: a bad path must not cost a finished measurement.
    if args.json_path:
        check_output_file("json", args.json_path)
    if not args.no_history:
        check_history_path(args.history)
    # Refuse impossible runs before TensorFlow is even imported; the run reads this estimate.
    checker = warm.preflight if warm is not None else memory.preflight
    estimate = checker(config, probe_kind(), last_level_cache_bytes()[0])
    quiet_tensorflow()
    progress = reporter(args.progress)
    queue = queue_turn(args, progress)
    if repetitions > 1:
        with queue:
            return report_group(config, repetitions, args)
    result, interrupted = measured(config, args, warm, estimate, queue, progress)
    unsaved = save_outputs(result, args)
    if unsaved:
        return unsaved
    if interrupted:
        print(f"error: interrupted; {kept_words(args)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return said_run(result, args, progress)


def queue_turn(args: argparse.Namespace, progress: Any) -> Any:
    """The run's turn in the machine's queue (none for `--no-queue`, or for the workers of
    one multi-worker run, which wait for each other: queueing them would deadlock)."""

    def waiting(position: int) -> None:
        progress(Queued(position))
        if args.progress == "bar":
            print(f"waiting for another run to finish (position {position})", file=sys.stderr)

    skip_queue = args.no_queue or worker_count() > 1 or jax_processes() > 1
    return contextlib.nullcontext() if skip_queue else RunQueue().turn(on_wait=waiting)


def measured(
    config: BenchConfig,
    args: argparse.Namespace,
    warm: Any,
    estimate: Any,
    queue: Any,
    progress: Any,
) -> tuple[Any, bool]:
    """The run, planned, started (`start_run`) and measured in its turn; True when SIGINT
    stopped it (what finished is in the result). Its start's time is part of `startup_s`."""
    from engine.execution.peers.pool import kept_peers
    from engine.execution.plan.run_plan import plan_run
    from engine.execution.run.orchestrator import measure
    from engine.execution.run.start import start_run

    # its peer processes (a warm worker's own, kept; else this run's) start beside TensorFlow;
    # a multi-worker run's workers each start their own, as before
    peers = kept_peers() if worker_count() <= 1 else contextlib.nullcontext()
    # until it measures, a one-shot run has nothing to keep: Ctrl-C ends it at once (a warm
    # worker's start is over long before)
    starting = (
        interrupt_ends_at_once(STARTING_INTERRUPTED) if warm is None else contextlib.nullcontext()
    )
    interrupted = False
    with queue, peers:
        with starting:
            history = usable_history(args.history)  # opened once for every read the plan makes
            unprobed = Peak(None, NOT_PROBED) if args.no_ceiling else None
            plan = plan_run(
                config,
                history,
                probe_kind(),
                learn=not args.no_history,
                estimate=estimate,
                peak=unprobed,
            )
            started = start_run(config.strategies, probe_kind(), progress, state=warm, early=config)
        watch = hang_watch_for(config, args, started.own.kind)
        try:
            with watch:
                result = measure(plan, started.own, watch.watching(progress))
        except RunInterrupted as stop:  # SIGINT: what finished is saved
            result, interrupted = stop.result, True
        finally:
            predraw.drop()  # what the run did not take
    if result.timings is not None:  # its start (a framework's import): part of starting
        result.timings["startup_s"] = result.timings.get("startup_s", 0.0) + started.start_s
        result.timings["total_s"] += started.start_s
    result.group_id = args.group_id
    return result, interrupted


def kept_words(args: argparse.Namespace) -> str:
    """Where an interrupted run's measurements were saved, in words."""
    places = [args.json_path] if args.json_path else []
    places += [] if args.no_history else ["the history"]
    if places:
        return f"what was measured was saved to {' and '.join(places)}"
    return "what was measured was not saved (--no-history, and no --json)"


def said_run(result: Any, args: argparse.Namespace, progress: Any) -> int:
    """The finished run on the terminal (its table, a search's lines, where the time went) or
    as the last event; the exit code that says whether any variant was correct."""
    from engine.analysis.prediction import prediction_words
    from engine.results.summary import summary_table, took_line

    if args.progress == "jsonl":
        progress(ResultWritten(result.run_id, args.json_path))
    else:
        print(summary_table(result))
        if result.config.search:
            from engine.results.search import search_lines, search_summary

            print("\n".join(search_lines(search_summary(result))))
        took = took_line(result.timings, result.worker)
        if took:
            print(took)
        if result.prediction is not None:
            print(prediction_words(result.prediction))
        if args.json_path:
            print(f"results written to {args.json_path}")
    return no_correct_code([result])


# The run's own process waits this much longer than the call limit before it gives up on a
# step: a peer process's own watch (the same limit) ends a stuck peer first and says so.
HANG_GRACE_S = 60.0


def hang_watch_for(config: BenchConfig, args: argparse.Namespace, device_kind: str) -> Any:
    """A watch on this process's calls (TensorFlow's run here, where no parent can end them):
    a step that outlives the call limit has what finished saved and says which variant hung,
    then the process ends with EXIT_HUNG (docs/cli.md)."""
    from engine.execution.peers.process import call_limit_for
    from engine.execution.sampling.hang_watch import HangWatch, partial_run

    def on_hung(hung: Any) -> None:
        partial = partial_run(config, hung, device_kind)
        unsaved = save_outputs(partial, args)
        kept = len(hung.finished)
        places = [args.json_path] if args.json_path else []
        places += [] if args.no_history else ["the history"]
        where = " and ".join(places) if places else "nowhere (--no-history, and no --json)"
        said = "" if unsaved else f"; the {kept} variant(s) that finished were saved to {where}"
        print(f"error: {hung.sentence()}{said}", file=sys.stderr, flush=True)

    return HangWatch(call_limit_for(config) + HANG_GRACE_S, on_hung)


def no_correct_code(runs: list[Any]) -> int:
    """EXIT_NO_CORRECT, with one line saying why, when no run has a correct variant (a CI
    step can tell "measured nothing usable" from success); else EXIT_OK."""
    results = [r for run in runs for r in run.results]
    if any(r.status == "ok" and r.correct for r in results):
        return EXIT_OK
    print(f"error: {no_correct_reason(results)}", file=sys.stderr)
    return EXIT_NO_CORRECT


def no_correct_reason(results: list[Any]) -> str:
    """ "no variant produced a correct result (2 unsupported, 1 wrong); x: why", in one line."""
    counts: dict[str, int] = {}
    for r in results:
        kind = "wrong" if r.status == "ok" else r.status
        counts[kind] = counts.get(kind, 0) + 1
    told = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    first = next((r for r in results if r.error), None)
    why = f"; {first.variant}: {first.error.splitlines()[0][:300]}" if first and first.error else ""
    return f"no variant produced a correct result ({told or 'none ran'}){why}"


def ceilings_moved(result: Any, history: Any) -> list[str]:
    """The run's warnings for a ceiling that moved beyond this machine's stored spread (none
    where the history cannot be read: storing it says why)."""
    from engine.analysis.ceiling_drift import moved_ceilings

    env = result.environment
    try:
        earlier = history.machine_ceilings(env.hostname, env.device_kind)
    except (OSError, ValueError):
        return []
    return moved_ceilings(result.peak, earlier, result.machine_load)


def save_outputs(result: Any, args: argparse.Namespace) -> int:
    """Write the JSON and store the run; if either still fails, keep the measurement in a
    fallback file and say where (exit 1). Returns 0 when everything was written."""
    from engine.storage.history import History
    from engine.storage.profiles import export_traces

    problems = []
    history, unusable = None, None  # one store, opened once: read for the ceilings, then written
    if not args.no_history:
        try:
            history = History(args.history)
        except (OSError, ValueError) as error:  # said after the JSON's fate
            unusable = error
        else:
            result.warnings.extend(ceilings_moved(result, history))
    if args.json_path and any(r.profile for r in result.results):
        result.warnings.extend(export_traces(result, args.json_path))
    text = result.to_json()
    if args.json_path:
        try:
            write_text_atomically(args.json_path, text)
        except OSError as error:
            problems.append(f"json: could not write {args.json_path!r}: {error.strerror}")
    if unusable is not None:
        problems.append(f"history: could not store the run: {unusable}")
    if history is not None:
        try:
            history.add_run(result)
        except (OSError, ValueError) as error:  # never lose the measurement
            problems.append(f"history: could not store the run: {error}")
    if not problems:
        return EXIT_OK
    saved = save_fallback(text, result.run_id)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    print(f"error: the measurement is kept in {saved}", file=sys.stderr)
    return EXIT_UNSAVED


def report_group(config: BenchConfig, repetitions: int, args: argparse.Namespace) -> int:
    """`run --repetitions R`: R fresh processes, one group; prints each variant's spread."""
    from engine.cli.repetitions import RepetitionFailed, run_repetitions
    from engine.results.parse import group_payload

    progress = reporter(args.progress)

    def say(text: str) -> None:
        if args.progress == "bar":
            print(text, file=sys.stderr)
        else:
            progress(Phase(text))

    try:
        group_id, runs = run_repetitions(config, repetitions, args, say)
    except RepetitionFailed as failure:
        if not failure.runs:
            raise
        return keep_partial_group(failure, args)
    if args.json_path:
        write_text_atomically(args.json_path, json.dumps(group_payload(group_id, runs), indent=1))
    if args.progress == "jsonl":
        progress(ResultWritten(group_id, args.json_path))
        return no_correct_code(runs)
    print(f"group {group_id}: {repetitions} runs of the same configuration")
    for variant, medians in group_medians(runs).items():
        shown = ", ".join(f"{m * 1e3:.4g}" for m in medians)
        spread = max(medians) / min(medians) if min(medians) > 0 else float("nan")
        print(f"  {variant:<20} medians (ms): {shown}  max/min {spread:.2f}")
    if args.json_path:
        print(f"group written to {args.json_path}")
    return no_correct_code(runs)


def keep_partial_group(failure: Any, args: argparse.Namespace) -> int:
    """A repetition failed after others finished: keep the finished ones as a partial group
    (in `--json`, else a fallback file; each is in the history too) and say why (exit 1)."""
    from engine.results.parse import group_payload

    text = json.dumps(group_payload(failure.group_id, failure.runs), indent=1)
    where = None
    if args.json_path:
        try:
            write_text_atomically(args.json_path, text)
            where = args.json_path
        except OSError:
            where = None
    where = where or str(save_fallback(text, failure.group_id))
    kept = len(failure.runs)
    print(
        f"error: {failure}; the {kept} finished repetition(s) are kept in {where} "
        f"(group {failure.group_id})",
        file=sys.stderr,
    )
    return EXIT_UNSAVED


def group_medians(runs: list) -> dict[str, list[float]]:
    table: dict[str, list[float]] = {}
    for run in runs:
        for entry in run.results:
            if entry.median_s:
                table.setdefault(entry.variant, []).append(entry.median_s)
    return table

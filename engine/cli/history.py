"""The commands around the history: `sweep`, `import` and `history`."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from engine.analysis.scaling import cell_words
from engine.cli.flags import raw_settings, with_default_strategies
from engine.cli.terminal import printable
from engine.machine.accelerators import probe_kind
from engine.machine.host import last_level_cache_bytes
from engine.machine.words import counted
from engine.measure import memory
from engine.measure.memory import PreflightError
from engine.results.files import check_output_file
from engine.results.parse import read_results_file
from engine.results.reader import ResultsRejected
from engine.run_settings.fields import ConfigError, Setting
from engine.run_settings.sweep import SweepSpec
from engine.storage.history_file import check_history_path, check_history_readable

EXIT_OK, EXIT_SLOWER, EXIT_INVALID = 0, 1, 2
LIMIT = Setting(kind="int", help="", label="", limits=(1, 10_000_000))
GAPS = Setting(kind="int", help="", label="", limits=(1, 100_000))


def command_sweep(args: argparse.Namespace) -> int:
    from engine.cli.progress import SweepBarProgress
    from engine.cli.run import no_correct_code, quiet_tensorflow, reporter
    from engine.storage.history import History
    from engine.storage.run_queue import RunQueue

    spec = SweepSpec.from_raw(with_default_strategies(raw_settings(args)))
    fill = getattr(args, "fill_gaps", None)
    gaps = GAPS.parse("fill-gaps", fill) if fill is not None else 0
    if args.json_path:
        check_output_file("json", args.json_path)
    history = History(check_history_path(args.history))
    refused = refused_points(spec)
    if len(refused) == spec.size:  # nothing would run: say so before TensorFlow starts
        raise PreflightError(f"every point of the sweep is refused; the first: {refused[0]}")
    progress = SweepBarProgress() if args.progress == "bar" else reporter(args.progress)
    quiet_tensorflow()
    from engine.execution.run.sweep import run_sweep
    from engine.results.events import Queued, ResultWritten

    try:
        with RunQueue().turn(on_wait=lambda p: progress(Queued(p))):
            outcome = run_sweep(spec, history, progress, fill_gaps=gaps)
    except KeyboardInterrupt:  # Ctrl-C: the finished points are stored; say so, and where
        return interrupted_sweep(spec, history, args)
    runs = history.sweep_runs(outcome.sweep_id)
    if args.json_path:
        write_sweep_json(args.json_path, spec, runs)
    if args.progress == "jsonl":
        progress(ResultWritten(outcome.sweep_id, args.json_path))
        return no_correct_code(runs) if runs else EXIT_OK
    later = (
        f", {outcome.left_for_later} left for later (the history predicts them best)"
        if outcome.left_for_later
        else ""
    )
    print(
        f"sweep {outcome.sweep_id}: {counted(outcome.points, 'point')}, ran {outcome.ran}, "
        f"{outcome.skipped_done} already done{later}, history {history.name}"
    )
    for line in outcome.refused:
        print(f"  refused {line}")
    for run in runs:
        print(f"  {point_line(run)}")
    return no_correct_code(runs) if runs else EXIT_OK


def point_line(run: Any) -> str:
    """A sweep point's line: its run's own verdict (a tie says tie, and with whom)."""
    config = run.config
    shape = f"{config.matrices}x{config.dim}x{config.columns} {config.dtype}"
    record = run.winner_dict()
    if record is None:
        from engine.cli.run import no_correct_reason

        said = no_correct_reason(list(run.results))  # why: what failed, what is missing
    else:
        said = cell_words({"winner": record["variant"], "tied_with": record["tied_with"]})
        if not record["tied_with"]:
            median = next(r.median_s for r in run.results if r.variant == record["variant"])
            said += f" {median * 1e3:.4g} ms"
    return f"{config.mode:<10} {shape:<28} {said}"


def cells_for_json(runs: list) -> list[dict[str, Any]]:
    """The sweep's cells as the page and the report show them, one verdict each."""
    from engine.analysis.scaling import crossover
    from engine.cli.compare import row_for_json  # JSON has no NaN: a missing margin is null

    return [
        {**row_for_json(cell), "tied_with": list(cell["tied_with"]), "verdict": cell_words(cell)}
        for cell in crossover(runs).to_dict(orient="records")
    ]


def write_sweep_json(path: str, spec: SweepSpec, runs: list, interrupted: bool = False) -> None:
    from engine.results.files import write_text_atomically

    payload = {
        "sweep_id": spec.sweep_id,
        "spec": spec.to_dict(),
        "runs": [r.to_dict() for r in runs],
        "cells": cells_for_json(runs),
        **({"interrupted": True} if interrupted else {}),
    }
    write_text_atomically(path, json.dumps(payload, indent=1))


def interrupted_sweep(spec: SweepSpec, history: Any, args: argparse.Namespace) -> int:
    """An interrupted sweep: its finished points are in the history (each stored as it
    finished); write them to --json too, and say how many and where (exit 130). The point
    being measured is dropped: the same command resumes the sweep and measures it again."""
    from engine.cli.run import EXIT_INTERRUPTED

    runs = history.sweep_runs(spec.sweep_id)
    where = [f"the history ({history.name}, sweep {spec.sweep_id})"]
    if args.json_path:
        write_sweep_json(args.json_path, spec, runs, interrupted=True)
        where.append(args.json_path)
    print(
        f"error: interrupted; {len(runs)} of {spec.size} points finished and are kept in "
        f"{' and '.join(where)}; the same command resumes the sweep",
        file=sys.stderr,
    )
    return EXIT_INTERRUPTED


def refused_points(spec: SweepSpec) -> list[str]:
    """The points the memory preflight refuses, checked without TensorFlow."""
    kind = probe_kind()
    llc_bytes = last_level_cache_bytes()[0]
    refused = []
    for config in spec.points():
        try:
            memory.preflight(config, kind, llc_bytes)
        except memory.PreflightError as error:
            refused.append(f"{spec.point_key(config)}: {error}")
    return refused


def command_import(args: argparse.Namespace) -> int:
    from engine.storage.history import History

    history = History(check_history_path(args.history))
    status = EXIT_OK
    for path in args.files:
        try:
            run = read_results_file(path)
        except ResultsRejected as error:
            print(f"error: {path}: {error}", file=sys.stderr)
            status = EXIT_INVALID
            continue
        if history.add_run(run, source="import"):
            print(f"imported {path}: run {run.run_id}")
        else:
            print(f"{path}: run {run.run_id} is already stored")
    return status


def command_history(args: argparse.Namespace) -> int:
    from engine.storage.history import History
    from engine.storage.run_rows import DISPLAY_COLUMNS, RunFilter

    if getattr(args, "history_view", None) == "changes":
        return command_changes(args)
    if getattr(args, "history_view", None) == "publish":
        return command_publish(args)
    if getattr(args, "history_view", None) == "predictions":
        return command_predictions(args)
    history = History(check_history_readable(args.history), read_only=True)
    limit = LIMIT.parse("limit", args.limit)
    where = RunFilter(device_kind=args.device, label_contains=args.label, limit=limit)
    frame = history.list_runs(where)
    if len(frame) == limit and (stored := history.count_runs(where)) > limit:
        print(  # on stderr: --json's stdout stays one JSON document
            f"note: showing the newest {limit:,} of {stored:,} matching runs; "
            f"--limit {stored} shows them all",
            file=sys.stderr,
        )
    if args.json:
        print(frame.to_json(orient="records", indent=1))
        return EXIT_OK
    for column in ("label", "device_kind", "dtype", "mode", "best_variant", "source"):
        frame[column] = frame[column].map(printable)
    if frame.empty:
        print("no stored runs")
    else:
        frame["best_median_s"] = frame["best_median_s"].map(
            lambda v: "-" if v is None or v != v else f"{v * 1e3:.4g} ms"
        )
        print(frame[list(DISPLAY_COLUMNS)].to_string(index=False))
    return EXIT_OK


def command_predictions(args: argparse.Namespace) -> int:
    """`history predictions`: per machine, the record of the predictions its runs made
    (`analysis/prediction.py`): made, confirmed, and the median time error."""
    from engine.storage.history import History

    history = History(check_history_readable(args.history), read_only=True)
    records = history.prediction_records()
    if args.json:
        print(json.dumps(records, indent=1))
        return EXIT_OK
    if not records:
        print("no prediction stored")
    for record in records:
        error = record["median_time_error"]
        missed = f", times off by {math.exp(error) - 1:.0%} (median)" if error is not None else ""
        print(
            f"{printable(record['hostname'])} ({record['device_kind']}): "
            f"{record['confirmed']} of {counted(record['made'], 'prediction')} confirmed{missed}"
        )
    return EXIT_OK


def command_changes(args: argparse.Namespace) -> int:
    """`history changes`: each series' steps, with the environment diff that may explain
    them; `--fail-if-slower PCT` exits 1 on a confirmed slowdown at a series' latest step."""
    from engine.analysis.change_points import latest_slowdown, series_of, step_words
    from engine.cli.compare import PERCENT
    from engine.storage.history import History

    percent = (
        PERCENT.parse("fail-if-slower", args.fail_if_slower)
        if args.fail_if_slower is not None
        else None
    )
    history = History(check_history_readable(args.history), read_only=True)
    runs = history.all_runs(label_contains=args.label)
    found = series_of(runs)
    if args.json:
        print(json.dumps([series.to_dict() for series in found], indent=1))
    elif not found:
        print("no stored runs")
    for machine, problem in dict.fromkeys((s.machine, s.problem) for s in found):
        if args.json:
            break
        print(printable(f"{machine} · {problem}"))
        for series in (s for s in found if (s.machine, s.problem) == (machine, problem)):
            head = f"  {printable(series.variant)}: {counted(len(series.medians_s), 'run')}"
            if not series.steps:
                print(f"{head}, no step")
            for step in series.steps:
                print(f"{head}; {printable(step_words(step))}")
    if percent is None:
        return EXIT_OK
    slower = [(s, step) for s in found if (step := latest_slowdown(s, percent)) is not None]
    for series, step in slower:
        print(
            f"confirmed slower by more than {percent:g}%: {printable(series.variant)} on "
            f"{printable(series.machine)} ({printable(series.problem)}), "
            f"{printable(step_words(step))}",
            file=sys.stderr,
        )
    return EXIT_SLOWER if slower else EXIT_OK


def command_publish(args: argparse.Namespace) -> int:
    """`history publish DIR`: the site is the dashboard's report code (plotly), which the
    engine does not import: it runs it, as `dashboard` runs Streamlit."""
    import importlib.util

    from engine.cli.dashboard import DASHBOARD, INSTALL_HINT
    from engine.process.children import Child

    if importlib.util.find_spec("plotly") is None:
        raise ConfigError("publish", f"plotly is not installed; {INSTALL_HINT}")
    command = [sys.executable, "-m", "dashboard.report.publish", args.folder]
    command += ["--history", args.history] if args.history else []
    command += ["--label", args.label] if args.label else []
    child = Child(command, stdin=None, stdout=None, stderr="inherit", cwd=DASHBOARD.parent)
    return child.wait()  # ended with this process, as every child is

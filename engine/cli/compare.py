"""The `compare` command (a regression gate) and `calibrate` (the machine's noise floor)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from engine.catalogue.catalog import frameworks, strategy_info
from engine.cli.flags import raw_settings
from engine.cli.rerun import NOT_REMEASURED
from engine.machine.words import counted
from engine.results.codec import floor_dict
from engine.results.files import check_output_file
from engine.results.formatting import format_interval, format_seconds
from engine.results.parse import read_run_group
from engine.results.reader import ResultsRejected
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig
from engine.run_settings.fields import ConfigError, Setting
from engine.run_settings.user_kernels import UserKernel, parse_kernel_spec

EXIT_OK, EXIT_SLOWER = 0, 1
PERCENT = Setting(kind="seconds", help="", label="", limits=(0.0, 10_000.0), unit="percentage")
RUNS = Setting(kind="int", help="", label="", limits=(3, 100))
RERUNS = Setting(kind="int", help="", label="", limits=(2, 100))


def calibration_strategies() -> tuple[str, ...]:
    """What `calibrate` repeats by default, as the framework folders declare it: the run's own
    framework's set when it is usable here (TensorFlow's, NumPy inside its process); else a
    fast and a slower kernel of each framework installed, at least two variants in all."""
    from engine.catalogue.catalog import run_framework_problem

    declared = frameworks()
    run_framework = [f.calibration for f in declared if f.process == "run"]
    if run_framework and run_framework_problem() is None:
        return run_framework[0]
    return tuple(
        name
        for f in declared
        if f.process != "run"
        for name in f.calibration
        if strategy_info(name).installed
    )


def load_side(text: str, history: Any) -> list[RunResult]:
    """A results or group file, else a run id or group id stored in the history."""
    path = Path(text)
    if path.exists():
        return read_run_group(path)
    run = history.get_run(text)
    if run is not None:
        return [run]
    group = history.group_runs(text)
    if group:
        return group
    raise ConfigError("runs", f"{text[:80]!r} is neither a file nor a stored run or group id")


def ratio_text(row: Any) -> str:
    """The ratio column: empty for the baseline (its verdict says so), "-" without a timing."""
    interval = row["ratio_ci"]
    if row["baseline"]:
        return ""
    if isinstance(interval, list):
        return f"{row['ratio']:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"
    return "-"


def verdict_text(row: Any, left_out: frozenset[tuple[str, str]] = frozenset()) -> str:
    """The verdict column, in words for a side that lacks the variant (`left_out`: the
    (run ids, variant) pairs a rerun did not measure again)."""
    if row["status"] == "absent":
        if (row["run_id"], row["variant"]) in left_out:
            return "not re-measured"
        return "not in this run"
    return str(row["verdict"])


COMPARE_HEADER = (
    f"{'strategy':<22} {'run':<48} {'median':>10} {'95% interval':>18} "
    f"{'time / baseline [95%]':>28} verdict"
)


MARKDOWN_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\`*_[]|<>#"})


def markdown_lines(floor_line: str, cells: list[tuple[str, ...]], said: list[str]) -> list[str]:
    """The comparison as GitHub Markdown, for a CI job's summary or a review comment: the
    same words as the text form, every cell escaped (a label is the user's text)."""
    lines = [
        f"**Comparison**: {floor_line.translate(MARKDOWN_SPECIAL)}",
        "",
        "| strategy | run | median | 95% interval | time / baseline [95%] | verdict |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        "| " + " | ".join(" ".join(c.split()).translate(MARKDOWN_SPECIAL) for c in row) + " |"
        for row in cells
    ]
    if said:
        lines += ["", *(f"- {line.strip().translate(MARKDOWN_SPECIAL)}" for line in said)]
    return lines


def row_for_json(row: dict[str, Any]) -> dict[str, Any]:
    clean = {}
    for key, value in row.items():
        if isinstance(value, float) and not math.isfinite(value):
            value = None
        clean[key] = value
    return clean


def command_compare(args: argparse.Namespace) -> int:
    from engine.analysis.compare import (
        compare_runs,
        confirmed_slowdowns,
        floor_for,
        mismatch_warnings,
        sides_of,
    )
    from engine.analysis.sensitivity import run_seconds, sensitivity_lines
    from engine.storage.history import History
    from engine.storage.history_file import check_history_path, check_history_readable

    if len(args.runs) < 2:
        raise ConfigError("runs", "give at least two results files or run ids to compare")
    baseline = Setting(kind="int", help="", label="", limits=(0, len(args.runs) - 1)).parse(
        "baseline", args.baseline
    )
    limit = (
        PERCENT.parse("fail-if-slower", args.fail_if_slower)
        if args.fail_if_slower is not None
        else None
    )
    rerun = RERUNS.parse("rerun", args.rerun) if args.rerun is not None else None
    kernels = given_kernels(args.kernels or [], rerun)
    if args.json_path:
        check_output_file("json", args.json_path)  # before any work, as run and sweep do
    if rerun is None:  # reads the history only: a read-only one will do
        history = History(check_history_readable(args.history), read_only=True)
    else:
        history = History(check_history_path(args.history))
    sides = [load_side(text, history) for text in args.runs]
    not_remeasured: list[list[str]] = [[] for _ in sides]
    if rerun is not None:
        sides, not_remeasured = measured_again(sides, args, rerun, kernels)
    floor = floor_for(sides_of(sides), history.floor_of)
    frame = compare_runs(sides, baseline, floor=floor)
    left_out = frozenset(
        (",".join(run.run_id for run in runs), name)
        for runs, names in zip(sides, not_remeasured, strict=True)
        for name in names
    )
    said = [f"note: {note}" for note in dict.fromkeys(n for n in frame["note"] if n)]
    said += [
        f"note: side {index}'s {name} was {NOT_REMEASURED}"
        for index, names in enumerate(not_remeasured)
        for name in names
    ]
    said += sensitivity_lines(frame, run_seconds(sides), limit)
    said += [f"warning: {warning}" for warning in mismatch_warnings(sides)]
    print_comparison(frame, floor, said, left_out, getattr(args, "format", "text"))
    slower = confirmed_slowdowns(frame, limit) if limit is not None else frame.iloc[0:0]
    if args.json_path:
        write_comparison(args.json_path, baseline, frame, floor, not_remeasured)
    if limit is not None and not slower.empty:
        names = ", ".join(sorted(set(slower["variant"])))
        print(f"confirmed slower by more than {limit:g}%: {names}", file=sys.stderr)
        return EXIT_SLOWER
    return EXIT_OK


def write_comparison(
    path: str, baseline: int, frame: Any, floor: Any, not_remeasured: list[list[str]]
) -> None:
    """`compare --json`: the rows, the floor and the margin they were judged with."""
    from engine.results.files import write_text_atomically

    payload = {
        "baseline": baseline,
        "margin": frame.attrs["margin"],
        "noise_floor": floor_dict(floor),
        "rows": [row_for_json(r) for r in frame.to_dict(orient="records")],
        "not_remeasured": [list(names) for names in not_remeasured],
    }
    write_text_atomically(path, json.dumps(payload, indent=1))


def print_comparison(
    frame: Any, floor: Any, said: list[str], left_out: frozenset[tuple[str, str]], form: str
) -> None:
    """The comparison on stdout: the floor it used, a row per variant and side, then what
    was said of it; as text columns, or as a Markdown table (`form`)."""
    floor_line = (
        f"noise floor: {floor.between_run_log_sd:.3f} (log sd between runs), {floor.source}"
    )
    cells = [
        (
            row["variant"],
            row["run"],
            format_seconds(row["median_s"]),
            format_interval(row["median_ci_s"]),
            ratio_text(row),
            verdict_text(row, left_out),
        )
        for _, row in frame.iterrows()
    ]
    if form == "markdown":
        print("\n".join(markdown_lines(floor_line, cells, said)))
        return
    print(floor_line)
    print(COMPARE_HEADER)
    for variant, run, median, interval, ratio, verdict in cells:
        print(f"{variant:<22} {run[:48]:<48} {median:>10} {interval:>18} {ratio:>28} {verdict}")
    for line in said:
        print(line)


def given_kernels(specs: list[str], rerun: int | None) -> list[UserKernel]:
    """`--kernel`: the kernels a rerun may measure again, read from the command line (the
    only place a kernel is ever imported from); refused without `--rerun`."""
    if specs and rerun is None:
        raise ConfigError("kernel", "is only for --rerun: it names a kernel to measure again")
    return [parse_kernel_spec(spec) for spec in specs]


def measured_again(
    sides: list[list[RunResult]],
    args: argparse.Namespace,
    count: int,
    kernels: list[UserKernel],
) -> tuple[list[list[RunResult]], list[list[str]]]:
    """`--rerun`: the sides' settings measured again, alternated, in the machine's queue;
    those runs are compared (the stored ones named them). Also each side's kernels that were
    not measured again (no `--kernel` for them)."""
    from engine.cli.rerun import check_rerunnable, plan_rerun, rerun_sides
    from engine.storage.run_queue import RunQueue

    check_rerunnable(sides, args.runs)
    plans = plan_rerun(sides, kernels)
    with RunQueue().turn():
        again = rerun_sides(
            [plan.config for plan in plans], count, args, lambda text: print(text, file=sys.stderr)
        )
    for index, runs in enumerate(again):
        print(
            f"side {index}: {counted(len(runs), 'run')} measured again, alternated, "
            f"group {runs[0].group_id}"
        )
    return again, [list(plan.not_remeasured) for plan in plans]


def ceiling_spreads(results: list[Any]) -> list[str]:
    """Each level's ceiling over the calibration's runs (stored with each run): the band a
    later run's ceilings are judged against (`analysis/ceiling_drift.py`)."""
    found: dict[str, list[float]] = {}
    for run in results:
        for level in run.peak.ceilings():
            if level.own:  # what each run's own probes read
                found.setdefault(level.level, []).append(level.own / 1e9)
    return [
        f"ceiling {name + ':':<28}{min(rates):.1f}–{max(rates):.1f} GB/s "
        f"over {counted(len(rates), 'run')}"
        for name, rates in found.items()
    ]


def command_calibrate(args: argparse.Namespace) -> int:
    from engine.analysis.calibration import noise_floor
    from engine.cli.repetitions import run_repetitions
    from engine.storage.history import History
    from engine.storage.run_queue import RunQueue

    raw = raw_settings(args)
    raw.setdefault("strategies", calibration_strategies())
    config = BenchConfig.from_raw(raw)
    runs = RUNS.parse("runs", args.runs)
    history = History(args.history)
    args.no_history = False
    with RunQueue().turn():
        group_id, results = run_repetitions(config, runs, args, lambda t: print(t, file=sys.stderr))
    env = results[0].environment
    source = f"calibrated on {env.hostname} ({env.device_kind}) from {runs} runs, group {group_id}"
    try:
        floor = noise_floor(results, source)
    except ValueError as error:
        raise ResultsRejected(f"calibration: {error}") from None
    history.add_noise_floor(
        env.hostname or "", env.device_kind, floor, runs, group_id, config.to_dict()
    )
    print(
        f"between-run spread of log(median): {floor.between_run_log_sd:.3f} "
        f"(medians move about ±{(math.exp(1.96 * floor.between_run_log_sd) - 1):.0%} between runs)"
    )
    print(f"spread of within-run ratios:       {floor.ratio_log_sd:.3f}")
    for line in ceiling_spreads(results):
        print(line)
    print(f"stored for {env.hostname} ({env.device_kind}) in {history.name}; group {group_id}")
    return EXIT_OK

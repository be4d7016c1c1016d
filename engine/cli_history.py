"""CLI commands around the history: `sweep`, `import` and `history`."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any

from engine.config import CACHE_STATES, DTYPES, MODES

EXIT_OK, EXIT_INVALID = 0, 2


def add_history_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--history",
        default=None,
        help="SQLite history file (default: $MATVEC_HISTORY or the user data directory)",
    )


def add_shared_args(parser: argparse.ArgumentParser) -> None:
    """The settings `run` and `sweep` share, with the same names, defaults and help."""
    parser.add_argument(
        "--strategy",
        action="append",
        default=None,
        help="strategy name, repeatable, or 'all' (default batched_matvec)",
    )
    parser.add_argument("--replicas", default="1", help="replica devices (default 1)")
    parser.add_argument("--xla", action="store_true", help="add a +xla variant of graph strategies")
    parser.add_argument("--cache", default="warm", help=f"one of {', '.join(CACHE_STATES)}")
    parser.add_argument("--warmup", default="3", help="untimed warm-up calls (default 3)")
    parser.add_argument("--repeats", default="20", help="timed samples (default 20)")
    parser.add_argument("--seed", default="0", help="random seed for the inputs (default 0)")
    parser.add_argument(
        "--time-budget", default="60", help="seconds per strategy before sampling stops early"
    )
    parser.add_argument("--label", default="", help="free text stored with the run")
    parser.add_argument(
        "--progress",
        choices=("bar", "jsonl", "none"),
        default="bar",
        help="bar on stderr (default), jsonl events on stdout (for programs), none",
    )
    add_history_flag(parser)


def add_parsers(commands: Any) -> None:
    sweep = commands.add_parser("sweep", help="run a grid of configs, saving each point")
    sweep.add_argument("--matrices", required=True, help="comma-separated B values")
    sweep.add_argument("--dim", required=True, help="comma-separated m values")
    sweep.add_argument("--cols", default=None, help="comma-separated n values (default square)")
    sweep.add_argument("--dtype", default="float32", help=f"comma-separated: {', '.join(DTYPES)}")
    sweep.add_argument("--mode", default="single", help=f"comma-separated: {', '.join(MODES)}")
    sweep.add_argument("--json", dest="json_path", default=None, help="write all runs here")
    add_shared_args(sweep)

    imports = commands.add_parser("import", help="store results JSON files from elsewhere")
    imports.add_argument("files", nargs="+", help="results JSON written by `run --json`")
    add_history_flag(imports)

    history = commands.add_parser("history", help="list stored runs")
    history.add_argument("--device", default=None, help="only this device kind (CPU/GPU/TPU)")
    history.add_argument("--label", default=None, help="label contains this text")
    history.add_argument("--json", action="store_true", help="print JSON")
    add_history_flag(history)


def command_sweep(args: argparse.Namespace) -> int:
    from engine.history import History, best_of
    from engine.progress import JsonLinesProgress, SweepBarProgress, silent
    from engine.run_queue import RunQueue
    from engine.sweep import SweepSpec, run_sweep

    spec = SweepSpec.from_raw(
        {
            "matrices": args.matrices,
            "dim": args.dim,
            "cols": args.cols,
            "dtype": args.dtype,
            "mode": args.mode,
            "strategies": args.strategy or ["batched_matvec"],
            "replicas": args.replicas,
            "xla": args.xla,
            "cache": args.cache,
            "warmup": args.warmup,
            "repeats": args.repeats,
            "seed": args.seed,
            "time_budget_s": args.time_budget,
            "label": args.label,
        }
    )
    history = History(args.history)
    reporter: Any = {"bar": SweepBarProgress, "jsonl": JsonLinesProgress}.get(args.progress)
    progress = reporter() if reporter else silent
    with RunQueue().turn(on_wait=lambda p: progress({"event": "queued", "position": p})):
        outcome = run_sweep(spec, history, progress)
    runs = history.sweep_runs(outcome["sweep_id"])
    if args.json_path:
        payload = {
            "sweep_id": outcome["sweep_id"],
            "spec": spec.to_dict(),
            "runs": [r.to_dict() for r in runs],
        }
        with open(args.json_path, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=1)
    if args.progress == "jsonl":
        progress({"event": "result", **outcome})
        return EXIT_OK
    print(
        f"sweep {outcome['sweep_id']}: {outcome['points']} points, ran {outcome['ran']}, "
        f"{outcome['skipped_done']} already done, history {history.path}"
    )
    for line in outcome["refused"]:
        print(f"  refused {line}")
    for run in runs:
        variant, median = best_of(run)
        config = run.config
        shape = f"{config['matrices']}x{config['dim']}x{config['cols']} {config['dtype']}"
        best = f"{variant} {median * 1e3:.4g} ms" if median else "no correct result"
        print(f"  {config['mode']:<10} {shape:<28} fastest: {best}")
    return EXIT_OK


def command_import(args: argparse.Namespace) -> int:
    from engine.history import History
    from engine.validate import ImportRejected, read_results_file

    history = History(args.history)
    status = EXIT_OK
    for path in args.files:
        try:
            run = read_results_file(path)
        except ImportRejected as error:
            print(f"error: {path}: {error}", file=sys.stderr)
            status = EXIT_INVALID
            continue
        if history.add_run(run, source="import"):
            print(f"imported {path}: run {run.run_id}")
        else:
            print(f"{path}: run {run.run_id} is already stored")
    return status


def command_history(args: argparse.Namespace) -> int:
    from engine.history import DISPLAY_COLUMNS, History, RunFilter

    frame = History(args.history).list_runs(
        RunFilter(device_kind=args.device, label_contains=args.label)
    )
    if args.json:
        print(frame.to_json(orient="records", indent=1))
    elif frame.empty:
        print("no stored runs")
    else:
        with contextlib.suppress(Exception):
            frame["best_median_s"] = frame["best_median_s"].map(
                lambda v: f"{v * 1e3:.4g} ms" if v == v and v is not None else "-"
            )
        print(frame[list(DISPLAY_COLUMNS)].to_string(index=False))
    return EXIT_OK


COMMANDS = {"sweep": command_sweep, "import": command_import, "history": command_history}

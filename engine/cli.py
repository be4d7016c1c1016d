"""`python -m engine`: run, devices, strategies.

Exit codes (contract): 0 on success, even when a strategy failed (its status says so); 2 on
invalid input, with one line on stderr and no traceback; 1 on an unexpected internal error.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from engine import cli_history
from engine.catalog import STRATEGIES
from engine.config import DTYPES, MODES, BenchConfig, ConfigError
from engine.run_queue import RunQueue

EXIT_OK, EXIT_INTERNAL, EXIT_INVALID = 0, 1, 2


class UsageError(Exception):
    pass


class OneLineParser(argparse.ArgumentParser):
    """argparse prints usage plus a message; our contract is one line, exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="python -m engine", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    run = commands.add_parser("run", help="benchmark strategies and write results JSON")
    run.add_argument("--matrices", default="3000", help="B: number of matrices (default 3000)")
    run.add_argument("--dim", default="100", help="m: rows of each matrix (default 100)")
    run.add_argument("--cols", default=None, help="n: columns (default: dim, square)")
    run.add_argument("--dtype", default="float32", help=f"one of {', '.join(DTYPES)}")
    run.add_argument("--mode", default="single", help=f"one of {', '.join(MODES)}")
    run.add_argument("--dataset-batch", default="256", help="batch size of the dataset strategy")
    run.add_argument("--json", dest="json_path", default=None, help="write results JSON here")
    cli_history.add_shared_args(run)
    run.add_argument(
        "--no-queue",
        action="store_true",
        help="do not wait for other runs on this machine (their timings will disturb yours)",
    )

    run.add_argument("--no-history", action="store_true", help="do not store the run")
    cli_history.add_parsers(commands)

    devices = commands.add_parser("devices", help="show detected devices")
    devices.add_argument("--json", action="store_true", help="print JSON")
    strategies = commands.add_parser("strategies", help="list strategies")
    strategies.add_argument("--json", action="store_true", help="print JSON")
    return parser


def config_from_args(args: argparse.Namespace) -> BenchConfig:
    return BenchConfig.from_raw(
        {
            "matrices": args.matrices,
            "dim": args.dim,
            "cols": args.cols,
            "dtype": args.dtype,
            "strategies": args.strategy or ["batched_matvec"],
            "mode": args.mode,
            "replicas": args.replicas,
            "xla": args.xla,
            "cache": args.cache,
            "warmup": args.warmup,
            "repeats": args.repeats,
            "seed": args.seed,
            "time_budget_s": args.time_budget,
            "dataset_batch": args.dataset_batch,
            "label": args.label,
        }
    )


def quiet_tensorflow() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def command_run(args: argparse.Namespace) -> int:
    from engine import memory
    from engine.devices import probe_kind, worker_count

    config = config_from_args(args)
    if args.json_path:
        parent = Path(args.json_path).resolve().parent
        if not parent.is_dir():
            raise ConfigError("json", f"directory {str(parent)!r} does not exist")
    # Refuse impossible runs before TensorFlow is even imported.
    memory.preflight(config, probe_kind(), memory.last_level_cache_bytes()[0])
    quiet_tensorflow()
    from engine.progress import BarProgress, JsonLinesProgress, silent

    reporter: Any = {"bar": BarProgress, "jsonl": JsonLinesProgress}.get(args.progress)
    progress = reporter() if reporter else silent

    def waiting(position: int) -> None:
        progress({"event": "queued", "position": position})
        if args.progress == "bar":
            print(f"waiting for another run to finish (position {position})", file=sys.stderr)

    # Workers of one multi-worker run wait for each other: queueing them would deadlock.
    skip_queue = args.no_queue or worker_count() > 1
    queue = contextlib.nullcontext() if skip_queue else RunQueue().turn(on_wait=waiting)
    with queue:
        progress({"event": "phase", "phase": "starting TensorFlow"})
        from engine.runner import run_benchmark

        result = run_benchmark(config, progress=progress)
    if args.json_path:
        result.write_json(args.json_path)
    if not args.no_history:
        from engine.history import History

        History(args.history).add_run(result)
    from engine.formatting import summary_table

    if args.progress == "jsonl":
        progress({"event": "result", "json_path": args.json_path, "run_id": result.run_id})
    else:
        print(summary_table(result))
        if args.json_path:
            print(f"results written to {args.json_path}")
    return EXIT_OK


def command_devices(args: argparse.Namespace) -> int:
    quiet_tensorflow()
    from engine.devices import describe_devices

    info = describe_devices()
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        for key, value in info.items():
            print(f"{key:>18}: {value}")
    return EXIT_OK


def command_strategies(args: argparse.Namespace) -> int:
    rows = [
        {
            "name": s.name,
            "kind": s.kind,
            "xla": s.supports_xla,
            "distributable": s.distributable,
            "summary": s.summary,
        }
        for s in STRATEGIES
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(f"{row['name']:<16} {row['kind']:<6} {row['summary']}")
    return EXIT_OK


COMMANDS = {
    "run": command_run,
    "devices": command_devices,
    "strategies": command_strategies,
    **cli_history.COMMANDS,
}


def main(argv: Sequence[str] | None = None) -> int:
    from engine.devices import DeviceError
    from engine.memory import PreflightError

    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except (UsageError, ConfigError, PreflightError, DeviceError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        if os.environ.get("ENGINE_DEBUG"):
            raise
        print(f"internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INTERNAL

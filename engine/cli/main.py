"""`python -m engine`: run, devices, strategies, sweep, import, history.

Exit codes (contract): 0 on success, even when a strategy failed (its status says so); 2 on
invalid input, with one line on stderr and no traceback; 1 on an unexpected internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from engine.cli import history, run
from engine.cli.flags import add_config_flags
from engine.machine.accelerators import DeviceError
from engine.measure.memory import PreflightError
from engine.results.reader import ResultsRejected
from engine.spec.fields import ConfigError

EXIT_OK, EXIT_INTERNAL, EXIT_INVALID = 0, 1, 2


class UsageError(Exception):
    pass


class OneLineParser(argparse.ArgumentParser):
    """argparse prints usage plus a message; our contract is one line, exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def add_history_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--history",
        default=None,
        help="SQLite history file (default: $MATVEC_HISTORY or the user data directory)",
    )


def add_progress_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        choices=("bar", "jsonl", "none"),
        default="bar",
        help="bar on stderr (default), jsonl events on stdout (for programs), none",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="python -m engine", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    runs = commands.add_parser("run", help="benchmark strategies and write results JSON")
    add_config_flags(runs)
    runs.add_argument("--json", dest="json_path", default=None, help="write results JSON here")
    add_progress_flag(runs)
    add_history_flag(runs)
    runs.add_argument(
        "--no-queue",
        action="store_true",
        help="do not wait for other runs on this machine (their timings will disturb yours)",
    )
    runs.add_argument("--no-history", action="store_true", help="do not store the run")

    sweep = commands.add_parser("sweep", help="run a grid of configs, saving each point")
    add_config_flags(sweep, lists=True)
    sweep.add_argument("--json", dest="json_path", default=None, help="write all runs here")
    add_progress_flag(sweep)
    add_history_flag(sweep)

    imports = commands.add_parser("import", help="store results JSON files from elsewhere")
    imports.add_argument("files", nargs="+", help="results JSON written by `run --json`")
    add_history_flag(imports)

    listing = commands.add_parser("history", help="list stored runs")
    listing.add_argument("--device", default=None, help="only this device kind (CPU/GPU/TPU)")
    listing.add_argument("--label", default=None, help="label contains this text")
    listing.add_argument("--json", action="store_true", help="print JSON")
    add_history_flag(listing)

    devices = commands.add_parser("devices", help="show detected devices")
    devices.add_argument("--json", action="store_true", help="print JSON")
    strategies = commands.add_parser("strategies", help="list strategies")
    strategies.add_argument("--json", action="store_true", help="print JSON")
    return parser


COMMANDS = {
    "run": run.command_run,
    "devices": run.command_devices,
    "strategies": run.command_strategies,
    "sweep": history.command_sweep,
    "import": history.command_import,
    "history": history.command_history,
}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except (UsageError, ConfigError, PreflightError, DeviceError, ResultsRejected) as error:
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

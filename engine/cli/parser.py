"""The command line's parser: one function a command (`_add_<command>_parser`), flags from
the field table (`flags.py`), and argparse's errors as one line (`UsageError`, exit 2)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, NoReturn

from engine.cli import serve
from engine.cli.flags import add_config_flags

CHECKOUT_VERSION = "0.3.0"  # pyproject.toml's version (tests/test_project.py keeps them equal)


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
        help="the run history: an SQLite file, or a PostgreSQL URL for a team's store "
        "(postgresql://user@host/db; default: $MATVEC_HISTORY or the user data directory)",
    )


def add_progress_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        choices=("bar", "jsonl", "none"),
        default="bar",
        help="bar on stderr (default), jsonl events on stdout (for programs), none",
    )


def program_name() -> str:
    """`matvec-profiler` when started as the console command, else `python -m engine`."""
    called = os.path.basename(sys.argv[0]) if sys.argv else ""
    return "matvec-profiler" if called.startswith("matvec-profiler") else "python -m engine"


def package_version() -> str:
    """The installed package's version, else the one this checkout declares."""
    from importlib import metadata

    try:
        return metadata.version("batched-matvec-profiler")
    except metadata.PackageNotFoundError:
        return f"{CHECKOUT_VERSION} (from a checkout)"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=program_name(), description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    _add_run_parser(commands)
    _add_compare_parser(commands)
    _add_calibrate_parser(commands)
    _add_sweep_parser(commands)
    _add_import_parser(commands)
    _add_history_parser(commands)
    _add_listing_parser(commands)
    _add_serve_parser(commands)
    _add_dashboard_parser(commands)
    return parser


def _add_run_parser(commands: Any) -> None:
    """`run`: its settings, outputs and the flags that change where a run goes."""

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
    runs.add_argument(
        "--no-ceiling",
        action="store_true",
        help="do not probe the read bandwidth: no ceiling or roofline in the results, about a "
        "second sooner (the dashboard's first look while its worker starts)",
    )
    runs.add_argument(
        "--repetitions",
        default="1",
        help="repeat the whole measurement R times, each in a fresh process, stored as one "
        "group (--json then writes a group file); default 1",
    )
    runs.add_argument("--group-id", default=None, help=argparse.SUPPRESS)


def _add_compare_parser(commands: Any) -> None:
    """`compare`: the sides, the baseline, the gate and a rerun."""
    compare = commands.add_parser("compare", help="verdicts between runs, with intervals")
    compare.add_argument(
        "runs", nargs="+", help="results or group JSON files, or run/group ids from the history"
    )
    compare.add_argument("--baseline", default="0", help="index of the baseline side (default 0)")
    compare.add_argument(
        "--fail-if-slower",
        default=None,
        metavar="PCT",
        help="exit 1 when a variant is confirmed slower than the baseline by more than PCT%%",
    )
    compare.add_argument(
        "--rerun",
        default=None,
        metavar="N",
        help="measure every side again first, N runs each, alternated in fresh processes "
        "(pyperf's way), and compare those: no drift between windows, more power",
    )
    compare.add_argument(
        "--kernel",
        dest="kernels",
        action="append",
        metavar="PATH.py:FUNCTION",
        help="with --rerun: a kernel to measure again, from this file (its SHA-256 must match "
        "the stored one); a kernel a results file names is never imported from its path",
    )
    compare.add_argument("--json", dest="json_path", default=None, help="write the rows here")
    compare.add_argument(
        "--format",
        choices=("text", "markdown"),
        default="text",
        help="markdown: a table for a CI job's summary or a review comment",
    )
    add_history_flag(compare)


def _add_calibrate_parser(commands: Any) -> None:
    """`calibrate`: A/A repetitions of a config."""
    calibrate = commands.add_parser(
        "calibrate", help="measure this machine's noise floor from A/A repetitions"
    )
    add_config_flags(calibrate)
    calibrate.add_argument("--runs", default="5", help="repetitions in fresh processes (default 5)")
    add_history_flag(calibrate)


def _add_sweep_parser(commands: Any) -> None:
    """`sweep`: a config's flags, comma lists making axes."""
    sweep = commands.add_parser("sweep", help="run a grid of configs, saving each point")
    add_config_flags(sweep, lists=True)
    sweep.add_argument("--json", dest="json_path", default=None, help="write all runs here")
    sweep.add_argument(
        "--fill-gaps",
        default=None,
        metavar="K",
        help="run only the K points not yet stored whose prediction from the history says "
        "least (none made first, then the widest interval): the gaps a next question needs",
    )
    add_progress_flag(sweep)
    add_history_flag(sweep)


def _add_import_parser(commands: Any) -> None:
    """`import`: results files into the history."""
    imports = commands.add_parser("import", help="store results JSON files from elsewhere")
    imports.add_argument("files", nargs="+", help="results JSON written by `run --json`")
    add_history_flag(imports)


def _add_history_parser(commands: Any) -> None:
    """`history` and its views over time (`changes`, `publish`)."""
    listing = commands.add_parser("history", help="list stored runs")
    listing.add_argument("--device", default=None, help="only this device kind (CPU/GPU/TPU)")
    listing.add_argument("--label", default=None, help="label contains this text")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.add_argument(
        "--limit", default="10000", help="at most this many runs, newest first (default 10000)"
    )
    add_history_flag(listing)
    over_time = listing.add_subparsers(dest="history_view", metavar="{changes,publish,predictions}")
    changes = over_time.add_parser(
        "changes", help="steps over time per machine, problem and variant, with what changed"
    )
    changes.add_argument("--label", default=None, help="only runs whose label contains this")
    changes.add_argument("--json", action="store_true", help="print JSON")
    changes.add_argument(
        "--fail-if-slower",
        default=None,
        metavar="PCT",
        help="exit 1 when a series' latest step is a slowdown confirmed beyond PCT%%",
    )
    add_history_flag(changes)
    publish = over_time.add_parser(
        "publish", help="write the history over time as a static site (index and a page a series)"
    )
    publish.add_argument("folder", help="where the site goes (made if absent)")
    publish.add_argument("--label", default=None, help="only runs whose label contains this")
    add_history_flag(publish)
    predictions = over_time.add_parser(
        "predictions", help="per machine, how often the history's predicted winner was confirmed"
    )
    predictions.add_argument("--json", action="store_true", help="print JSON")
    add_history_flag(predictions)


def _add_listing_parser(commands: Any) -> None:
    """`devices` and `strategies`: what is here."""
    devices = commands.add_parser("devices", help="show detected devices")
    devices.add_argument("--json", action="store_true", help="print JSON")
    strategies = commands.add_parser("strategies", help="list strategies")
    strategies.add_argument("--json", action="store_true", help="print JSON")


def _add_serve_parser(commands: Any) -> None:
    """`serve`: the warm worker the dashboard keeps."""
    worker = commands.add_parser(
        "serve", help="a warm worker: one run request per line of stdin (used by the dashboard)"
    )
    worker.add_argument(
        "--idle-timeout",
        type=serve.idle_timeout,
        default=serve.DEFAULT_IDLE_TIMEOUT_S,
        help="end after this many seconds without a request (default %(default)g, at most a week)",
    )
    worker.add_argument(
        "--prewarm",
        action="store_true",
        help="on a CPU, set up the devices and probe buffers before the first request",
    )
    worker.add_argument("--replicas", type=int, default=1, help="the layout to prewarm")
    worker.add_argument("--threads", type=int, default=None, help="the threads to prewarm")
    worker.add_argument(
        "--expect",
        type=serve.expect_arguments,
        default=None,
        help="with --prewarm: the run flags (a JSON list) of the likely first request, whose "
        "inputs are then made before it comes",
    )


def _add_dashboard_parser(commands: Any) -> None:
    """`dashboard`: Streamlit, its flags passed on."""
    board = commands.add_parser("dashboard", help="start the Streamlit dashboard (localhost)")
    board.add_argument(
        "streamlit_args", nargs=argparse.REMAINDER, help="passed on to `streamlit run`"
    )

"""`matvec-profiler` (= `python -m engine`): measure, search, compare and store matvec ways.

Exit codes (contract): 0 on success, even when a strategy failed (its status says so), as long
as one variant produced a correct result; 3 when the run finished and none did (one line on
stderr says why); 2 on invalid input, with one line on stderr and no traceback; 1 on an
unexpected internal error or a measurement that could not be saved where asked; 130 when
interrupted (what was measured saved first).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from engine.catalogue.catalog import FrameworkMissing, declared_call, frameworks
from engine.cli import compare, dashboard, history, listing, run, serve
from engine.cli.exit_codes import EXIT_INTERRUPTED, STARTING_INTERRUPTED
from engine.cli.flags import add_config_flags, config_from_args
from engine.cli.repetitions import RepetitionFailed
from engine.cli.terminal import printable_output
from engine.machine.accelerators import DeviceError
from engine.machine.settings import check_environment
from engine.measure.memory import PreflightError
from engine.process.children import end_children_on_signals
from engine.process.parent_watch import die_with_parent, end_with_parent
from engine.results.reader import ResultsRejected
from engine.run_settings.config import BenchConfig, config_fields, flag_of
from engine.run_settings.fields import ConfigError

EXIT_OK, EXIT_INTERNAL, EXIT_INVALID = 0, 1, 2
EXIT_PIPE_CLOSED = 141  # as a shell reports a command ended by SIGPIPE
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

    calibrate = commands.add_parser(
        "calibrate", help="measure this machine's noise floor from A/A repetitions"
    )
    add_config_flags(calibrate)
    calibrate.add_argument("--runs", default="5", help="repetitions in fresh processes (default 5)")
    add_history_flag(calibrate)

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
    listing.add_argument(
        "--limit", default="10000", help="at most this many runs, newest first (default 10000)"
    )
    add_history_flag(listing)
    over_time = listing.add_subparsers(dest="history_view", metavar="{changes,publish}")
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

    devices = commands.add_parser("devices", help="show detected devices")
    devices.add_argument("--json", action="store_true", help="print JSON")
    strategies = commands.add_parser("strategies", help="list strategies")
    strategies.add_argument("--json", action="store_true", help="print JSON")

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

    board = commands.add_parser("dashboard", help="start the Streamlit dashboard (localhost)")
    board.add_argument(
        "streamlit_args", nargs=argparse.REMAINDER, help="passed on to `streamlit run`"
    )
    return parser


COMMANDS = {
    "run": run.command_run,
    "devices": listing.command_devices,
    "strategies": listing.command_strategies,
    "sweep": history.command_sweep,
    "import": history.command_import,
    "history": history.command_history,
    "compare": compare.command_compare,
    "calibrate": compare.command_calibrate,
    "dashboard": dashboard.command_dashboard,
}


def refuse_empty_values(args: argparse.Namespace) -> None:
    """An empty value is never a silent "off": `--fail-if-slower ''` (a CI line whose variable
    is unset) is refused like any other bad value, naming the flag."""
    flags = {item.name: flag_of(item) for item, _ in config_fields()}
    flags.update(json_path="--json", kernels="--kernel", runs="a run", files="a file")
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        if name != "streamlit_args" and any(isinstance(v, str) and not v.strip() for v in values):
            flag = flags.get(name, "--" + name.replace("_", "-"))
            raise UsageError(f"{flag}: is empty; give it a value or leave it out")


def parse_run(arguments: list[str]) -> BenchConfig:
    """The config of `run` with these flags, refused as the command would refuse them."""
    return config_from_args(build_parser().parse_args(["run", *arguments]))


def main(argv: Sequence[str] | None = None, warm: Any = None) -> int:
    """`warm`: the state `serve` keeps between its runs (None: a fresh process's run)."""
    with printable_output():
        return command_main(argv, warm)


def command_main(argv: Sequence[str] | None, warm: Any) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        check_environment()
        if argv[:1] == ["dashboard"] and not {"-h", "--help"} & set(argv[1:2]):
            # Everything after `dashboard` is Streamlit's (`--server.port 8502`), verbatim;
            # argparse would take a leading flag for one of its own and refuse it.
            extra = argv[2:] if argv[1:2] == ["--"] else argv[1:]
            return COMMANDS["dashboard"](argparse.Namespace(streamlit_args=extra))
        args = build_parser().parse_args(argv)
        refuse_empty_values(args)
        if args.command == "run":
            return run.command_run(args, warm)
        if args.command == "serve":
            return serve.command_serve(args, main, parse_run)
        return COMMANDS[args.command](args)
    except (
        UsageError,
        ConfigError,
        PreflightError,
        DeviceError,
        ResultsRejected,
        FrameworkMissing,
    ) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID
    except RepetitionFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`strategies | head`): nothing to say
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, sys.stdout.fileno())  # Python's own flush at exit must not fail too
        return EXIT_PIPE_CLOSED
    except Exception as error:
        if os.environ.get("ENGINE_DEBUG"):
            raise
        print(f"internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INTERNAL


def run_and_exit() -> NoReturn:
    """The console command and `python -m engine`: run `main`, then exit with its code.

    Once a framework whose teardown at exit is slow and has nothing left to do is loaded
    (TensorFlow's takes about a second: every file is written and closed, every process it
    started has ended), the process ends at once after flushing its output, having done what
    that teardown would have (its folder's `at_exit`: AutoGraph's generated sources removed).
    """
    try:
        die_with_parent()
        end_with_parent()
        end_children_on_signals()
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(EXIT_INVALID)
    except KeyboardInterrupt:  # before `main` took over: nothing was started or measured
        print(STARTING_INTERRUPTED, file=sys.stderr, flush=True)
        os._exit(EXIT_INTERRUPTED)
    code = main()
    loaded = [f for f in frameworks() if f.at_exit and f.module in sys.modules]
    if loaded:
        for framework in loaded:
            declared_call(framework.at_exit)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)

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
from engine.cli.flags import config_from_args
from engine.cli.parser import UsageError, build_parser
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

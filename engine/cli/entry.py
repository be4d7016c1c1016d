"""The first module of both front doors of the command: `matvec-profiler` (the console script
pip writes, which imports its target module before calling it) and `python -m engine`.

Ctrl-C from here on ends the command as an interrupted one (one line, exit 130). The CLI's
own modules take about 0.35 s to import (pandas, SciPy), and a SIGINT in that window came
out of the console script as a KeyboardInterrupt traceback (exit -2): its target was
`engine.cli.main` itself. So this module imports nothing of the CLI at its top but its two
constants, and the handler is installed before `engine.cli.main` is imported. While the CLI's
modules import, nothing has started, so the handler ends the process at once: a
KeyboardInterrupt raised there could be swallowed by a bare `except:` in a library being
imported, and the run went on measuring (seen in 1 of 15 and 1 of 30 runs interrupted 0.3-0.4
s after start). `run_and_exit` installs the command's own handler before anything starts.
Python's own start-up (its `site` module) comes before any of this."""

from __future__ import annotations

import os
import signal
from typing import NoReturn

from engine.cli.exit_codes import EXIT_INTERRUPTED, STARTING_INTERRUPTED


def interrupted_while_starting(_signum: int, _frame: object) -> None:
    os.write(2, STARTING_INTERRUPTED.encode() + b"\n")
    os._exit(EXIT_INTERRUPTED)


def command() -> NoReturn:
    """The console script's target: the start-up handler, then the CLI."""
    signal.signal(signal.SIGINT, interrupted_while_starting)
    from engine.cli.main import run_and_exit  # after the handler, on purpose

    run_and_exit()

"""Entry point for `python -m engine`.

Ctrl-C from the first instruction on ends the command as an interrupted one (one line, exit
130). While the CLI's modules import, nothing has started, so SIGINT ends the process at once
from its handler: a KeyboardInterrupt raised there could be swallowed by a bare `except:` in a
library being imported, and the run went on measuring (seen in 1 of 15 and 1 of 30 runs
interrupted 0.3-0.4 s after start, and by the suite's test of it). `run_and_exit` installs
the command's own handler before anything starts."""

import os
import signal

STARTING_INTERRUPTED = b"error: interrupted while starting; nothing was measured\n"


def interrupted_while_starting(_signum: int, _frame: object) -> None:
    os.write(2, STARTING_INTERRUPTED)
    os._exit(130)


signal.signal(signal.SIGINT, interrupted_while_starting)

from engine.cli.main import run_and_exit  # noqa: E402 - after the handler, on purpose

run_and_exit()

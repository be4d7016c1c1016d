"""Entry point for `python -m engine`.

Ctrl-C from the first instruction on ends the command as an interrupted one (one line, exit
130): a SIGINT while the CLI's modules import raised a bare KeyboardInterrupt traceback."""

import os
import sys

try:
    from engine.cli.main import run_and_exit
except KeyboardInterrupt:  # nothing started: end now, so no teardown can be interrupted too
    print("error: interrupted while starting; nothing was measured", file=sys.stderr, flush=True)
    os._exit(130)

run_and_exit()

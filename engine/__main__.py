"""Entry point for `python -m engine`."""

from engine.cli.main import run_and_exit

run_and_exit()

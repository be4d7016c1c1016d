"""Entry point for `python -m engine`: the same start as the console command
(`engine/cli/entry.py`), so Ctrl-C from the first instruction on ends it in one line."""

from engine.cli.entry import command

command()

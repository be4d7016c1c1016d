"""The interrupted command's exit code and start-up line, in a module that imports nothing:
the entry module reads them before any of the CLI is imported, the CLI after."""

EXIT_INTERRUPTED = 130  # as a shell reports SIGINT: what was measured is saved first
STARTING_INTERRUPTED = "error: interrupted while starting; nothing was measured"

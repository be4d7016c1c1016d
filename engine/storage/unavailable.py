"""A history that cannot be used, said in one line, whichever store it is."""

from __future__ import annotations

from pathlib import Path

from engine.machine.secrets import hidden, shown_url
from engine.run_settings.fields import ConfigError

HistoryLocation = Path | str  # an SQLite file, or a PostgreSQL URL (`postgres.is_database_url`)


class HistoryUnavailable(ConfigError):
    """The history cannot be read or written (a corrupt file, a directory, read-only, a full
    disk; a server that does not answer or refuses): one line naming it, for the CLI (exit 2)
    and the dashboard's pages."""

    def __init__(self, path: HistoryLocation, error: BaseException | str) -> None:
        """`path`: a file, or a store's URL (its password hidden here, in the name and in
        whatever the error quotes of it)."""
        if isinstance(error, str):
            reason = error
        else:
            reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
        reason = " ".join(reason.split())  # a server's message may span lines
        if isinstance(path, str):
            reason, path = hidden(reason, path), shown_url(path)
        super().__init__("history", f"{str(path)!r} cannot be used: {reason}")

"""Where a history is kept: one interface (`Store`), a kind per database, chosen once.

A store gives connections that take the history's statements as written (`?` placeholders,
`schema.py`'s dialect for what differs), names itself in one line a user may read (a password
hidden), and turns every error of its database into one `HistoryUnavailable` naming it. Two
kinds implement it: an SQLite file (`history_file.SqliteStore`, the default) and a PostgreSQL
server (`postgres.PostgresStore`, a team's). `open_store` is the one place a location becomes a
store: by its URL's scheme (`STORE_KINDS`), a location without one being a file.

Adding a kind (DuckDB, say): a class with `name`, `dialect`, `read_only` and `connect()` that
makes its tables on first open (a `Dialect` in `schema.py` spells its types), its schemes in
`STORE_KINDS`, and its errors wrapped in `HistoryUnavailable` inside `connect()`; nothing
outside `storage/` changes (docs/architecture.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from engine.storage.history_file import SqliteStore, default_location, located
from engine.storage.postgres import URL_SCHEMES, PostgresStore
from engine.storage.schema import SQLITE, Dialect, table_statements


class Store(Protocol):
    """What a history asks of the database it is kept in."""

    name: str  # as a user may read it: a path, or a URL with its password hidden
    dialect: Dialect
    read_only: bool

    def connect(self) -> AbstractContextManager[Any]:
        """A connection (DB-API: `execute`, `executemany`, cursors with `fetchone`,
        `fetchall`, `description`, `rowcount`); an error inside is `HistoryUnavailable`."""
        ...


class EmptyStore:
    """A store nothing was stored in yet, opened by a reader that may not write: the schema
    with nothing in it, in memory, so every query answers "none" and nothing is created."""

    dialect = SQLITE
    read_only = True

    def __init__(self, name: str) -> None:
        self.name = name

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(":memory:")
        try:
            for statement in table_statements(SQLITE):
                conn.execute(statement)
            yield conn
        finally:
            conn.close()


# A URL's scheme -> the kind of store it names; a location without a known scheme is a file.
STORE_KINDS: dict[str, Callable[[str, bool], Store]] = {
    scheme: PostgresStore for scheme in URL_SCHEMES
}


def open_store(path: str | Path | None = None, *, read_only: bool = False) -> Store:
    """The store at `path` (an SQLite file's path or a database URL; None: MATVEC_HISTORY,
    else the user data directory's file), made ready: its schema created or brought to this
    version, unless `read_only` (list and compare without writing; a store nothing was
    stored in then reads as empty)."""
    location = located(path) if path else default_location()
    if isinstance(location, str):
        opened = STORE_KINDS[location.partition("://")[0]](location, read_only)
        return EmptyStore(opened.name) if getattr(opened, "empty", False) else opened
    return SqliteStore(location, read_only)


def frame_of(cursor: Any) -> pd.DataFrame:
    """A query's rows as a table, the same from either database."""
    columns = [column[0] for column in cursor.description]
    return pd.DataFrame.from_records(cursor.fetchall(), columns=columns, coerce_float=True)

"""Where a history is kept and how it is reached: an SQLite file (the embedded default) or a
PostgreSQL server (a team's store), opened, brought to this version's schema, and connected
to with one interface, so every query in `history.py` is written once for both."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from engine.storage.history_file import (
    check_schema,
    connect,
    default_location,
    located,
)
from engine.storage.postgres import (
    check_store,
    connect_postgres,
    prepare_store,
    shown,
    store_version,
)
from engine.storage.schema import (
    POSTGRESQL,
    SCHEMA_VERSION,
    SQLITE,
    index_statements,
    table_statements,
)
from engine.storage.unavailable import HistoryUnavailable


@contextmanager
def empty_store() -> Iterator[sqlite3.Connection]:
    """The schema with nothing in it, in memory: what a reader of a store that has no
    tables yet reads (every query answers "none"), with nothing created on the server."""
    conn = sqlite3.connect(":memory:")
    try:
        for statement in table_statements(SQLITE):
            conn.execute(statement)
        yield conn
    finally:
        conn.close()


def frame_of(cursor: Any) -> pd.DataFrame:
    """A query's rows as a table, the same from either database."""
    columns = [column[0] for column in cursor.description]
    return pd.DataFrame.from_records(cursor.fetchall(), columns=columns, coerce_float=True)


class Store:
    def __init__(self, path: str | Path | None = None, *, read_only: bool = False) -> None:
        """`path`: an SQLite file, or a PostgreSQL URL (`postgresql://user@host/db`) for a
        team's store. `read_only`: list and compare an existing store without writing to it
        (a file without write permission, a colleague's copy); storing into it then fails."""
        location = located(path) if path else default_location()
        self.empty = False
        if isinstance(location, str):
            self.url: str | None = location
            self.path = Path()  # no file: `name` says where the store is
            self.name = shown(location)
            self.dialect = POSTGRESQL
            self.read_only = read_only
            with self._connect() as conn:
                if not read_only:
                    prepare_store(location, conn)
                    return
                version, columns = store_version(conn)
                check_store(location, version, columns)
            # A reader never writes: a store nothing was stored in yet reads as empty.
            self.empty, self.dialect = version == 0, SQLITE if version == 0 else POSTGRESQL
            return
        self.url, self.path, self.name, self.dialect = None, location, str(location), SQLITE
        self.read_only = read_only and self.path.is_file()
        if self.read_only:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise HistoryUnavailable(self.path.parent, error) from None
        with self._connect() as conn:
            check_schema(self.path, conn)  # never written into another program's database
            for statement in table_statements(SQLITE):
                conn.execute(statement)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
            if "group_id" not in columns:  # databases written before repetitions existed
                conn.execute("ALTER TABLE runs ADD COLUMN group_id TEXT")
            for statement in index_statements():
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _connect(self) -> AbstractContextManager[Any]:
        """A connection to either database; both take the statements below as written."""
        if self.empty:
            return empty_store()
        if self.url is not None:
            return connect_postgres(self.url, read_only=self.read_only)
        return connect(self.path, read_only=self.read_only)

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._connect() as conn:
            return list(conn.execute(sql, params).fetchall())

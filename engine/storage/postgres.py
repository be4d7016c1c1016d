"""A team's history on a PostgreSQL server, through psycopg 3 and the history's own schema.

Why psycopg and not SQLAlchemy with Alembic: the history is some twenty statements written
once with `?` placeholders (`schema.py` spells what differs between the two databases), its
migrations are a numbered list, and psycopg is one small dependency with a binary wheel;
SQLAlchemy Core and Alembic would add two libraries and a second way of writing each query
for no query this store needs. Migrations run in one transaction under an advisory lock, so
machines opening a new store at the same moment create it once.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from engine.machine.secrets import shown_url
from engine.machine.settings import seconds_from_environment
from engine.run_settings.fields import ConfigError
from engine.storage.schema import (
    POSTGRESQL,
    RUN_COLUMNS,
    SCHEMA_VERSION,
    added_columns,
    index_statements,
    table_statements,
)
from engine.storage.unavailable import HistoryUnavailable

URL_SCHEMES = ("postgresql", "postgres")
CONNECT_TIMEOUT_S = 10
# Every statement's wait, bounded (`PostgresConnection.deadline`), and said: past it the
# command says the store did not answer, and a run keeps its results in the fallback file.
STATEMENT_DEADLINE_S = 60.0
DEADLINE_VARIABLE = "MATVEC_STORE_TIMEOUT_S"
# TCP keepalives: a server or link that went away is found within about 25 s of silence.
CONNECTION_OPTIONS = {
    "connect_timeout": CONNECT_TIMEOUT_S,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}
LOCK_TIMEOUT = "30s"  # as SQLite's busy timeout: a writer waits this long for another, then says so
SCHEMA_LOCK = 0x6D617476  # pg_advisory_xact_lock key of this tool's migrations ("matv")
INSTALL_HINT = "a PostgreSQL history needs psycopg: pip install 'psycopg[binary]'"


def is_database_url(location: object) -> bool:
    """Whether a --history / MATVEC_HISTORY value names a PostgreSQL server, not a file."""
    text = str(location)
    return any(text.startswith(f"{scheme}://") for scheme in URL_SCHEMES)


def shown(url: str) -> str:
    """The URL as it may be printed: its password, however it is written, is `***`."""
    return shown_url(url)


def _psycopg() -> Any:
    try:
        return importlib.import_module("psycopg")
    except ImportError:
        raise ConfigError("history", INSTALL_HINT) from None


class StoreSilent(Exception):
    """The server took a statement and did not answer it within the deadline."""


class PostgresConnection:
    """A psycopg connection that takes the history's statements as written (`?`
    placeholders), so `history.py` has one text per query for both databases; every
    statement bounded by `deadline_s` (`deadline`)."""

    def __init__(self, conn: Any, deadline_s: float) -> None:
        self.conn = conn
        self.deadline_s = deadline_s
        self.silent = False  # cut once: every later statement (a ROLLBACK) says so at once

    @staticmethod
    def _spelled(sql: str, params: Sequence[Any]) -> str:
        return sql.replace("%", "%%").replace("?", "%s") if params else sql

    @contextmanager
    def deadline(self) -> Iterator[None]:
        """A statement the server has not answered in `deadline_s` is cut from this side:
        the connection's socket is shut, so the wait ends whatever the server (or a proxy
        in between) does, and `StoreSilent` says why. The server's own `statement_timeout`
        ends one that is merely slow there; this ends one that never comes back."""
        if self.silent:
            raise StoreSilent
        cut = threading.Event()

        def shut() -> None:
            cut.set()
            self.silent = True
            with contextlib.suppress(OSError, ValueError):
                descriptor = os.dup(self.conn.pgconn.socket)
                with socket.socket(fileno=descriptor) as sock:
                    sock.shutdown(socket.SHUT_RDWR)

        timer = threading.Timer(self.deadline_s, shut)
        timer.daemon = True
        timer.start()
        try:
            yield
        except Exception:
            if cut.is_set():
                raise StoreSilent from None
            raise
        finally:
            timer.cancel()
        if cut.is_set():  # answered, but only as it was being cut: the connection is gone
            raise StoreSilent

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        with self.deadline():
            return self.conn.execute(self._spelled(sql, params), tuple(params) or None)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        cursor = self.conn.cursor()
        if rows:
            with self.deadline():
                cursor.executemany(self._spelled(sql, rows[0]), [tuple(row) for row in rows])
        return cursor


@contextmanager
def connect_postgres(url: str, read_only: bool = False) -> Iterator[PostgresConnection]:
    """A connection in autocommit (each statement its own transaction unless `BEGIN` says
    otherwise); `read_only`: the server refuses any write. A server or SQL error becomes one
    `HistoryUnavailable` naming the store (its password hidden)."""
    psycopg = _psycopg()
    deadline_s = seconds_from_environment(DEADLINE_VARIABLE, STATEMENT_DEADLINE_S)
    try:
        conn = psycopg.connect(url, autocommit=True, **CONNECTION_OPTIONS)
    except psycopg.Error as error:
        raise HistoryUnavailable(url, error) from None
    connection = PostgresConnection(conn, deadline_s)
    try:
        connection.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
        connection.execute(f"SET statement_timeout = '{int(deadline_s * 1000)}ms'")
        if read_only:
            connection.execute("SET default_transaction_read_only = on")
        yield connection
    except StoreSilent:
        raise HistoryUnavailable(
            url, f"the server did not answer within {deadline_s:g} s ({DEADLINE_VARIABLE})"
        ) from None
    except psycopg.Error as error:
        raise HistoryUnavailable(url, error) from None
    finally:
        with contextlib.suppress(Exception):  # a cut connection may fail to close cleanly
            conn.close()


def store_version(conn: PostgresConnection) -> tuple[int, set[str]]:
    """The store's version (0: none yet) and the columns of its `runs` table, if any."""
    found = conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name IN (?, ?)",
        ("runs", "matvec_schema"),
    ).fetchall()
    tables = {table for table, _ in found}
    columns = {column for table, column in found if table == "runs"}
    version = 0
    if "matvec_schema" in tables:
        row = conn.execute("SELECT max(version) FROM matvec_schema").fetchone()
        version = row[0] or 0
    return version, columns


def check_store(url: str, version: int, columns: set[str]) -> None:
    """Refuse a newer version's store, or a `runs` table another program made."""
    if version > SCHEMA_VERSION:
        raise ConfigError(
            "history",
            f"{shown(url)!r} was written by a newer matvec-profiler (store version {version}; "
            f"this one reads {SCHEMA_VERSION}): upgrade, or give another --history",
        )
    if columns and not columns >= RUN_COLUMNS:
        raise ConfigError(
            "history",
            f"{shown(url)!r} has a table `runs` of another program, not a matvec-profiler "
            "history: give another database or schema (--history or MATVEC_HISTORY)",
        )


# The numbered migrations: version -> its statements. Version 1 is the whole schema; a later
# version appends its ALTERs here and raises SCHEMA_VERSION.
MIGRATIONS: dict[int, list[str]] = {
    1: table_statements(POSTGRESQL) + index_statements(),
    # a version-1 store's runs get the prediction's outcome (one made at version 1 has them)
    2: [s.replace("ADD COLUMN", "ADD COLUMN IF NOT EXISTS") for s in added_columns(POSTGRESQL, 1)],
}


def prepare_store(url: str, conn: PostgresConnection) -> None:
    """Bring the store to this version: one transaction under the migrations' advisory lock,
    so two machines opening a new store at once create it once, and a killed migration
    leaves nothing half-made."""
    version, columns = store_version(conn)
    check_store(url, version, columns)
    if version == SCHEMA_VERSION:
        return
    conn.execute("BEGIN")
    try:
        conn.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))
        version, columns = store_version(conn)  # another machine may have just made it
        check_store(url, version, columns)
        conn.execute("CREATE TABLE IF NOT EXISTS matvec_schema (version INTEGER NOT NULL)")
        for step in sorted(v for v in MIGRATIONS if v > version):
            for statement in MIGRATIONS[step]:
                conn.execute(statement)
            conn.execute("INSERT INTO matvec_schema (version) VALUES (?)", (step,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def check_postgres(url: str, *, writable: bool) -> str:
    """Before any work: the server answers, and its store is this tool's (made now where it
    is empty and `writable`); exit 2 naming --history otherwise."""
    with connect_postgres(url, read_only=not writable) as conn:
        if writable:
            prepare_store(url, conn)
        else:
            check_store(url, *store_version(conn))
    return url


class PostgresStore:
    """A team's history on a PostgreSQL server (`store.Store`): made or migrated when a
    writer opens it; a reader only checks it is this tool's, and finds whether it is `empty`
    (no tables yet: `store.open_store` then reads it as an empty store, creating nothing)."""

    dialect = POSTGRESQL

    def __init__(self, url: str, read_only: bool = False) -> None:
        self.url, self.read_only, self.name = url, read_only, shown(url)
        self.empty = False
        with self.connect() as conn:
            if not read_only:
                prepare_store(url, conn)
                return
            version, columns = store_version(conn)
            check_store(url, version, columns)
        self.empty = version == 0

    def connect(self) -> AbstractContextManager[PostgresConnection]:
        return connect_postgres(self.url, read_only=self.read_only)

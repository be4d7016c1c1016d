"""A team's history on a PostgreSQL server, through psycopg 3 and the history's own schema.

Why psycopg and not SQLAlchemy with Alembic: the history is some twenty statements written
once with `?` placeholders (`schema.py` spells what differs between the two databases), its
migrations are a numbered list, and psycopg is one small dependency with a binary wheel;
SQLAlchemy Core and Alembic would add two libraries and a second way of writing each query
for no query this store needs. Migrations run in one transaction under an advisory lock, so
machines opening a new store at the same moment create it once.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from engine.run_settings.fields import ConfigError
from engine.storage.schema import (
    POSTGRESQL,
    RUN_COLUMNS,
    SCHEMA_VERSION,
    index_statements,
    table_statements,
)
from engine.storage.unavailable import HistoryUnavailable

URL_SCHEMES = ("postgresql", "postgres")
CONNECT_TIMEOUT_S = 10
LOCK_TIMEOUT = "30s"  # as SQLite's busy timeout: a writer waits this long for another, then says so
SCHEMA_LOCK = 0x6D617476  # pg_advisory_xact_lock key of this tool's migrations ("matv")
INSTALL_HINT = "a PostgreSQL history needs psycopg: pip install 'psycopg[binary]'"


def is_database_url(location: object) -> bool:
    """Whether a --history / MATVEC_HISTORY value names a PostgreSQL server, not a file."""
    text = str(location)
    return any(text.startswith(f"{scheme}://") for scheme in URL_SCHEMES)


def shown(url: str) -> str:
    """The URL as it may be printed: a password (in the address or as a parameter) is `***`."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}:***@{host}"
    query = urlencode(
        [(k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query)], safe="/"
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _psycopg() -> Any:
    try:
        return importlib.import_module("psycopg")
    except ImportError:
        raise ConfigError("history", INSTALL_HINT) from None


class PostgresConnection:
    """A psycopg connection that takes the history's statements as written (`?`
    placeholders), so `history.py` has one text per query for both databases."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    @staticmethod
    def _spelled(sql: str, params: Sequence[Any]) -> str:
        return sql.replace("%", "%%").replace("?", "%s") if params else sql

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(self._spelled(sql, params), tuple(params) or None)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        cursor = self.conn.cursor()
        if rows:
            cursor.executemany(self._spelled(sql, rows[0]), [tuple(row) for row in rows])
        return cursor


@contextmanager
def connect_postgres(url: str, read_only: bool = False) -> Iterator[PostgresConnection]:
    """A connection in autocommit (each statement its own transaction unless `BEGIN` says
    otherwise); `read_only`: the server refuses any write. A server or SQL error becomes one
    `HistoryUnavailable` naming the store (its password hidden)."""
    psycopg = _psycopg()
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as error:
        raise HistoryUnavailable(shown(url), error) from None
    try:
        conn.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
        if read_only:
            conn.execute("SET default_transaction_read_only = on")
        yield PostgresConnection(conn)
    except psycopg.Error as error:
        raise HistoryUnavailable(shown(url), error) from None
    finally:
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
MIGRATIONS: dict[int, list[str]] = {1: table_statements(POSTGRESQL) + index_statements()}


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

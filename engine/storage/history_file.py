"""The history's location: where it lives (an SQLite file, or a PostgreSQL URL), whether it
can be used, and a connection to the file.

Checked before any work (`check_history_path`, exit 2 naming `--history`); every database or
file error later becomes one `HistoryUnavailable` line, for the CLI and the dashboard alike.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import platformdirs

from engine.results.files import check_output_file
from engine.run_settings.fields import ConfigError
from engine.storage.postgres import check_postgres, is_database_url
from engine.storage.schema import (
    RUN_COLUMNS,
    SCHEMA_VERSION,
    SQLITE,
    added_columns,
    index_statements,
    table_statements,
)
from engine.storage.unavailable import HistoryLocation, HistoryUnavailable

HISTORY_VARIABLE = "MATVEC_HISTORY"
BUSY_TIMEOUT_MS = 30_000


def located(location: str | Path) -> HistoryLocation:
    """A --history / MATVEC_HISTORY value as the store it names: a database URL as it is,
    anything else a file's path."""
    return str(location) if is_database_url(location) else Path(location)


def default_location() -> HistoryLocation:
    """$MATVEC_HISTORY (a file or a PostgreSQL URL), else the user data directory's file."""
    configured = os.environ.get(HISTORY_VARIABLE)
    if configured:
        return located(configured)
    return Path(platformdirs.user_data_dir("matvec-profiler")) / "history.sqlite3"


SQLITE_HEADER = b"SQLite format 3\x00"


def read_only_uri(path: Path) -> str:
    """An SQLite URI that opens `path` read-only, whatever its name holds: `%`, `#` and `?`
    are percent-encoded (`as_uri`), never read as URI syntax. A WAL database needs its -shm
    file to be read; where it is missing and cannot be made (a read-only folder), the file is
    read as immutable (no other writer can be there anyway)."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    shared = path.with_name(path.name + "-shm")
    if path.exists() and not shared.exists() and not os.access(path.parent, os.W_OK):
        uri += "&immutable=1"
    return uri


def check_history_readable(path: str | Path | None) -> HistoryLocation:
    """Refuse, before any work, a history that cannot be read (exit 2 naming --history): a
    directory, a file that is not SQLite, a corrupt one, a server that does not answer. A
    read-only file is fine: listing and comparing write nothing."""
    target = located(path) if path else default_location()
    if isinstance(target, str):
        return check_postgres(target, writable=False)
    if not target.exists():
        return target
    if target.is_dir():
        raise ConfigError("history", f"{str(target)!r} is a directory; give a file name")
    if not target.is_file():
        raise ConfigError("history", f"{str(target)!r} is not a regular file")
    _check_database(target)
    return target


def _check_database(target: Path) -> None:
    """An existing file: SQLite's header, then a quick check through a read-only open."""
    try:
        with open(target, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as error:
        raise ConfigError("history", f"{str(target)!r} cannot be read: {error.strerror}") from None
    if header and header != SQLITE_HEADER:
        raise ConfigError("history", f"{str(target)!r} is not an SQLite database")
    try:
        conn = sqlite3.connect(read_only_uri(target), uri=True, timeout=5)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            if verdict == "ok":
                check_schema(target, conn)
        finally:
            conn.close()
    except sqlite3.Error as error:
        raise ConfigError("history", f"{str(target)!r} cannot be read: {error}") from None
    if verdict != "ok":
        raise ConfigError("history", f"{str(target)!r} is corrupt: {verdict}")


def check_history_path(path: str | Path | None) -> HistoryLocation:
    """Refuse, before any work, a history that cannot take a run (exit 2 naming --history):
    a directory, a file that is not SQLite, a corrupt or read-only database, a place where
    none can be created, a server that does not answer or holds another program's tables."""
    target = located(path) if path else default_location()
    if isinstance(target, str):
        return check_postgres(target, writable=True)
    if target.exists() and target.is_dir():
        raise ConfigError("history", f"{str(target)!r} is a directory; give a file name")
    if not target.exists():
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(
                "history", f"cannot create {str(target.parent)!r}: {error.strerror}"
            ) from None
        check_output_file("history", target)
        return target
    if not target.is_file():
        raise ConfigError("history", f"{str(target)!r} is not a regular file")
    if not target.stat().st_mode & 0o222 or not os.access(target, os.W_OK):
        raise ConfigError("history", f"{str(target)!r} is read-only")
    _check_database(target)
    return target


def check_schema(target: Path, conn: sqlite3.Connection) -> None:
    """Refuse a database another program wrote, or a newer version of this tool, before any
    work, naming what was found and what to do (an empty database is a new store)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    columns = {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
    if version > SCHEMA_VERSION:
        raise ConfigError(
            "history",
            f"{str(target)!r} was written by a newer matvec-profiler (store version {version}; "
            f"this one reads {SCHEMA_VERSION}): upgrade, or give another --history",
        )
    if tables and ("runs" not in tables or not columns >= RUN_COLUMNS):
        found = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "")
        raise ConfigError(
            "history",
            f"{str(target)!r} is an SQLite database of another program (tables: {found}), not a "
            "matvec-profiler history: give another --history (or MATVEC_HISTORY)",
        )


@contextmanager
def connect(path: Path, read_only: bool = False) -> Iterator[sqlite3.Connection]:
    """A connection in WAL mode (read-only: opened so, changing nothing); any database or
    file error inside becomes one `HistoryUnavailable`. The path is a name, never URI syntax
    (`sqlite3.connect` takes a plain path as it is)."""
    try:
        if read_only:
            conn = sqlite3.connect(
                read_only_uri(path), uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
            )
        else:
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except (sqlite3.Error, OSError) as error:
        raise HistoryUnavailable(path, error) from None
    try:
        if read_only:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            yield conn
            return
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA synchronous=NORMAL")
        yield conn
    except (sqlite3.Error, OSError) as error:  # every database error: one line naming it
        raise HistoryUnavailable(path, error) from None
    finally:
        conn.close()


class SqliteStore:
    """A history in an SQLite file (`store.Store`), the default: made, or brought to this
    version, when a writer opens it; a `read_only` one (a file without write permission, a
    colleague's copy) is only read, and storing into it fails."""

    dialect = SQLITE

    def __init__(self, path: Path, read_only: bool = False) -> None:
        self.path, self.name = path, str(path)
        self.read_only = read_only and path.is_file()
        if self.read_only:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise HistoryUnavailable(path.parent, error) from None
        with self.connect() as conn:
            check_schema(path, conn)  # never written into another program's database
            for statement in table_statements(SQLITE):
                conn.execute(statement)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
            if "group_id" not in columns:  # databases written before repetitions existed
                conn.execute("ALTER TABLE runs ADD COLUMN group_id TEXT")
            for statement in added_columns(SQLITE, 1):
                if statement.split()[5] not in columns:  # its column's name
                    conn.execute(statement)
            for statement in index_statements():
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def connect(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path, read_only=self.read_only)

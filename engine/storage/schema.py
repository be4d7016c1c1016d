"""The history's one schema, written once and rendered for each database that can hold it.

SQLite (the embedded default) and PostgreSQL (a team's store) hold the same tables and
columns; what differs is spelled here and only here: the column types, how "now" is written,
the key that orders rows as they were stored (SQLite's `rowid`, PostgreSQL's `seq`), how a
transaction that will write begins, how a duplicate row is ignored and how a label is
searched. Every statement in `history.py` is written once with `?` placeholders.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA_VERSION = 2  # the store version this code writes (SQLite's user_version, PostgreSQL's
# matvec_schema table); a store of a newer version is refused before any work

# The columns a store's `runs` table must have to be this tool's (not another program's).
RUN_COLUMNS = frozenset({"run_id", "created_at", "payload", "hostname", "device_kind"})


@dataclass(frozen=True)
class Dialect:
    name: str
    text: str
    integer: str
    real: str
    payload: str
    now: str  # an SQL expression: the current UTC time as ISO 8601 ("2026-12-04T10:00:00Z")
    order_key: str  # rows in the order they were stored
    order_column: str  # the column that key needs ("" where the database has one already)
    begin: str  # starts a transaction that will write
    contains_function: str  # (haystack, needle) -> position, 0 when absent

    def insert(self, table: str, columns: tuple[str, ...], *, ignore_duplicate: bool) -> str:
        """An INSERT of one row of `columns`; `ignore_duplicate`: a row whose key is stored
        already is skipped, not an error (the cursor's rowcount then says 0)."""
        names = ", ".join(columns)
        marks = ", ".join("?" for _ in columns)
        if not ignore_duplicate:
            return f"INSERT INTO {table} ({names}) VALUES ({marks})"
        if self.name == "sqlite":
            return f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({marks})"
        return f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT DO NOTHING"

    def contains(self, column: str) -> str:
        """A case-insensitive substring test of `column` against one parameter (never LIKE:
        a `%` or `_` in the user's text is a character, not a pattern)."""
        return f"{self.contains_function}(lower({column}), lower(?)) > 0"


SQLITE = Dialect(
    name="sqlite",
    text="TEXT",
    integer="INTEGER",
    real="REAL",
    payload="BLOB",
    now="(strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
    order_key="rowid",
    order_column="",
    begin="BEGIN IMMEDIATE",
    contains_function="instr",
)
POSTGRESQL = Dialect(
    name="postgresql",
    text="TEXT",
    integer="BIGINT",
    real="DOUBLE PRECISION",
    payload="BYTEA",
    now="""(to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))""",
    order_key="seq",
    order_column="seq BIGSERIAL",
    begin="BEGIN",
    contains_function="strpos",
)

# (table, columns as (name, kind, constraint)), kind one of text, integer, real, payload;
# a table marked ordered gets the dialect's order column.
TABLES: tuple[tuple[str, bool, tuple[tuple[str, str, str], ...]], ...] = (
    (
        "runs",
        True,
        (
            ("run_id", "text", "PRIMARY KEY"),
            ("created_at", "text", "NOT NULL"),
            ("stored_at", "text", "NOT NULL DEFAULT {now}"),
            ("label", "text", "NOT NULL DEFAULT ''"),
            ("device_kind", "text", ""),
            ("hostname", "text", ""),
            ("devices", "text", ""),
            ("matrices", "integer", ""),
            ("dim", "integer", ""),
            ("cols", "integer", ""),
            ("dtype", "text", ""),
            ("mode", "text", ""),
            ("replicas", "integer", ""),
            ("cache", "text", ""),
            ("strategies", "integer", ""),
            ("best_variant", "text", ""),
            ("best_median_s", "real", ""),
            ("peak_bytes_per_s", "real", ""),
            ("sweep_id", "text", ""),
            ("point_key", "text", ""),
            ("source", "text", "NOT NULL DEFAULT 'local'"),
            ("payload", "payload", "NOT NULL"),
            ("group_id", "text", ""),
            # how the run's prediction fared (analysis/prediction.py): 1 confirmed, 0 not,
            # NULL none made; and its time error, |log(predicted / measured)| of the winner
            ("prediction_confirmed", "integer", ""),
            ("prediction_error", "real", ""),
        ),
    ),
    (
        "noise_floors",
        True,
        (
            ("hostname", "text", "NOT NULL"),
            ("device_kind", "text", "NOT NULL"),
            ("created_at", "text", "NOT NULL"),
            ("between_run_log_sd", "real", "NOT NULL"),
            ("ratio_log_sd", "real", "NOT NULL"),
            ("runs", "integer", "NOT NULL"),
            ("group_id", "text", ""),
            ("config", "text", "NOT NULL"),
        ),
    ),
    (
        "ceilings",
        False,
        (
            ("run_id", "text", "NOT NULL"),
            ("hostname", "text", "NOT NULL"),
            ("device_kind", "text", "NOT NULL"),
            ("created_at", "text", "NOT NULL"),
            ("level", "text", "NOT NULL"),
            ("bytes", "integer", ""),
            ("bandwidth_bytes_per_s", "real", "NOT NULL"),
        ),
    ),
    (
        "sweeps",
        False,
        (
            ("sweep_id", "text", "PRIMARY KEY"),
            ("created_at", "text", "NOT NULL"),
            ("label", "text", "NOT NULL DEFAULT ''"),
            ("spec", "text", "NOT NULL"),
            ("points", "integer", "NOT NULL"),
        ),
    ),
)
INDEXES = (
    ("runs_created", "runs", "created_at"),
    ("runs_device", "runs", "device_kind"),
    ("runs_sweep", "runs", "sweep_id, point_key"),
    ("runs_group", "runs", "group_id"),
    ("floors_host", "noise_floors", "hostname, device_kind, created_at"),
    ("ceilings_host", "ceilings", "hostname, device_kind, created_at"),
)


def table_statements(dialect: Dialect) -> list[str]:
    """The schema's CREATE TABLE statements for `dialect`, each idempotent (IF NOT EXISTS)."""
    created = []
    for table, ordered, columns in TABLES:
        lines = [dialect.order_column] if ordered and dialect.order_column else []
        for name, kind, constraint in columns:
            spelled = constraint.format(now=dialect.now)
            lines.append(f"{name} {getattr(dialect, kind)} {spelled}".rstrip())
        body = ",\n    ".join(lines)
        created.append(f"CREATE TABLE IF NOT EXISTS {table} (\n    {body}\n)")
    return created


def index_statements() -> list[str]:
    """The schema's indexes (the same words in both dialects), each idempotent; made after
    any column they need was added to a store of an older version."""
    return [
        f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({columns})"
        for name, table, columns in INDEXES
    ]


# Columns added to `runs` after the first version, with the version that added them: a store
# of an older version gets them (`ALTER TABLE ... ADD COLUMN`) when a writer opens it.
ADDED_RUN_COLUMNS: tuple[tuple[int, str, str], ...] = (
    (2, "prediction_confirmed", "integer"),
    (2, "prediction_error", "real"),
)


def added_columns(dialect: Dialect, version: int) -> list[str]:
    """The ALTER statements that bring a version-`version` store's `runs` to this one."""
    return [
        f"ALTER TABLE runs ADD COLUMN {name} {getattr(dialect, kind)}"
        for since, name, kind in ADDED_RUN_COLUMNS
        if since > version
    ]

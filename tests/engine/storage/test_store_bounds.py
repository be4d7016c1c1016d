"""A team store bounded whatever it does: a server that goes silent mid-statement, a password
of any shape, an empty store read by a reader that may not write. Real PostgreSQL, and a
proxy in front of it that stops answering when a chosen statement passes."""

from __future__ import annotations

import contextlib
import os
import select
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.machine.secrets import hidden, shown_url
from engine.storage.unavailable import HistoryUnavailable
from tests.conftest import ROOT

SOCKET = ".s.PGSQL.5432"


class StallingProxy:
    """A Unix-socket proxy to the test server that forwards both ways until the client sends
    `stall_on`; from then on it reads and forwards nothing, holding the connection open (a
    server, or a link, gone silent)."""

    def __init__(self, server_folder: str, stall_on: bytes) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="matvec-proxy-"))
        self.target = str(Path(server_folder) / SOCKET)
        self.stall_on = stall_on
        self.stalled = threading.Event()
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(str(self.folder / SOCKET))
        self.listener.listen(16)
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, database_url: str) -> str:
        return database_url.replace(f"host={Path(self.target).parent}", f"host={self.folder}")

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX)
            server.connect(self.target)
            self.held += [client, server]
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while not self.stalled.is_set():
                ready, _, _ = select.select([client, server], [], [], 0.2)
                for source in ready:
                    data = source.recv(65536)
                    if not data:
                        return
                    if source is client and self.stall_on in data:
                        self.stalled.set()  # swallowed: the server never sees it
                        break
                    (server if source is client else client).sendall(data)

    def close(self) -> None:
        self.listener.close()
        for held in self.held:
            with contextlib.suppress(OSError):
                held.close()


@contextlib.contextmanager
def stalling(postgres_server, database_url: str, stall_on: bytes) -> Iterator[StallingProxy]:
    proxy = StallingProxy(str(postgres_server.folder), stall_on)
    try:
        yield proxy
    finally:
        proxy.close()


def engine(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # a safety net only: the store's own deadline must end it long before
        env={**os.environ, **env},
    )


def test_a_store_silent_at_insert_costs_its_deadline_and_the_run_is_kept(
    postgres_server, postgres_url, tmp_path
):
    """Measured, then the server stops answering at `INSERT INTO runs`: the run waits out the
    store's deadline (MATVEC_STORE_TIMEOUT_S), says the store did not answer, and keeps its
    results in the fallback file (it held the command 200 s, until an outside SIGTERM)."""
    with stalling(postgres_server, postgres_url, b"INSERT INTO runs") as proxy:
        url = proxy.url(postgres_url)
        env = {"MATVEC_STORE_TIMEOUT_S": "3", "XDG_DATA_HOME": str(tmp_path / "data")}
        args = ("--matrices", "16", "--dim", "4", "--strategy", "numpy", "--repeats", "3")
        done = engine("run", *args, "--history", url, "--progress", "none", env=env)
        assert proxy.stalled.is_set()
    assert done.returncode == 1, done.stderr
    assert "did not answer within 3 s (MATVEC_STORE_TIMEOUT_S)" in done.stderr
    kept = next(line for line in done.stderr.splitlines() if "the measurement is kept in" in line)
    assert Path(kept.rsplit(" ", 1)[-1]).is_file()


def test_a_store_silent_at_its_first_select_ends_history_in_one_line(postgres_server, postgres_url):
    from engine.storage.history import History

    History(postgres_url)  # the store exists; its reader then meets the silence
    with stalling(postgres_server, postgres_url, b"FROM runs") as proxy:
        url = proxy.url(postgres_url)
        done = engine("history", "--history", url, env={"MATVEC_STORE_TIMEOUT_S": "2"})
        assert proxy.stalled.is_set()
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .endswith("did not answer within 2 s (MATVEC_STORE_TIMEOUT_S)")
    ), done.stderr
    assert "Traceback" not in done.stderr


PASSWORDS = ("Top/Secret", "Top#Secret", "Top?Secret", "Top Secret", "Top%zzSecret", "p@ss:w0rd")


@pytest.mark.parametrize("password", PASSWORDS)
def test_a_password_of_any_shape_is_never_printed(password, tmp_path):
    """Unencoded `/`, `#`, `?`, a space, a malformed `%` escape, an `@`: a URL parser gives
    up on each and a library quotes what it could not parse; the password never shows."""
    for url in (
        f"postgresql://bob:{password}@127.0.0.1:1/matvec",
        f"postgresql://bob@127.0.0.1:1/matvec?password={password}",
    ):
        assert password not in shown_url(url)
        done = engine("history", "--history", url, env={})
        assert done.returncode == 2, done.stderr
        assert password not in done.stderr and "Traceback" not in done.stderr
        assert "***" in done.stderr.splitlines()[-1], done.stderr
        said = str(HistoryUnavailable(url, ValueError(f'invalid token: "{password}"')))
        assert password not in said and "***" in said
    assert hidden(f"at {password}!", f"postgresql://u:{password}@h/d") == "at ***!"


def test_a_readers_commands_on_a_new_empty_store_read_no_runs_and_create_nothing(
    postgres_url, tmp_path
):
    """`history`, `history changes` and `compare A B` only read: on a store nothing was
    stored in yet they say "no stored runs" (or compare the files), and the database is left
    as it was, without a table (they said "cannot execute CREATE TABLE in a read-only
    transaction")."""
    import psycopg

    from tests.factories import make_run

    for name in ("a.json", "b.json"):
        make_run().write_json(tmp_path / name)
    listed = engine("history", "--history", postgres_url, env={})
    assert (listed.returncode, listed.stdout.strip()) == (0, "no stored runs"), listed.stderr
    changes = engine("history", "changes", "--history", postgres_url, env={})
    assert (changes.returncode, changes.stdout.strip()) == (0, "no stored runs"), changes.stderr
    files = (str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    compared = engine("compare", *files, "--history", postgres_url, env={})
    assert compared.returncode == 0, compared.stderr
    with psycopg.connect(postgres_url) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()[0]
    assert tables == 0

"""A real PostgreSQL server for the tests: Debian's binaries, a fresh cluster in a temporary
folder, run as a user that is not root (PostgreSQL refuses root), reached only through a Unix
socket in that folder (no port to collide with another test session), and ended with the
process that started it (a parent-death signal), so a killed test run leaves no server.

Where the server cannot be had (no binaries, no psycopg, no user to run it as) the tests that
need it skip with the reason; with MATVEC_REQUIRE_POSTGRES=1 (set by `.ci/run`) they fail.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

REQUIRED = os.environ.get("MATVEC_REQUIRE_POSTGRES") == "1"
SERVER_USER = "postgres"  # Debian's package makes this user; used only when the tests run as root
PR_SET_PDEATHSIG = 1
INITDB_OPTIONS = ["-E", "UTF8", "--no-locale", "--no-sync"]
# Unix socket only (no TCP port), and no fsync: a test's cluster is thrown away with it.
SERVER_OPTIONS = ["-c", "listen_addresses=", "-c", "fsync=off", "-c", "max_connections=100"]


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian keeps it off PATH)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name),
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def missing() -> str | None:
    """Why no server can be started here, or None."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -r requirements.txt)"
    if binaries() is None:
        return "no PostgreSQL server binaries (Debian: apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SERVER_USER)
        except KeyError:
            return f"running as root and no {SERVER_USER!r} user to run the server as"
    return None


class PostgresServer:
    """One cluster for a test session; `database()` makes a fresh, empty database a test."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="matvec-pg-"))
        self.bin = binaries()
        assert self.bin is not None
        self.account = pwd.getpwnam(SERVER_USER) if os.geteuid() == 0 else None
        if self.account is not None:  # the folder is ours: the server's user may write in it
            os.chown(self.folder, self.account.pw_uid, self.account.pw_gid)
        self.data = self.folder / "data"
        self.process: subprocess.Popen[bytes] | None = None

    def _as_server_user(self) -> None:
        """In the child before exec: drop root, then ask for SIGTERM when the parent dies
        (a change of user clears that request, so it comes after)."""
        if self.account is not None:
            os.setgroups([])
            os.setgid(self.account.pw_gid)
            os.setuid(self.account.pw_uid)
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

    def start(self) -> None:
        subprocess.run(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-A",
                "trust",
                "-U",
                "postgres",
                *INITDB_OPTIONS,
            ],
            preexec_fn=self._as_server_user,
            cwd=self.folder,
            check=True,
            capture_output=True,
            timeout=120,
        )
        log = open(self.folder / "server.log", "wb")  # noqa: SIM115 (the server's, kept open)
        self.process = subprocess.Popen(
            [
                str(self.bin / "postgres"),
                "-D",
                str(self.data),
                "-k",
                str(self.folder),
                *SERVER_OPTIONS,
            ],
            preexec_fn=self._as_server_user,
            cwd=self.folder,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self._wait_ready()

    def _wait_ready(self, limit_s: float = 60.0) -> None:
        import psycopg

        deadline = time.monotonic() + limit_s
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                log = (self.folder / "server.log").read_text(errors="replace")
                raise RuntimeError(f"the PostgreSQL server exited: {log[-2000:]}")
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.folder}"

    def database(self) -> str:
        """A new empty database's URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # the server's fast shutdown
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

"""A real `streamlit run` server on a free localhost port, for the dashboard benchmarks and the
browser tests."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from engine.process.children import Child

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_path() -> str | None:
    """$CHROMIUM_PATH, else Debian's chromium on the PATH."""
    configured = os.environ.get("CHROMIUM_PATH")
    if configured:
        return configured
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def streamlit_server(
    log: IO[str] | None = None,
    startup_timeout_s: float = 60.0,
    script: str = "dashboard/server.py",
    cwd: Path = ROOT,
    **env: str,
) -> Iterator[str]:
    """Yield the URL of a server of `script` (the dashboard unless given) once its health check
    answers; stop it afterwards.

    Raises RuntimeError when it does not answer within `startup_timeout_s`.
    """
    port = free_port()
    server = Child(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
            "--server.port",
            str(port),
            "--server.headless",
            "true",
        ],
        cwd=cwd,
        env={**os.environ, **env},
        stdout=log or subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"http://localhost:{port}"
    try:
        deadline = time.monotonic() + startup_timeout_s
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("streamlit did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        server.end(grace_s=10)  # its whole group: the warm workers the app started too

"""A real `streamlit run` server on localhost and Debian's headless Chromium via Playwright."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

ARTIFACTS = ROOT / "test-artifacts"
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
    configured = os.environ.get("CHROMIUM_PATH")
    if configured:
        return configured
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests: install Debian's chromium (.ci/run does)")
        pytest.skip("chromium not installed (apt-get install chromium); CI installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def history_path(tmp_path_factory) -> Path:
    """The SQLite history the e2e server (and its workers) read and write."""
    return tmp_path_factory.mktemp("history") / "history.sqlite3"


@pytest.fixture(scope="session")
def server(tmp_path_factory, history_path) -> Iterator[str]:
    port = free_port()
    queue = tmp_path_factory.mktemp("queue")
    log_path = tmp_path_factory.mktemp("server") / "streamlit.log"
    env = {**os.environ, "MATVEC_QUEUE_DIR": str(queue), "MATVEC_HISTORY": str(history_path)}
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "dashboard/app.py",
                "--server.port",
                str(port),
                "--server.headless",
                "true",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://localhost:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        else:
            process.kill()
            pytest.fail(f"streamlit did not start: {Path(log_path).read_text()}")
        yield url
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    yield page
    context.close()

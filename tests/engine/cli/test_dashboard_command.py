"""`matvec-profiler dashboard`: Streamlit's own flags pass through (a real server on the port
asked for), and the server ends with the command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from benchmarks.server import free_port
from engine.cli.main import main
from tests.conftest import ROOT
from tests.engine.process.test_children import alive, wait_until

pytest.importorskip("streamlit")


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://localhost:{port}/_stcore/health", timeout=2):
            return True
    except OSError:
        return False


@pytest.mark.parametrize("separator", [[], ["--"]])
def test_streamlit_flags_reach_streamlit_and_sigterm_ends_the_server(separator):
    port = free_port()
    launcher = subprocess.Popen(
        [sys.executable, "-m", "engine", "dashboard", *separator, "--server.port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_until(lambda: answers(port), timeout_s=90), "no server on the port asked for"
        children = Path(f"/proc/{launcher.pid}/task/{launcher.pid}/children")
        server = int(children.read_text().split()[0])
        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(timeout=60) == 128 + signal.SIGTERM
        assert wait_until(lambda: not alive(server) and not answers(port))
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()


def test_the_dashboard_commands_help_is_its_own(capsys):
    with pytest.raises(SystemExit):
        main(["dashboard", "--help"])
    assert "streamlit" in capsys.readouterr().out.lower()

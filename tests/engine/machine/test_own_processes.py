"""The tool's own load is not "other processes": with real processes, a server that names
itself (`MATVEC_DASHBOARD_SERVER`), a browser connected to its port and a stranger, each
burning CPU, the run's monitor charges the browser to the tool and the stranger to other
load."""

from __future__ import annotations

import shlex
import subprocess
import sys
import textwrap
import time

import pytest

from engine.machine.load import LoadMonitor
from engine.machine.own_processes import SERVER_VARIABLE, tool_pids

SERVER = """
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
time.sleep(120)
"""

BURN = """
import socket, sys, time
port = int(sys.argv[1])
held = socket.create_connection(("127.0.0.1", port)) if port else None
print("ready", flush=True)
end = time.process_time() + float(sys.argv[2])
while time.process_time() < end:
    pass
print(time.process_time(), flush=True)
time.sleep(0.5)
"""


def burner(port: int, seconds: float) -> subprocess.Popen:
    """A CPU burner that is not this process's child (as a browser never is a run's): the
    shell starts it in the background and ends, so it is reparented; its output pipe stays."""
    code = shlex.quote(textwrap.dedent(BURN))
    script = f"{shlex.quote(sys.executable)} -c {code} {port} {seconds} &"
    process = subprocess.Popen(["/bin/sh", "-c", script], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    return process


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="connections read from /proc")
def test_the_browser_of_the_dashboard_is_the_tools_load_and_a_stranger_is_other(monkeypatch):
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        monkeypatch.setenv(SERVER_VARIABLE, f"{server.pid}:{port}")
        monitor = LoadMonitor().start()
        browser, stranger = burner(port, 1.0), burner(0, 1.0)
        assert server.pid in tool_pids(set())
        browser_cpu = float(browser.stdout.readline())
        stranger_cpu = float(stranger.stdout.readline())
        load = monitor.stop()
        browser.stdout.read()  # each ends half a second after it said its CPU time
        stranger.stdout.read()
    finally:
        server.kill()
        server.wait()
    assert load.tool_cpu_s >= 0.9 * browser_cpu  # charged to the tool ...
    assert load.other_cpu_s >= 0.9 * stranger_cpu  # ... and the stranger to other load
    assert load.tool_cpu_s < browser_cpu + stranger_cpu  # never the stranger's too
    assert load.tool_note and "the dashboard and the browser showing it" in load.tool_note


def test_without_a_dashboard_nothing_is_the_tools(monkeypatch):
    monkeypatch.delenv(SERVER_VARIABLE, raising=False)
    assert tool_pids(set()) == set()
    load = LoadMonitor().start()
    time.sleep(0.05)
    assert load.stop().tool_cpu_s == 0.0


def test_a_malformed_server_variable_is_refused():
    from engine.machine.settings import check_environment
    from engine.run_settings.fields import ConfigError

    with pytest.raises(ConfigError, match=SERVER_VARIABLE):
        check_environment({SERVER_VARIABLE: "12:notaport"})

"""The server is as safe as the docs say however it is started: from another folder, `streamlit
run <clone>/dashboard/app.py` still listens on localhost and checks the WebSocket's Host; an
unsafe setting nobody asked for explicitly stops every page."""

from __future__ import annotations

import socket
from urllib.parse import urlparse

import psutil
import pytest

from benchmarks.server import streamlit_server
from dashboard.services.server_safety import unsafe_settings
from tests.conftest import ROOT

SAFE = {
    "server.address": ("localhost", "/app/.streamlit/config.toml"),
    "server.allowedHosts": (["localhost"], "/app/.streamlit/config.toml"),
    "server.enableXsrfProtection": (True, "<default>"),
    "browser.gatherUsageStats": (False, "/app/.streamlit/config.toml"),
}


def test_the_shipped_settings_are_safe():
    assert unsafe_settings(SAFE) == []


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("server.address", "", "every network interface"),
        ("server.address", "0.0.0.0", "listens on 0.0.0.0"),
        ("server.allowedHosts", [], "any Host name"),
        ("server.enableXsrfProtection", False, "XSRF"),
        ("browser.gatherUsageStats", True, "usage statistics"),
    ],
)
def test_an_unsafe_setting_from_a_file_or_default_is_named(name, value, said):
    found = unsafe_settings({**SAFE, name: (value, "/home/u/.streamlit/config.toml")})
    assert len(found) == 1 and said in found[0]
    explicit = {**SAFE, name: (value, "command-line argument or environment variable")}
    assert unsafe_settings(explicit) == []  # asked for on purpose


def upgrade_status(port: int, host: str) -> int:
    """The status of a WebSocket upgrade of Streamlit's stream with this Host header."""
    request = (
        f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.encode())
        return int(sock.recv(4096).split(b" ", 2)[1])


def other_addresses() -> list[str]:
    return [
        a.address
        for addresses in psutil.net_if_addrs().values()
        for a in addresses
        if a.family == socket.AF_INET and not a.address.startswith("127.")
    ]


def http_status(port: int, host: str, path: str) -> int:
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.encode())
        return int(sock.recv(4096).split(b" ", 2)[1])


ROUTES = ("/", "/_stcore/health", "/_stcore/host-config", "/sweeps", "/media/x.json")


@pytest.mark.slow  # a real Streamlit server
def test_a_foreign_host_is_refused_on_every_route(tmp_path):
    """Streamlit checks the Host on its WebSocket only; `/`, the health check, the host config
    and a download under /media answered 200 to `Host: evil.example.com`."""
    with streamlit_server(script=str(ROOT / "dashboard" / "server.py"), cwd=tmp_path) as url:
        port = urlparse(url).port
        for path in ROUTES:
            assert http_status(port, "evil.example.com", path) == 403, path
            assert http_status(port, f"evil.example.com:{port}", path) == 403, path
        assert http_status(port, f"localhost:{port}", "/_stcore/health") == 200
        assert http_status(port, f"127.0.0.1:{port}", "/") == 200
        assert upgrade_status(port, "evil.example.com") != 101


@pytest.mark.slow  # a real Streamlit server
@pytest.mark.parametrize("script", ["app.py", "server.py"])
def test_started_from_another_folder_it_listens_on_localhost_with_the_host_check(tmp_path, script):
    with streamlit_server(script=str(ROOT / "dashboard" / script), cwd=tmp_path) as url:
        port = urlparse(url).port
        assert upgrade_status(port, f"localhost:{port}") == 101
        assert upgrade_status(port, "evil.example.com") != 101
        for address in other_addresses():
            with pytest.raises(OSError):
                socket.create_connection((address, port), timeout=5).close()

"""The Host check as an ASGI middleware, with a stand-in app (a real server: the test in
tests/dashboard/test_server_safety.py)."""

from __future__ import annotations

import asyncio
import threading

from dashboard.services.host_check import HostCheck, host_of


def call(scope_type: str, host: bytes | None) -> tuple[list[dict], list[str]]:
    reached: list[str] = []
    sent: list[dict] = []

    async def app(scope, receive, send):
        reached.append(scope["type"])

    async def receive():
        return {}

    async def send(message):
        sent.append(message)

    headers = [(b"host", host)] if host is not None else []
    check = HostCheck(app, allowed=lambda h: h is not None and h.split(":")[0] == "localhost")
    # In a thread of its own: a test before this one may leave an event loop running here.
    worker = threading.Thread(
        target=lambda: asyncio.run(check({"type": scope_type, "headers": headers}, receive, send))
    )
    worker.start()
    worker.join(timeout=30)
    return sent, reached


def test_an_allowed_host_reaches_the_app():
    assert call("http", b"localhost:8501") == ([], ["http"])
    assert call("websocket", b"localhost") == ([], ["websocket"])


def test_a_foreign_host_is_refused_before_the_app():
    sent, reached = call("http", b"evil.example.com")
    assert reached == [] and sent[0]["status"] == 403
    sent, reached = call("websocket", b"evil.example.com")
    assert reached == [] and sent == [{"type": "websocket.close", "code": 1008}]


def test_no_host_header_is_refused():
    sent, reached = call("http", None)
    assert reached == [] and sent[0]["status"] == 403


def test_lifespan_passes_through():
    sent, reached = call("lifespan", None)
    assert reached == ["lifespan"] and sent == []
    assert host_of({"headers": [(b"Host", b"x")]}) == "x"

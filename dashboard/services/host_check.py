"""The Host check on every route of the dashboard's server, not only its WebSocket.

Streamlit checks `server.allowedHosts` on the WebSocket alone: with `Host: evil.example.com`,
`/`, `/_stcore/health`, `/_stcore/host-config` and a report download under `/media/...`
answered 200, so a page on another site could read them through DNS rebinding. This ASGI
middleware answers any HTTP request or WebSocket whose Host is not allowed with 403 before
Streamlit sees it; which Hosts are allowed is Streamlit's own rule (`is_host_allowed`, the one
its WebSocket check applies), passed in so this module imports no Streamlit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
REFUSED = b"This Host is not allowed (server.allowedHosts).\n"


def host_of(scope: Scope) -> str | None:
    """The request's Host header (None when it has none)."""
    for name, value in scope.get("headers") or ():
        if name.lower() == b"host":
            return value.decode("latin-1")
    return None


class HostCheck:
    """ASGI middleware: refuse every request whose Host `allowed` says no to."""

    def __init__(self, app: Any, allowed: Callable[[str | None], bool]) -> None:
        self.app, self.allowed = app, allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.allowed(host_of(scope)):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})  # policy violation
            return
        headers = [(b"content-type", b"text/plain; charset=utf-8")]
        headers.append((b"content-length", str(len(REFUSED)).encode()))
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": REFUSED})

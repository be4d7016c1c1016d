"""Whether the server the dashboard runs in is as safe as the docs say: localhost only, local
Host names only, XSRF protection on, no usage statistics. Streamlit reads the app's settings
from `dashboard/.streamlit/config.toml` wherever it is started, but a user's global config or a
`.streamlit/` in another folder can still change them; a change the user did not ask for with
an explicit flag or variable is refused (the page says what and how to start it safely)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LOCAL_ADDRESSES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
# Streamlit's words for a value given as `--server.address X` or `STREAMLIT_SERVER_ADDRESS`.
EXPLICIT = ("command-line argument or environment variable", "environment variable")
SAFE_START = (
    "start it with `matvec-profiler dashboard`, or pass --server.address and "
    "--server.allowedHosts yourself to share it on purpose"
)


def unsafe_settings(options: Mapping[str, tuple[Any, str]]) -> list[str]:
    """What is unsafe in `options` (name -> (value, where Streamlit says it was defined))
    that the user did not ask for explicitly; [] when the server is as the docs say."""

    def explicit(name: str) -> bool:
        return options[name][1] in EXPLICIT

    found = []
    address = str(options["server.address"][0] or "")
    if address not in LOCAL_ADDRESSES and not explicit("server.address"):
        found.append(f"it listens on {address or 'every network interface'}, not localhost")
    if not options["server.allowedHosts"][0] and not explicit("server.allowedHosts"):
        found.append("it accepts any Host name (no server.allowedHosts)")
    if not options["server.enableXsrfProtection"][0] and not explicit(
        "server.enableXsrfProtection"
    ):
        found.append("its XSRF protection is off")
    if options["browser.gatherUsageStats"][0] and not explicit("browser.gatherUsageStats"):
        found.append("it sends usage statistics")
    return found


def refusal(problems: list[str]) -> str:
    return f"This server is not started safely: {'; '.join(problems)}. To fix it, {SAFE_START}."

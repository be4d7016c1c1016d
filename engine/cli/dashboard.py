"""`matvec-profiler dashboard`: start the Streamlit app from any directory.

The app's settings (localhost only, local Host names, no tracebacks in the browser) live in
`dashboard/.streamlit/config.toml`, shipped with the package: Streamlit reads it beside the
app from any folder, and this command passes them as command-line flags too. Extra arguments
go to `streamlit run` as they are (e.g. `--server.port 8502`). The engine does not import
Streamlit: it starts it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from engine.process.children import Child
from engine.run_settings.fields import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DASHBOARD = Path(__file__).resolve().parents[2] / "dashboard"
APP = DASHBOARD / "server.py"  # the pages of app.py, the Host check on every route
SETTINGS = DASHBOARD / ".streamlit" / "config.toml"
INSTALL_HINT = "pip install streamlit==1.67.0 plotly==7.1.0"


def _text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def streamlit_flags(settings: dict[str, Any]) -> list[str]:
    """`{"server": {"address": "localhost"}}` -> `["--server.address", "localhost"]`; a list
    becomes the flag repeated, which is how Streamlit's CLI takes list options."""
    flags: list[str] = []
    for section, options in settings.items():
        for name, value in options.items():
            for item in value if isinstance(value, list) else [value]:
                flags += [f"--{section}.{name}", _text(item)]
    return flags


def dashboard_command(extra: list[str]) -> list[str]:
    if importlib.util.find_spec("streamlit") is None:
        raise ConfigError("dashboard", f"Streamlit is not installed; {INSTALL_HINT}")
    settings = tomllib.loads(SETTINGS.read_text(encoding="utf-8"))
    return [sys.executable, "-m", "streamlit", "run", str(APP), *streamlit_flags(settings), *extra]


def split_kernels(extra: list[str]) -> tuple[list[str], list[str]]:
    """(`--kernel` specs, the rest for Streamlit): `--kernel X` and `--kernel=X` are ours."""
    kernels, rest = [], []
    items = iter(extra)
    for item in items:
        if item == "--kernel":
            value = next(items, None)
            if value is None:
                raise ConfigError("kernel", "--kernel needs PATH.py:FUNCTION")
            kernels.append(value)
        elif item.startswith("--kernel="):
            kernels.append(item.partition("=")[2])
        else:
            rest.append(item)
    return kernels, rest


def command_dashboard(args: argparse.Namespace) -> int:
    """Streamlit as a child of this process: a stop signal to this one ends it too. Kernels
    named here (`--kernel`, checked now) are the only ones its pages can offer."""
    from engine.run_settings.user_kernels import DASHBOARD_KERNELS_VARIABLE, parse_kernel_spec

    kernels, extra = split_kernels(list(args.streamlit_args))
    specs = [parse_kernel_spec(kernel).spec for kernel in kernels]
    env = {key: value for key, value in os.environ.items() if key != DASHBOARD_KERNELS_VARIABLE}
    if specs:  # none named: none offered (an empty variable is refused, as any empty setting)
        env[DASHBOARD_KERNELS_VARIABLE] = "\n".join(specs)
    child = Child(dashboard_command(extra), stdin=None, stdout=None, stderr="inherit", env=env)
    try:
        return child.wait()
    except KeyboardInterrupt:
        child.end()
        return 0

"""Settings a user gives through the environment, read one way: each documented variable is a
field like a flag. A value that is set is parsed by its row of `VARIABLES`; an empty, malformed
or out-of-range one is refused in one line naming the variable, its value and what is allowed
(`check_environment`, called by every command and the dashboard before any work), never
silently replaced by a default. Variables the tool sets for its own children are checked too,
so a stray one in a user's shell is named instead of acted on.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.machine.input_error import ConfigError, shown
from engine.machine.secrets import shown_url

WEEK_S = 7 * 86_400.0


@dataclass(frozen=True)
class Variable:
    """One documented variable: how its text is read (raising ValueError with what is
    allowed), and whether the tool sets it for its own children."""

    name: str
    parse: Callable[[str], object]
    internal: bool = False


def seconds(most: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and 0 < value <= most):
            raise ValueError(f"a number of seconds above 0 and at most {most:g}")
        return value

    return parse


def whole(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        digits = text.strip()
        if not (digits.isascii() and digits.isdigit() and low <= int(digits) <= high):
            raise ValueError(f"a whole number from {low:,} to {high:,}")
        return int(digits)

    return parse


def text(what: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if "\x00" in value:
            raise ValueError(what)
        return value

    return parse


def pid_and_port(text: str) -> tuple[int, int]:
    pid, _, port = text.strip().partition(":")
    if not (pid.isascii() and pid.isdigit() and port.isascii() and port.isdigit()):
        raise ValueError("PID:PORT (set by matvec-profiler's dashboard for its children)")
    if not (0 < int(pid) < 2**31 and 0 < int(port) <= 65535):
        raise ValueError("PID:PORT (set by matvec-profiler's dashboard for its children)")
    return int(pid), int(port)


def flag(value: str) -> str:
    if value != "1":
        raise ValueError("1 (set by matvec-profiler for the dashboard's children)")
    return value


MIB = 1 << 20
VARIABLES: dict[str, Variable] = {
    v.name: v
    for v in (
        Variable("MATVEC_HISTORY", text("a file path or a database URL")),
        Variable("MATVEC_QUEUE_DIR", text("a directory path")),
        Variable("MATVEC_PROFILES", text("a directory path")),
        Variable("MATVEC_PROBE_BUFFER_BYTES", whole(MIB, 2048 * MIB)),
        Variable("MATVEC_KERNEL_CALL_LIMIT_S", seconds(86_400.0)),
        Variable("MATVEC_TENSORFLOW_IMPORT_LIMIT_S", seconds(3_600.0)),
        Variable("MATVEC_WORKER_IDLE_S", seconds(WEEK_S)),
        Variable("MATVEC_ORPHAN_JOB_S", seconds(86_400.0)),
        Variable("MATVEC_JAX_PROCESSES", whole(1, 1_000_000)),
        Variable("MATVEC_JAX_PROCESS_ID", whole(0, 999_999)),
        Variable("MATVEC_JAX_JOIN_S", seconds(3_600.0)),
        Variable("MATVEC_DASHBOARD_KERNELS", text("PATH.py:FUNCTION specs, one a line")),
        Variable("MATVEC_STORE_TIMEOUT_S", seconds(3_600.0)),
        Variable("MATVEC_NICENESS", whole(0, 19), internal=True),
        Variable("MATVEC_PARENT_PID", whole(1, 2**31), internal=True),
        Variable("MATVEC_END_WITH_PARENT", flag, internal=True),
        Variable("MATVEC_DASHBOARD_SERVER", pid_and_port, internal=True),
    )
}


def refusal(variable: Variable, raw: str, allowed: str) -> ConfigError:
    who = " (matvec-profiler sets it for its own children; unset it)" if variable.internal else ""
    return ConfigError(variable.name, f"must be {allowed}{who}, got {shown(shown_url(raw))}")


def read(name: str, env: Mapping[str, str] | None = None) -> object | None:
    """The parsed value of a documented variable, None when unset; ConfigError (naming it,
    its value and what is allowed) when it is set but empty or invalid."""
    variable = VARIABLES[name]
    raw = (os.environ if env is None else env).get(name)
    if raw is None:
        return None
    if not raw.strip():
        raise ConfigError(name, "is set but empty; give it a value or unset it")
    try:
        return variable.parse(raw)
    except ValueError as error:
        raise refusal(variable, raw, str(error)) from None


def check_environment(env: Mapping[str, str] | None = None) -> None:
    """Refuse, before any work, the first documented variable whose value is invalid."""
    for name in VARIABLES:
        read(name, env)


def seconds_from_environment(variable: str, default: float, most: float = math.inf) -> float:
    """`$variable` as seconds (its row of `VARIABLES`), else `default` when unset; capped at
    `most`. An invalid value raises ConfigError (the door refuses it before any work)."""
    value = read(variable)
    return default if value is None else min(float(value), most)  # type: ignore[arg-type]

"""Limits a user sets through the environment, read one way: a number of seconds in range,
else the documented default (an unset, malformed or out-of-range value is never an error that
stops a run)."""

from __future__ import annotations

import math
import os


def seconds_from_environment(variable: str, default: float, most: float = math.inf) -> float:
    """`$variable` as seconds above 0 and below `most`, else `default`."""
    try:
        value = float(os.environ.get(variable, ""))
    except ValueError:
        return default
    return value if 0 < value < most else default

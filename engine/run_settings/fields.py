"""The field table: how one configuration field is parsed, bounded, named and explained.

Each field of `BenchConfig` carries a `Setting` in its dataclass metadata; that is the only place
a default, a limit, a help text, a CLI flag or a URL name is written. Validation messages,
argparse flags, the dashboard's widget bounds, the URL round trip and the worker's CLI arguments
are all generated from it, so they cannot drift apart.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from engine.machine.input_error import ConfigError, shown

Kind = Literal["int", "optional_int", "choice", "bool", "seconds", "strategies", "kernels", "text"]


@dataclass(frozen=True)
class Setting:
    """Everything about one field except its default (the dataclass holds that)."""

    kind: Kind
    help: str
    label: str  # the dashboard's widget label
    limits: tuple[float, float] | None = None
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] = ()
    flag: str = ""  # CLI flag; derived from the name when empty
    url: str = ""  # URL parameter; the flag's name without dashes when empty
    sweepable: bool = True  # may be a sweep axis
    max_chars: int = 0  # text fields
    unit: str = "number of seconds"  # what a value of kind "seconds" is, in messages
    message_name: str = ""  # the name messages use, when it is not the field's (strategy)
    everything: Callable[[], tuple[str, ...]] | None = None  # what 'all' means (else options)
    # Offered in the browser (a widget and a URL parameter). False for what names files on
    # the server's machine: the browser never chooses code to run.
    browser: bool = True

    def options(self) -> tuple[str, ...]:
        return self.choices() if callable(self.choices) else self.choices

    def all_options(self) -> tuple[str, ...]:
        return self.everything() if self.everything else self.options()

    def parse(self, name: str, value: Any) -> Any:
        """Validate one loosely typed value (CLI text, URL text, JSON, widget value)."""
        return PARSERS[self.kind](self, self.message_name or name, value)

    def to_text(self, value: Any) -> str:
        """The CLI/URL spelling of a parsed value; `parse(to_text(v)) == v`."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, tuple | list):
            return ",".join(map(str, value))
        if isinstance(value, float):
            return f"{value:g}" if not value.is_integer() else str(int(value))
        return "" if value is None else str(value)


def _parse_int(setting: Setting, field: str, value: Any) -> int:
    assert setting.limits is not None
    lo, hi = (int(v) for v in setting.limits)
    allowed = f"an integer from {lo:,} to {hi:,}"
    number: int
    if isinstance(value, bool):
        raise ConfigError(field, f"must be {allowed}, got {shown(value)}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ConfigError(field, f"must be {allowed}, got {shown(value)}")
        number = int(value)
    elif isinstance(value, str):
        text = value.strip().replace("_", "")
        if len(text) > 24 or not text.lstrip("+-").isdigit():
            raise ConfigError(field, f"must be {allowed}, got {shown(value)}")
        number = int(text, 10)
    else:
        raise ConfigError(field, f"must be {allowed}, got {type(value).__name__}")
    if not lo <= number <= hi:
        raise ConfigError(field, f"must be {allowed}, got {number:,}")
    return number


def _parse_optional_int(setting: Setting, field: str, value: Any) -> int | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return None
    return _parse_int(setting, field, value)


def _parse_choice(setting: Setting, field: str, value: Any) -> str:
    options = setting.options()
    if not isinstance(value, str) or value.strip() not in options:
        raise ConfigError(field, f"must be one of {', '.join(options)}; got {shown(value)}")
    return value.strip()


def _parse_bool(_setting: Setting, field: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise ConfigError(field, f"must be true or false, got {shown(value)}")


def _parse_seconds(setting: Setting, field: str, value: Any) -> float:
    assert setting.limits is not None
    lo, hi = setting.limits
    allowed = f"a {setting.unit} from {lo:g} to {hi:,g}"
    try:
        if isinstance(value, bool) or (isinstance(value, str) and len(value) > 32):
            raise ValueError
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(field, f"must be {allowed}, got {shown(value)}") from None
    if not math.isfinite(number) or not lo <= number <= hi:
        raise ConfigError(field, f"must be {allowed}, got {shown(value)}")
    return number


def split_names(value: Any, field: str) -> list[str]:
    """'a,b', ['a', 'b,c'] or ('a',) -> ['a', 'b', 'c']: the CLI's repeats and comma lists."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, Iterable):
        items: list[str] = []
        for part in value:
            if not isinstance(part, str):
                raise ConfigError(field, f"names must be text, got {shown(part)}")
            items.extend(p.strip() for p in part.split(",") if p.strip())
        return items
    raise ConfigError(field, f"must be a list of names, got {type(value).__name__}")


# A stored result may name a strategy this process does not register (a newer version's, or a
# user's kernel): it is read back as a name, never looked up. Only while reading stored results.
_READING_STORED = contextvars.ContextVar("reading_stored_results", default=False)
STORED_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,99}$")


def is_reading_stored() -> bool:
    """Whether configs are being parsed as stored results (names kept, files never read)."""
    return _READING_STORED.get()


@contextlib.contextmanager
def reading_stored_results() -> Iterator[None]:
    """Parse configs as stored results: strategy names outside the catalogue are kept."""
    token = _READING_STORED.set(True)
    try:
        yield
    finally:
        _READING_STORED.reset(token)


def _parse_strategies(setting: Setting, field: str, value: Any) -> tuple[str, ...]:
    """'all', a comma-separated string or a sequence; kept in catalogue order (names from
    elsewhere, read from stored results, after the catalogue's, in their stored order)."""
    names = setting.options()
    items = split_names(value, field)
    if not items:
        raise ConfigError(field, f"choose at least one of all, {', '.join(names)}")
    unknown = [name for name in items if name not in names and name != "all"]
    if unknown and _READING_STORED.get():
        bad = [name for name in unknown if not STORED_NAME.match(name)]
        if bad:
            raise ConfigError(field, f"{shown(bad[0])} is not a strategy name")
        known = tuple(name for name in names if name in items)
        return known + tuple(dict.fromkeys(unknown))
    if unknown:
        listed = ", ".join(shown(name) for name in unknown[:5])
        raise ConfigError(field, f"unknown {listed}; allowed: all, {', '.join(names)}")
    if "all" in items:
        return setting.all_options()
    return tuple(name for name in names if name in items)


def _parse_text(setting: Setting, field: str, value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ConfigError(field, f"must be text, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: bytes that were not UTF-8 on the way in
        raise ConfigError(field, "must be valid UTF-8 text (it holds undecodable bytes)") from None
    text = " ".join(value.split())
    if setting.max_chars and len(text) > setting.max_chars:
        raise ConfigError(field, f"must be at most {setting.max_chars} characters")
    return text


PARSERS: dict[Kind, Callable[[Setting, str, Any], Any]] = {
    "int": _parse_int,
    "optional_int": _parse_optional_int,
    "choice": _parse_choice,
    "bool": _parse_bool,
    "seconds": _parse_seconds,
    "strategies": _parse_strategies,
    # "kernels": registered by engine.run_settings.user_kernels (it reads files; this one does not)
    "text": _parse_text,
}

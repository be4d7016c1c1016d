"""Reading untrusted JSON objects field by field, naming the path of the first bad field.

Every `from_dict` of the result model reads through a `Reader`, so a file that loads holds
only values every page and report can draw, and one that cannot is refused with a message like
`results[2].samples_s[0]: must be a number from 0 to 1e+06, got 'x'`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, TypeVar

from engine.run_settings.fields import shown

T = TypeVar("T")
MAX_TEXT_CHARS = 20_000
MAX_LIST_ITEMS = 1_000_000
# Far beyond any real count of bytes or FLOPs, far below where float arithmetic breaks.
MAX_COUNT = 10**18


class ResultsRejected(ValueError):
    """`str()` is the one-line reason the results were refused, starting with the field path."""


MISSING = object()
MAX_FILE_BYTES = 64 * 2**20


def _refuse_constant(name: str) -> Any:
    raise ResultsRejected(f"not valid results JSON: {name} is not a number JSON allows")


def load_json(text: str | bytes) -> Any:
    """Decode JSON text, refusing what Python's json accepts but a results file may not hold:
    NaN and Infinity, integers of thousands of digits, nesting thousands deep, huge input."""
    if len(text) > MAX_FILE_BYTES:
        raise ResultsRejected(
            f"results are {len(text) / 2**20:.1f} MiB; at most {MAX_FILE_BYTES // 2**20} MiB"
        )
    try:
        if isinstance(text, bytes):  # json.loads would guess UTF-16 or 32; a file is UTF-8
            text = text.decode("utf-8")
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise ResultsRejected(
            f"not valid JSON (truncated?): {error.msg} at line {error.lineno}"
        ) from None
    except RecursionError:
        raise ResultsRejected("not a results file: JSON nested too deeply") from None
    except UnicodeDecodeError:
        raise ResultsRejected("not a results file: the text is not UTF-8") from None
    except ResultsRejected:  # already worded (NaN, Infinity): a ValueError too, not re-wrapped
        raise
    except ValueError as error:  # e.g. an integer of thousands of digits
        raise ResultsRejected(f"not valid results JSON: {str(error)[:200]}") from None


class Reader:
    """A JSON object at `path`; each accessor validates one field or raises ResultsRejected."""

    def __init__(self, data: Any, path: str) -> None:
        if not isinstance(data, dict):
            raise ResultsRejected(f"{path or 'top level'}: must be an object, got {_kind(data)}")
        self.data = data
        self.path = path

    def where(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def reject(self, name: str, message: str) -> ResultsRejected:
        return ResultsRejected(f"{self.where(name)}: {message}")

    def has(self, name: str) -> bool:
        return name in self.data

    def _get(self, name: str, default: Any) -> Any:
        if name in self.data:
            return self.data[name]
        if default is MISSING:
            raise self.reject(name, "is required")
        return default

    def text(self, name: str, default: Any = MISSING, *, max_chars: int = MAX_TEXT_CHARS) -> Any:
        value = self._get(name, default)
        if value is None and default is None:
            return None
        if not isinstance(value, str):
            raise self.reject(name, f"must be text, got {_kind(value)}")
        if len(value) > max_chars:
            raise self.reject(name, f"must be at most {max_chars:,} characters")
        return value

    def choice(self, name: str, choices: tuple[str, ...], default: Any = MISSING) -> str:
        value = self._get(name, default)
        if value not in choices:
            raise self.reject(name, f"must be one of {', '.join(choices)}; got {shown(value)}")
        return value

    def number(
        self,
        name: str,
        default: Any = MISSING,
        *,
        low: float = 0.0,
        high: float = float(MAX_COUNT),
        positive: bool = False,
    ) -> Any:
        """A finite number in [low, high] (> low when `positive`), or None where allowed."""
        value = self._get(name, default)
        if value is None and default is None:
            return None
        return check_number(value, self.where(name), low, high, positive)

    def integer(
        self, name: str, default: Any = MISSING, *, low: int = 0, high: int = MAX_COUNT
    ) -> Any:
        value = self._get(name, default)
        if value is None and default is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.reject(
                name, f"must be an integer from {low:,} to {high:,}, got {shown(value)}"
            )
        return value

    def boolean(self, name: str, default: Any = MISSING) -> bool:
        value = self._get(name, default)
        if not isinstance(value, bool):
            raise self.reject(name, f"must be true or false, got {shown(value)}")
        return value

    def items(self, name: str, default: Any = MISSING, *, max_items: int = MAX_LIST_ITEMS) -> list:
        value = self._get(name, default)
        if value is None and default is not MISSING:
            return []
        if not isinstance(value, list):
            raise self.reject(name, f"must be a list, got {_kind(value)}")
        if len(value) > max_items:
            raise self.reject(name, f"must have at most {max_items:,} entries")
        return value

    def each(self, name: str, read: Callable[[Any, str], T], default: Any = MISSING) -> list[T]:
        return [
            read(item, f"{self.where(name)}[{i}]")
            for i, item in enumerate(self.items(name, default))
        ]

    def texts(self, name: str, default: Any = MISSING) -> list[str]:
        def one(value: Any, path: str) -> str:
            if not isinstance(value, str) or len(value) > MAX_TEXT_CHARS:
                raise ResultsRejected(
                    f"{path}: must be text of at most {MAX_TEXT_CHARS:,} characters"
                )
            return value

        return self.each(name, one, default)

    def mapping(self, name: str, default: Any = MISSING) -> dict[str, Any]:
        """A free-form JSON object (shown as text, never interpreted)."""
        value = self._get(name, default)
        if value is None and default is not MISSING:
            return {}
        if not isinstance(value, dict):
            raise self.reject(name, f"must be an object, got {_kind(value)}")
        return value

    def child(self, name: str, default: Any = MISSING) -> Reader | None:
        value = self._get(name, default)
        if value is None and default is not MISSING:
            return None
        return Reader(value, self.where(name))

    def extras(self, known: tuple[str, ...] | set[str]) -> dict[str, Any]:
        """Fields this version does not know: kept as they are, so a round trip loses nothing."""
        return {k: v for k, v in self.data.items() if k not in known}


def check_number(value: Any, path: str, low: float, high: float, positive: bool = False) -> float:
    ok = (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and (not isinstance(value, int) or abs(value) <= MAX_COUNT)
        and math.isfinite(value)
        and low <= value <= high
        and (not positive or value > low)
    )
    if not ok:
        bound = f"above {low:g}" if positive else f"from {low:g}"
        raise ResultsRejected(f"{path}: must be a number {bound} to {high:g}, got {shown(value)}")
    return float(value)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__

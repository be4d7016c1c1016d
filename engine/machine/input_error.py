"""The one error a bad input raises, at every layer: a field's name and one line saying what is
wrong. It lives at the bottom of the house so a setting read from the environment (machine/,
process/) and a field of the config (spec/) are refused the same way."""

from __future__ import annotations

from typing import Any

# A pasted value longer than this is a mistake, not a setting; echoing it back would flood the
# terminal or the page, so messages show only its start.
ECHO_MAX_CHARS = 60


class ConfigError(ValueError):
    """A bad input value. `str()` is the one-line message shown to users."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message_part = message  # without the field's name, for a page that shows it


def shown(value: Any) -> str:
    """`repr` of a bad value, cut short so a 100,000-character paste is not echoed whole."""
    text = repr(value)
    if len(text) <= ECHO_MAX_CHARS:
        return text
    return f"{text[:ECHO_MAX_CHARS]}... ({len(text):,} characters)"

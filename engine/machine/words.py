"""How a count reads in a sentence: "1 run", "2 runs" (every layer's text uses it, so it
sits on the ground floor)."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """ "1 point", "3 points", "1,000 series" (`plural` where adding an s is wrong)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"

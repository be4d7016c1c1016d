"""What the command line writes is text, never terminal control.

A label, a path, a kernel's exception message or an imported file's variant name can carry
escape sequences that move the cursor, recolour or clear the terminal, or a carriage return
that hides a line behind another. Every command's output goes through `printable_output`, so
no table or message needs to remember: control characters are shown as visible `\\xNN` text.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # all but tab and newline
# In one value (a host name, a label): a newline too, which would start a forged line.
VALUE_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def printable(value: object, control: re.Pattern[str] = VALUE_CONTROL) -> object:
    """`value` with its control characters, newlines included, as visible text (not a
    string: as it is); `control` what counts (a stream keeps its own newlines)."""
    if not isinstance(value, str):
        return value
    return control.sub(lambda m: f"\\x{ord(m.group()):02x}", value)


class PrintableStream:
    """A text stream that writes what it is given through `printable`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(str(printable(text, CONTROL)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    @property
    def unfiltered(self) -> TextIO:
        return self._stream


def unfiltered(stream: Any) -> TextIO:
    """The stream under a printable one: for the progress bar alone, which redraws its line
    with carriage returns and writes only the engine's own words (variant names)."""
    return stream.unfiltered if isinstance(stream, PrintableStream) else stream


@contextlib.contextmanager
def printable_output() -> Iterator[None]:
    """`sys.stdout` and `sys.stderr` as printable streams for the block."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = PrintableStream(sys.stdout), PrintableStream(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved

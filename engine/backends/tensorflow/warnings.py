"""TensorFlow's own warnings while a variant is built and first run, kept on that variant.

The one that matters most here: when `tf.vectorized_map` cannot vectorise an op it falls back
to a `while_loop` and says so only in the log ("Using a while_loop for converting ..."), which
explains a slow vectorized_map better than any timing. TensorFlow logs through the Python
logger named "tensorflow".
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

MAX_NOTES = 5
MAX_CHARS = 300


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = " ".join(record.getMessage().split())[:MAX_CHARS]
        if text and text not in self.messages and len(self.messages) < MAX_NOTES:
            self.messages.append(text)


@contextlib.contextmanager
def tensorflow_warnings() -> Iterator[list[str]]:
    """Collect the warnings TensorFlow logs inside the block (the list fills as they come)."""
    collector = _Collector()
    logger = logging.getLogger("tensorflow")
    logger.addHandler(collector)
    try:
        yield collector.messages
    finally:
        logger.removeHandler(collector)


def as_note(message: str) -> str:
    if "while_loop for converting" in message:
        return f"vectorized_map fell back to a while_loop: {message}"
    return f"TensorFlow warned: {message}"

"""A strategy's failure as users need it: one line, and whether it is unsupported or failed."""

from __future__ import annotations

from engine.backends.tensorflow.loader import tf
from engine.results.formatting import one_line

__all__ = ["classify", "one_line"]


def classify(error: BaseException) -> str:
    """`unsupported` for a missing kernel or dtype on this device, else `failed`."""
    if isinstance(error, (tf.errors.NotFoundError, tf.errors.UnimplementedError)):
        return "unsupported"
    text = str(error).lower()
    if "no registered" in text or "not supported" in text or "unsupported" in text:
        return "unsupported"
    return "failed"

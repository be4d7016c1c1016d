"""A strategy's failure as users need it: one line, and whether it is unsupported or failed."""

from __future__ import annotations

import tensorflow as tf

ERROR_MAX_CHARS = 500
NOISE_PREFIXES = ("Graph execution error", "Detected at node", "Stack trace", "File ", "[[", "in ")


def one_line(error: BaseException) -> str:
    """TensorFlow errors carry pages of graph context; users need the line that says why."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    useful = [line for line in lines if not line.startswith(NOISE_PREFIXES)]
    first = (useful or lines or [""])[0]
    return f"{type(error).__name__}: {first}"[:ERROR_MAX_CHARS]


def classify(error: BaseException) -> str:
    """`unsupported` for a missing kernel or dtype on this device, else `failed`."""
    if isinstance(error, (tf.errors.NotFoundError, tf.errors.UnimplementedError)):
        return "unsupported"
    text = str(error).lower()
    if "no registered" in text or "not supported" in text or "unsupported" in text:
        return "unsupported"
    return "failed"

"""A strategy's failure as users need it: one line, and whether it is unsupported or failed."""

from __future__ import annotations

from engine.backends.tensorflow.loader import tf
from engine.results.formatting import classify_error, one_line

__all__ = ["classify", "one_line"]


def classify(error: BaseException) -> str:
    """`unsupported` for a missing kernel or dtype on this device, else `failed`."""
    if isinstance(error, (tf.errors.NotFoundError, tf.errors.UnimplementedError)):
        return "unsupported"
    return classify_error(error)

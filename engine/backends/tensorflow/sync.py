"""Waiting for the device: the end of every timed block (docs/timing.md, step 4)."""

from __future__ import annotations

from typing import Any

from engine.backends.tensorflow.loader import tf

_SYNC_DEVICES = {"supported": True}


def sync_all(output: Any = None) -> None:
    """Block until all queued device work is done; `output` is read back where that is the
    only way (a multi-worker eager context has no SyncDevice op)."""
    if _SYNC_DEVICES["supported"]:
        try:
            tf.test.experimental.sync_devices()
            return
        except tf.errors.InternalError:
            _SYNC_DEVICES["supported"] = False
    if output is not None:
        tf.nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, output)

"""Which accelerator a run would use, judged cheaply before any framework starts.

TPU resolvers can hang when offline, so the TPU is only tried when the environment hints at
one: Colab sets `COLAB_TPU_ADDR`, Cloud TPU setups set `TPU_NAME`, a TPU VM has `/dev/accel*`
(or VFIO devices on newer generations).
"""

from __future__ import annotations

import glob
import os
import shutil


class DeviceError(ValueError):
    """The requested layout cannot be made on this machine; `str()` says why."""


def tpu_hint() -> str | None:
    """Where a TPU might be: "colab", "local" (TPU VM), a TPU name, or None."""
    if os.environ.get("COLAB_TPU_ADDR"):
        return "colab"
    if os.environ.get("TPU_NAME"):
        return os.environ["TPU_NAME"]
    if glob.glob("/dev/accel*") or glob.glob("/dev/vfio/[0-9]*"):
        return "local"
    return None


def probe_kind() -> str:
    """Device kind a run would use (TPU > GPU > CPU), guessed without importing TensorFlow."""
    if tpu_hint():
        return "TPU"
    if glob.glob("/dev/nvidia[0-9]*") or shutil.which("nvidia-smi"):
        return "GPU"
    return "CPU"

"""Which accelerator a run would use, judged cheaply before any framework starts.

TPU resolvers can hang when offline, so the TPU is only tried when the environment hints at
one, in this order:

- a TPU attached to this VM — Cloud TPU VMs and Colab's current TPU runtimes ("TPU v2",
  v5e, v6e) — shows as `/dev/accel*` (v2–v4) or VFIO devices (v5e and later): the resolver
  takes `tpu="local"` (a bare `TPUClusterResolver()` there fails with "Please provide a TPU
  Name to connect to");
- Colab's legacy TPU runtime (a TPU node over the network) sets `COLAB_TPU_ADDR`: the
  resolver takes `grpc://` + that address;
- `TPU_NAME` names a TPU node or pod slice to connect to through the Cloud TPU API.

A local TPU wins over `TPU_NAME`, which TPU VM images may also set: resolving a name goes
through the Cloud TPU API, which needs credentials and can hang.
"""

from __future__ import annotations

import glob
import os
import shutil


class DeviceError(ValueError):
    """The requested layout cannot be made on this machine; `str()` says why."""


def tpu_hint() -> str | None:
    """Where a TPU might be: "local" (attached), "colab" (legacy node), a TPU name, or None."""
    if glob.glob("/dev/accel*") or glob.glob("/dev/vfio/[0-9]*"):
        return "local"
    if os.environ.get("COLAB_TPU_ADDR"):
        return "colab"
    if os.environ.get("TPU_NAME"):
        return os.environ["TPU_NAME"]
    return None


def tpu_resolver_argument(hint: str) -> str:
    """The `tpu=` argument of TPUClusterResolver for a hint from `tpu_hint`."""
    if hint == "colab":
        address = os.environ.get("COLAB_TPU_ADDR", "")
        return address if address.startswith("grpc://") else f"grpc://{address}"
    return hint


def probe_kind() -> str:
    """Device kind a run would use (TPU > GPU > CPU), guessed without importing TensorFlow."""
    if tpu_hint():
        return "TPU"
    if glob.glob("/dev/nvidia[0-9]*") or shutil.which("nvidia-smi"):
        return "GPU"
    return "CPU"

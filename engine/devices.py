"""Find the accelerator and lay out replicas, before TensorFlow initialises.

Logical CPU devices (simulated replicas) and TPU system initialisation can only be set up once
per process, before the first op runs: that is why every run gets a fresh worker process.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
from dataclasses import dataclass, field
from typing import Any


def _tf_config() -> dict[str, Any]:
    try:
        parsed = json.loads(os.environ.get("TF_CONFIG", "{}"))
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def worker_count() -> int:
    """Hosts named in TF_CONFIG (1 when absent): more than one means a multi-worker run."""
    cluster = _tf_config().get("cluster", {})
    return max(1, len(cluster.get("worker", [])) + len(cluster.get("chief", [])))


def task_index() -> int:
    """This host's position among the workers (0 = chief when there is no chief task)."""
    task = _tf_config().get("task", {})
    offset = len(_tf_config().get("cluster", {}).get("chief", []))
    return int(task.get("index", 0)) + (offset if task.get("type") == "worker" else 0)


class DeviceError(ValueError):
    """The requested layout cannot be made on this machine; `str()` says why."""


def tpu_hint() -> str | None:
    """Where a TPU might be, judged without network calls (resolvers can hang when offline)."""
    if os.environ.get("COLAB_TPU_ADDR"):
        return "colab"
    if os.environ.get("TPU_NAME"):
        return os.environ["TPU_NAME"]
    if glob.glob("/dev/accel*") or glob.glob("/dev/vfio/[0-9]*"):
        return "local"
    return None


def probe_kind() -> str:
    """Device kind a run would use, guessed cheaply before importing TensorFlow."""
    if tpu_hint():
        return "TPU"
    if glob.glob("/dev/nvidia[0-9]*") or shutil.which("nvidia-smi"):
        return "GPU"
    return "CPU"


@dataclass(frozen=True)
class DeviceSetup:
    kind: str  # CPU | GPU | TPU
    devices: tuple[str, ...]  # the replica devices a run uses, in order
    available: tuple[str, ...]  # every device of that kind found
    tpu_resolver: Any = field(default=None, compare=False, repr=False)
    notes: tuple[str, ...] = ()


def _connect_tpu(hint: str) -> Any:
    import tensorflow as tf

    if hint == "colab":
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    elif hint == "local":
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="local")
    else:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=hint)
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return resolver


def setup_devices(replicas: int = 1, allow_tpu: bool = True) -> DeviceSetup:
    """Detect TPU > GPU > CPU and return `replicas` devices; call before any TF op runs."""
    import tensorflow as tf

    hint = tpu_hint() if allow_tpu else None
    if hint:
        try:
            resolver = _connect_tpu(hint)
        except Exception as error:  # noqa: BLE001 - report and fall back to GPU/CPU
            notes = (f"TPU hinted ({hint}) but could not be initialised: {error}",)
        else:
            found = tuple(d.name for d in tf.config.list_logical_devices("TPU"))
            return _pick("TPU", found, replicas, resolver)
    else:
        notes = ()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
        found = tuple(d.name for d in tf.config.list_logical_devices("GPU"))
        return _pick("GPU", found, replicas, None, notes)
    cpus = tf.config.list_physical_devices("CPU")
    if replicas > 1:
        tf.config.set_logical_device_configuration(
            cpus[0], [tf.config.LogicalDeviceConfiguration() for _ in range(replicas)]
        )
        notes += (f"{replicas} logical CPU devices simulate replicas; they share the cores",)
    found = tuple(d.name for d in tf.config.list_logical_devices("CPU"))
    return _pick("CPU", found, replicas, None, notes)


def _pick(
    kind: str, found: tuple[str, ...], replicas: int, resolver: Any, notes: tuple[str, ...] = ()
) -> DeviceSetup:
    if replicas > len(found):
        raise DeviceError(
            f"replicas: {replicas} requested but this machine has {len(found)} {kind} "
            f"device(s); allowed: 1 to {len(found)}"
        )
    return DeviceSetup(kind, found[:replicas], found, resolver, notes)


def describe_devices() -> dict[str, Any]:
    """What `python -m engine devices` prints: what was found and what a run would use."""
    import tensorflow as tf

    setup = setup_devices(1)
    physical = {
        kind: [d.name for d in tf.config.list_physical_devices(kind)]
        for kind in ("CPU", "GPU", "TPU")
    }
    return {
        "device_kind": setup.kind,
        "tensorflow": tf.__version__,
        "default_device": setup.devices[0],
        "devices": list(setup.available),
        "physical_devices": physical,
        "max_replicas": len(setup.available) if setup.kind != "CPU" else "any (logical CPUs)",
        "tpu_hint": tpu_hint(),
        "notes": list(setup.notes),
    }

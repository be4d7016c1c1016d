"""Find the accelerator and lay out replicas, before TensorFlow initialises.

Logical CPU devices (simulated replicas) and TPU system initialisation can only be set up once
per process, before the first op runs: that is why every run gets a fresh worker process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.backends.tensorflow.loader import native_logs_filtered, tf
from engine.machine.accelerators import DeviceError, tpu_hint, tpu_resolver_argument


@dataclass(frozen=True)
class DeviceSetup:
    kind: str  # CPU | GPU | TPU
    devices: tuple[str, ...]  # the replica devices a run uses, in order
    available: tuple[str, ...]  # every device of that kind found
    tpu_resolver: Any = field(default=None, compare=False, repr=False)
    notes: tuple[str, ...] = ()


def _connect_tpu(hint: str) -> Any:
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=tpu_resolver_argument(hint))
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return resolver


def setup_devices(replicas: int = 1, allow_tpu: bool = True) -> DeviceSetup:
    """Detect TPU > GPU > CPU and return `replicas` devices; call before any TF op runs."""
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
    with native_logs_filtered():  # the first look at the GPUs starts CUDA: its logs filtered
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

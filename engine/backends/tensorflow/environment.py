"""The machine context stored beside the numbers, so runs from two machines can be compared."""

from __future__ import annotations

import os
from typing import Any

from engine.backends.tensorflow.devices import DeviceSetup
from engine.backends.tensorflow.loader import tf
from engine.backends.tensorflow.threads import thread_settings
from engine.machine.host import host_facts
from engine.results.parts import Environment

FLAG_VARIABLES = (
    "TF_ENABLE_ONEDNN_OPTS",
    "TF_XLA_FLAGS",
    "XLA_FLAGS",
    "OMP_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
    "OPENBLAS_NUM_THREADS",
    "OPENBLAS_CORETYPE",
    "CUDA_VISIBLE_DEVICES",
)


def capture(
    setup: DeviceSetup, llc_bytes: int, llc_source: str, threads: int | None = None
) -> Environment:
    """Versions, devices, threads and flags of this process, for the results' environment."""
    try:
        tf32 = bool(tf.config.experimental.tensor_float_32_execution_enabled())
    except AttributeError:
        tf32 = None
    return Environment(
        **host_facts(llc_bytes, llc_source),
        device_kind=setup.kind,
        devices=tuple(setup.devices),
        available_devices=tuple(setup.available),
        replicas=len(setup.devices),
        threads=thread_settings(threads),
        flags={
            "tensor_float_32": tf32,
            "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default (on for x86 CPUs)"),
            "env": {name: os.environ[name] for name in FLAG_VARIABLES if name in os.environ},
        },
        build={
            key: value
            for key, value in tf.sysconfig.get_build_info().items()
            if key in ("is_cuda_build", "is_rocm_build", "is_tensorrt_build", "cuda_version")
        },
        device_notes=tuple(setup.notes),
        frameworks={"tensorflow": framework_record(setup, threads)},
    )


def framework_record(setup: DeviceSetup, threads: int | None) -> dict[str, Any]:
    """TensorFlow's entry of `environment.frameworks`, as every framework has one: it ran in
    the run's own process."""
    return {
        "version": tf.__version__,
        "device": setup.devices[0] if setup.devices else None,
        "device_kind": setup.kind,
        "devices": len(setup.devices),
        "threads": thread_settings(threads),
        "thread_control": "tf.config.threading and CPU affinity",
        "process": "the run's own",
    }

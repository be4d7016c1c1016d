"""The machine context stored beside the numbers, so runs from two machines can be compared."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

import numpy as np

from engine.devices import DeviceSetup

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


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def capture(setup: DeviceSetup, llc_bytes: int, llc_source: str) -> dict[str, Any]:
    import tensorflow as tf

    try:
        tf32 = bool(tf.config.experimental.tensor_float_32_execution_enabled())
    except AttributeError:
        tf32 = None
    return {
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "hostname": platform.node(),
        "device_kind": setup.kind,
        "devices": list(setup.devices),
        "available_devices": list(setup.available),
        "replicas": len(setup.devices),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpu_affinity_count": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else None,
        "last_level_cache_bytes": llc_bytes,
        "last_level_cache_source": llc_source,
        "threads": {
            "intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
            "inter_op": tf.config.threading.get_inter_op_parallelism_threads(),
            "note": "0 means TensorFlow picks (usually one per core)",
        },
        "flags": {
            "tensor_float_32": tf32,
            "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default (on for x86 CPUs)"),
            "env": {name: os.environ[name] for name in FLAG_VARIABLES if name in os.environ},
        },
        "build": {
            key: value
            for key, value in tf.sysconfig.get_build_info().items()
            if key in ("is_cuda_build", "is_rocm_build", "is_tensorrt_build", "cuda_version")
        },
        "device_notes": list(setup.notes),
    }

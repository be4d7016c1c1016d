"""Whether the TensorFlow here can run the engine, judged from its installed metadata.

Checked before any work, without importing TensorFlow (an import costs seconds; a missing or
too old one should cost one line and exit 2). The engine never installs or upgrades
TensorFlow itself: on a Colab TPU or a Cloud TPU VM the preinstalled build matches the TPU
runtime, and replacing it can break the TPU.
"""

from __future__ import annotations

import importlib.util
import os
import re
from importlib import metadata

from engine.backends.tensorflow.declaration import (
    INSTALL_HINT,
    MIN_TENSORFLOW,
    MIN_TENSORFLOW_TEXT,
    TENSORFLOW_PIN,
)
from engine.backends.tensorflow.import_guard import import_problem
from engine.catalogue.strategy_info import FrameworkMissing

# Every name TensorFlow is published under; the import name is `tensorflow` for all of them.
DISTRIBUTIONS = (
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-tpu",
    "tensorflow-intel",
    "tensorflow-macos",
    "tensorflow-aarch64",
    "tf-nightly",
    "tf-nightly-cpu",
)
LIBTPU_INDEX = "https://storage.googleapis.com/libtpu-tf-releases/index.html"


def on_colab() -> bool:
    """A Colab runtime (it sets COLAB_RELEASE_TAG, and ships the google.colab module)."""
    return bool(os.environ.get("COLAB_RELEASE_TAG")) or _found("google.colab")


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def tensorflow_install_hint(device_kind: str, colab: bool | None = None) -> str:
    """What to install to add TensorFlow on this hardware, without breaking what is there.

    CPU: the plain wheel. GPU: the wheel with its CUDA libraries. TPU (a TPU VM, Kaggle or
    Colab, whose TPU runtimes ship JAX and no TensorFlow): `tensorflow-tpu`, which needs the
    matching libtpu from Google's release index and may conflict with the JAX and PyTorch
    already there, so in a fresh virtual environment of its own."""
    colab = on_colab() if colab is None else colab
    if device_kind == "TPU":
        where = "this Colab TPU runtime ships JAX, not TensorFlow; " if colab else ""
        return (
            f"{where}for TensorFlow on the TPU: `pip install tensorflow-tpu -f {LIBTPU_INDEX}` "
            "(in a fresh virtual environment: its libtpu can conflict with the JAX already "
            "installed); the JAX and NumPy strategies run without it"
        )
    if device_kind == "GPU":
        return (
            f'`pip install "tensorflow[and-cuda]=={TENSORFLOW_PIN}"` (TensorFlow with its CUDA '
            "libraries); the other installed frameworks run without it"
        )
    return (
        f"`pip install tensorflow=={TENSORFLOW_PIN}`; the other installed frameworks run without it"
    )


def tensorflow_problem() -> str | None:
    """Why TensorFlow cannot run the engine here, in a few words (None: it can), without
    importing it."""
    try:
        check_tensorflow()
    except FrameworkMissing as missing:
        return missing.reason
    return None


def tensorflow_version() -> str | None:
    """The installed TensorFlow's version from its metadata (None: no metadata found)."""
    for name in DISTRIBUTIONS:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def version_tuple(text: str) -> tuple[int, ...]:
    """`2.21.0rc1` -> (2, 21, 0): the leading numeric parts."""
    return tuple(int(part) for part in re.findall(r"\d+", text.split("+")[0])[:3])


def check_tensorflow() -> str:
    """The usable TensorFlow's version ("unknown" for a build without metadata), else raise
    FrameworkMissing with what to install."""
    if importlib.util.find_spec("tensorflow") is None:
        raise FrameworkMissing(
            f"tensorflow: not installed; {INSTALL_HINT}", "TensorFlow is not installed here"
        )
    version = tensorflow_version()
    if version is not None and version_tuple(version)[:2] < MIN_TENSORFLOW:
        raise FrameworkMissing(
            f"tensorflow: {version} is older than the minimum {MIN_TENSORFLOW_TEXT}; "
            f"{INSTALL_HINT}",
            f"TensorFlow {version} is older than the minimum {MIN_TENSORFLOW_TEXT}",
        )
    problem = import_problem()  # raises, exits or hangs on import: checked once per install
    if problem is not None:
        raise FrameworkMissing(f"tensorflow: {problem}", problem)
    return version or "unknown"  # no metadata: e.g. a source build

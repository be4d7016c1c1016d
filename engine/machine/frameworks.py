"""Whether the TensorFlow here can run the engine, judged from its installed metadata.

Checked before any work, without importing TensorFlow (an import costs seconds; a missing or
too old one should cost one line and exit 2). The engine never installs or upgrades
TensorFlow itself: on a Colab TPU or a Cloud TPU VM the preinstalled build matches the TPU
runtime, and replacing it can break the TPU.
"""

from __future__ import annotations

import importlib.util
import re
from importlib import metadata

MIN_TENSORFLOW = (2, 16)
MIN_TENSORFLOW_TEXT = ".".join(map(str, MIN_TENSORFLOW))
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
INSTALL_HINT = (
    f"on a fresh machine `pip install 'batched-matvec-profiler[tensorflow]'`; elsewhere a "
    f"TensorFlow >= {MIN_TENSORFLOW_TEXT} built for your accelerator (Colab and TPU VMs have one)"
)


class FrameworkMissing(Exception):
    """A framework a command needs is missing or too old; `str()` is the one line to show."""


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
        raise FrameworkMissing(f"tensorflow: not installed; {INSTALL_HINT}")
    version = tensorflow_version()
    if version is None:
        return "unknown"  # e.g. a source build: let the import decide
    if version_tuple(version)[:2] < MIN_TENSORFLOW:
        raise FrameworkMissing(
            f"tensorflow: {version} is older than the minimum {MIN_TENSORFLOW_TEXT}; {INSTALL_HINT}"
        )
    return version

"""TensorFlow, imported so that a broken optional package cannot take it down.

`import tensorflow` imports `jax` too (TFLite's helpers, `from jax import jit`), catching only
ImportError. A JAX that is installed but broken (it raises something else, or even calls
`sys.exit`) would then end the whole run, TensorFlow's and NumPy's variants included. The
run's own process never needs JAX (JAX variants run in a process of their own), so TensorFlow is
imported with `jax` hidden; the JAX variants then fail alone, in their process, with the reason.
Every engine module takes `tf` from here.

TensorFlow's native libraries log through absl before `TF_CPP_MIN_LOG_LEVEL` is read, each
library its own copy: the same oneDNN and CUDA lines printed twice on every start. The import
runs with the process's stderr captured, and every line is written back except the native log
lines below the level asked for (`TF_CPP_MIN_LOG_LEVEL`: 1 hides info, 2 warnings too, 3
errors too), and the CUDA build's "failed call to cuInit" on a machine without a GPU; a Python
traceback or anything else TensorFlow prints passes through unchanged.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from types import ModuleType

from engine.machine.accelerators import probe_kind

OPTIONAL_IMPORTS_HIDDEN = ("jax",)


def import_tensorflow() -> ModuleType:
    """`tensorflow`, first imported with the optional packages above hidden from it."""
    if "tensorflow" in sys.modules:
        return sys.modules["tensorflow"]
    hidden = [name for name in OPTIONAL_IMPORTS_HIDDEN if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import jax` -> ImportError
    try:
        with native_logs_filtered():
            import tensorflow
    finally:
        for name in hidden:
            if sys.modules.get(name, ModuleType(name)) is None:
                del sys.modules[name]
    return tensorflow


# "I0000 00:00:1796158903.980152   17381 port.cc:153] ...": absl's severity, date, time,
# thread, file:line.
NATIVE_LOG_LINE = re.compile(r"^([IWEF])\d{4} \d\d:\d\d:[\d.]+\s+\d+ \S+:\d+\] ")
SEVERITY = {"I": 0, "W": 1, "E": 2, "F": 3}
ABSL_PREAMBLE = "WARNING: All log messages before absl::InitializeLog() is called"


# TensorFlow's CUDA build asks the driver on every start; where there is no GPU to find, its
# "error" says nothing the run does not say better (the device kind).
NO_GPU_NOISE = ("failed call to cuInit",)


def shown_lines(text: str, level: int, gpu_here: bool = True) -> list[str]:
    """The lines of captured stderr a user should see at `TF_CPP_MIN_LOG_LEVEL` = level."""
    kept = []
    for line in text.splitlines(keepends=True):
        native = NATIVE_LOG_LINE.match(line)
        if native and SEVERITY[native.group(1)] < level:
            continue
        if native and not gpu_here and any(words in line for words in NO_GPU_NOISE):
            continue
        if line.startswith(ABSL_PREAMBLE) and level > 0:
            continue
        kept.append(line)
    return kept


def log_level() -> int:
    raw = os.environ.get("TF_CPP_MIN_LOG_LEVEL", "0").strip()
    return min(3, max(0, int(raw))) if raw.isdigit() else 0


@contextlib.contextmanager
def native_logs_filtered() -> Iterator[None]:
    """Capture file descriptor 2 for the block, then write back what `shown_lines` keeps."""
    level = log_level()
    if level == 0:
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (embedded, closed): nothing to filter
        yield
        return
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            text = captured.read().decode("utf-8", "replace")
            gpu_here = probe_kind() == "GPU"
            sys.stderr.write("".join(shown_lines(text, level, gpu_here)))
            sys.stderr.flush()


tf = import_tensorflow()

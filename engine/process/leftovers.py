"""What a process leaves in the temporary directory when it ends without Python's teardown.

TensorFlow's AutoGraph writes each function it converts to a `__autograph_generated_file*.py`
in the temporary directory and removes it in an `atexit` handler. The engine's processes end
with `os._exit` once TensorFlow is loaded (its teardown takes a second and has nothing left to
do), which skips that handler: every run left its converted functions behind, thousands of
files in /tmp over a day of runs. `remove_autograph_sources` does that one job of the teardown.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

AUTOGRAPH_PREFIX = "__autograph_generated_file"


def remove_autograph_sources() -> int:
    """Remove the source files of AutoGraph's modules loaded in this process; returns how many.

    Only a module AutoGraph named and loaded from a file directly in the temporary directory
    is touched (its name and its file both carry the prefix), so nothing else is removed."""
    removed = 0
    temp = Path(tempfile.gettempdir())
    for name, module in list(sys.modules.items()):
        source = getattr(module, "__file__", None)
        if not name.startswith(AUTOGRAPH_PREFIX) or not isinstance(source, str):
            continue
        path = Path(source)
        if path.parent != temp or not path.name.startswith(AUTOGRAPH_PREFIX):
            continue
        with contextlib.suppress(OSError):
            os.unlink(path)  # unlink never follows a link: at most the link itself goes
            removed += 1
    return removed

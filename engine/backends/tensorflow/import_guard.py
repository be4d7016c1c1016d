"""Whether TensorFlow's import finishes here, checked in a child process once per install.

An import that raises or exits is caught where TensorFlow is imported. One that hangs cannot
be: native code stuck in a library's initialiser holds the interpreter, so no thread or signal
of the process's own can end it. So the first run after TensorFlow is installed or changed
imports it in a child process (`backends/tensorflow/import_check.py`), ended from outside
after `import_limit_s()`; a success is remembered for that install (its `__init__.py`'s path,
size and time, and the interpreter), so later runs pay nothing. A failure is never
remembered: the next run checks again, so a fixed install is used at once.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import stat
import sys
import tempfile
from pathlib import Path

import platformdirs

from engine.machine.settings import seconds_from_environment
from engine.process.children import Child, engine_environment, run_to_end

OK = "ok"
LIMIT_VARIABLE = "MATVEC_TENSORFLOW_IMPORT_LIMIT_S"
DEFAULT_LIMIT_S = 180.0  # TensorFlow imports in 3-30 s on a slow shared machine
CHECKED_FILE = "tensorflow-imports.json"
KEPT_INSTALLS = 20


def import_failure(error: BaseException) -> str:
    """Why TensorFlow is unusable, in the words every strategy and `devices` show."""
    from engine.catalogue.strategy_info import framework_info

    return framework_info("tensorflow").import_failure(error)


def import_limit_s() -> float:
    return seconds_from_environment(LIMIT_VARIABLE, DEFAULT_LIMIT_S)


def install_key() -> str | None:
    """What identifies the TensorFlow this interpreter would import (None: none is found)."""
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or spec.origin is None:
        return None
    try:
        info = os.stat(spec.origin)
    except OSError:
        return None
    return f"{sys.executable}|{spec.origin}|{info.st_size}|{info.st_mtime_ns}"


def checked_file() -> Path:
    return Path(platformdirs.user_cache_dir("matvec-profiler")) / CHECKED_FILE


def remembered() -> list[str]:
    """The installs whose import finished before; an unreadable record is an empty one."""
    path = checked_file()
    try:
        if not stat.S_ISREG(path.lstat().st_mode):  # a planted link or device: not ours
            return []
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [k for k in data if isinstance(k, str)] if isinstance(data, list) else []


def remember(key: str) -> None:
    """Add `key` to the record, written whole (a temporary file renamed over it); a cache
    that cannot be written is no error: the next run checks again."""
    path = checked_file()
    others = [k for k in remembered() if k != key]
    kept = [*others[-(KEPT_INSTALLS - 1) :], key]
    with contextlib.suppress(OSError):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".checked.", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(kept, stream)
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)


# A failure seen once is this process's answer: keyed by what decides the import (the install,
# the path a child imports it from, the limit).
_FAILED: dict[tuple[str, str, float], str] = {}


def import_problem() -> str | None:
    """Why importing TensorFlow here fails or never finishes (None: it works, or there is
    none to import). Imported already in this process: it finished. A failure is checked once
    per process, so a run that asks twice spends the import limit once."""
    if "tensorflow" in sys.modules:
        return None
    key = install_key()
    if key is None or key in remembered():
        return None
    seen = (key, os.environ.get("PYTHONPATH", ""), import_limit_s())
    if seen not in _FAILED:
        problem = _check_import()
        if problem is None:
            remember(key)
            return None
        _FAILED[seen] = problem
    return _FAILED[seen]


def _check_import() -> str | None:
    """Import TensorFlow in a child process, under the limit; why it failed, or None."""
    limit = import_limit_s()
    child = Child(
        [sys.executable, "-m", "engine.backends.tensorflow.import_check"],
        env=engine_environment(),
    )
    try:
        finished = run_to_end(child, timeout_s=limit)
    finally:
        child.end(grace_s=0.5)
    if finished.ended.timed_out:
        return (
            f"TensorFlow's import did not finish within {limit:g} s (checked in a child "
            f"process; {LIMIT_VARIABLE} sets the limit)"
        )
    said = [line.strip() for line in finished.stdout.splitlines() if line.strip()]
    if said and said[-1] == OK:
        return None
    if said:
        return said[-1]
    why = child.last_line()
    return f"TensorFlow cannot be imported here (its import ended the process: {why[:200]})"

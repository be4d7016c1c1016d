"""The user's own kernels: `--kernel path/to/file.py:function[@framework]`, anywhere a strategy
goes (docs/user-kernels.md).

A kernel is read and checked when its config is parsed (the file exists, the function is
defined at its top level, its framework is known), then registered in the catalogue under the
function's name, so it is planned, sampled, raced, checked and shown like any strategy. It
always runs in a process of its own (execution/peers/parent.py), so one that crashes or hangs fails
alone. Its source and SHA-256 travel in each of its results: a stored run opens, renders and
compares on a machine that does not have the file.

Parsing a kernel never imports or runs it: the file is read as text and parsed with `ast`.
Only the process that measures it imports it, and only from the file named on the command
line or in the notebook, never from the browser.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import os
import re
import stat
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine.catalogue.catalog import (
    StrategyInfo,
    framework_info,
    frameworks,
    is_known,
    register,
    strategy_info,
)
from engine.machine.settings import seconds_from_environment
from engine.run_settings.fields import (
    PARSERS,
    ConfigError,
    Setting,
    is_reading_stored,
    shown,
    split_names,
)

FIELD = "kernel"
SPEC = re.compile(r"^(?P<path>[^,]+\.py):(?P<function>[A-Za-z_][A-Za-z0-9_]*)(?:@(?P<fw>\w+))?$")
MAX_SOURCE_BYTES = 256 * 1024
# The first call of a user kernel must return within this many seconds (a hang fails alone).
# The kernels `matvec-profiler dashboard --kernel` offers its pages, one spec per line.
DASHBOARD_KERNELS_VARIABLE = "MATVEC_DASHBOARD_KERNELS"
CALL_LIMIT_VARIABLE = "MATVEC_KERNEL_CALL_LIMIT_S"
DEFAULT_CALL_LIMIT_S = 120.0


def user_frameworks() -> tuple[str, ...]:
    """The frameworks a user's kernel may be written with: each folder that declares the kind
    its kernels run as (each has a runtime of its own)."""
    return tuple(f.name for f in frameworks() if f.user_kind is not None)


@dataclass(frozen=True)
class UserKernel:
    name: str
    path: str  # absolute
    function: str
    framework: str
    source: str  # the function's own source
    sha256: str  # of the whole file, as read when the config was parsed

    @property
    def spec(self) -> str:
        return f"{self.path}:{self.function}@{self.framework}"

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


_KERNELS: dict[str, UserKernel] = {}


def kernel_name(spec: str) -> str:
    """The strategy name a spec is measured under: its function's ("a/k.py:mine@numpy")."""
    return spec.rpartition(":")[2].partition("@")[0]


def parse_kernel_spec(text: Any) -> UserKernel:
    """Read and check one `path.py:function[@framework]`; refuse it in one line naming why.
    A config is rebuilt often (replace, sweep points, each request of a worker): an
    unchanged file (same size and modification time) is not read again."""
    if not isinstance(text, str) or not SPEC.match(text.strip()):
        raise ConfigError(
            FIELD, f"{text!r} is not PATH.py:FUNCTION or PATH.py:FUNCTION@FRAMEWORK (no commas)"
        )
    found = SPEC.match(text.strip())
    assert found is not None
    path = Path(found["path"]).expanduser().resolve()
    try:
        info = path.stat()
    except OSError as error:
        raise ConfigError(FIELD, f"cannot read {str(path)!r}: {error.strerror}") from None
    return _read_kernel(path, found["function"], found["fw"], info.st_mtime_ns, info.st_size)


def read_source(path: Path) -> bytes:
    """A kernel file's bytes, refused in one line unless it is a regular file of at most
    MAX_SOURCE_BYTES. Opened without blocking (a FIFO never hangs the run) and checked on the
    open file before anything is read (a link to /dev/zero is never read into memory)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise ConfigError(FIELD, f"cannot read {str(path)!r}: {error.strerror}") from None
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(FIELD, f"{str(path)!r} is not a regular file")
        if info.st_size > MAX_SOURCE_BYTES:
            raise ConfigError(FIELD, f"{path.name} is larger than {MAX_SOURCE_BYTES // 1024} KiB")
        raw = handle.read(MAX_SOURCE_BYTES + 1)
    if len(raw) > MAX_SOURCE_BYTES:  # it grew between the check and the read
        raise ConfigError(FIELD, f"{path.name} is larger than {MAX_SOURCE_BYTES // 1024} KiB")
    return raw


@functools.lru_cache(maxsize=256)
def _read_kernel(
    path: Path, function: str, declared: str | None, _mtime_ns: int, _size: int
) -> UserKernel:
    raw = read_source(path)
    try:
        text_source = raw.decode("utf-8")
        tree = ast.parse(text_source, filename=str(path))
    except (UnicodeDecodeError, SyntaxError) as error:
        raise ConfigError(FIELD, f"{path.name} is not valid Python: {error}") from None
    node = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function), None
    )
    if node is None:
        raise ConfigError(FIELD, f"{path.name} defines no top-level function {function!r}")
    framework = declared or detect_framework(tree, path.name)
    if framework not in user_frameworks():
        raise ConfigError(
            FIELD,
            f"{framework!r} kernels cannot run yet; write it with "
            f"{', '.join(user_frameworks())} (PATH.py:FUNCTION@numpy)",
        )
    if is_known(function) and not strategy_info(function).user:
        raise ConfigError(
            FIELD, f"{function!r} is the name of a catalogue strategy; rename your function"
        )
    return UserKernel(
        name=function,
        path=str(path),
        function=function,
        framework=framework,
        source=ast.get_source_segment(text_source, node) or "",
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def detect_framework(tree: ast.Module, filename: str) -> str:
    """The one framework the file imports (a framework besides NumPy wins over NumPy)."""
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    # The host's framework (NumPy) is imported beside every other: another one says more.
    declared = [framework_info(name) for name in user_frameworks()]
    others = sorted(f.name for f in declared if f.process != "host" and f.module in imported)
    if len(others) == 1:
        return others[0]
    hosts = [f.name for f in declared if f.process == "host" and f.module in imported]
    if not others and hosts:
        return hosts[0]
    choices = ", ".join(f"@{name}" for name in user_frameworks())
    raise ConfigError(
        FIELD,
        f"cannot tell the framework of {filename} from its imports; declare it: "
        f"PATH.py:FUNCTION with one of {choices}",
    )


def register_user_kernel(kernel: UserKernel) -> None:
    """Put the kernel in the catalogue under its name (replacing an earlier one of that name)."""
    _KERNELS[kernel.name] = kernel
    register(
        StrategyInfo(
            name=kernel.name,
            kind=framework_info(kernel.framework).user_kind,  # type: ignore[arg-type]
            summary=f"your kernel {kernel.function} from {Path(kernel.path).name} "
            f"({framework_info(kernel.framework).label})",
            kernel=f"{kernel.path}:{kernel.function}",
            framework=kernel.framework,  # type: ignore[arg-type]
            interactive=False,
            searchable=False,
            expression="your kernel",
            user=True,
            why="your own kernel, measured like every strategy",
            source=kernel.source,
        )
    )


def user_kernel(name: str) -> UserKernel | None:
    return _KERNELS.get(name)


def load_kernel(kernel: UserKernel) -> Callable[..., Any]:
    """Import the kernel's file and return its function, refusing a file changed since the
    run read it (the measured code must be the stored code)."""
    raw = read_source(Path(kernel.path))
    if hashlib.sha256(raw).hexdigest() != kernel.sha256:
        raise RuntimeError(f"{Path(kernel.path).name} changed since the run read it")
    spec = importlib.util.spec_from_file_location(f"matvec_user_{kernel.name}", kernel.path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot import {kernel.path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, kernel.function)


def call_limit_s() -> float:
    """Seconds a user kernel's first call may take ($MATVEC_KERNEL_CALL_LIMIT_S, else 120)."""
    return seconds_from_environment(CALL_LIMIT_VARIABLE, DEFAULT_CALL_LIMIT_S, most=86_400)


def parse_kernels(setting: Setting, field: str, value: Any) -> tuple[str, ...]:
    """The `kernels` field: `path.py:function[@framework]` specs, each read, checked and
    registered in the catalogue; a stored result's are kept as text, never read."""
    if value is None or value == "":
        return ()
    if not isinstance(value, str | list | tuple):
        raise ConfigError(field, f"must be a list of PATH.py:FUNCTION, got {type(value).__name__}")
    specs: list[str] = []
    for item in split_names(value, field):  # repeats and comma lists (a path holds no comma)
        if is_reading_stored():
            if not SPEC.match(item) or len(item) > 4096:
                raise ConfigError(field, f"{shown(item)} is not PATH.py:FUNCTION@FRAMEWORK")
            specs.append(item)
            continue
        kernel = parse_kernel_spec(item)
        register_user_kernel(kernel)
        specs.append(kernel.spec)
    names = [kernel_name(spec) for spec in specs]
    if len(set(names)) != len(names):
        raise ConfigError(field, "two kernels share a function name; rename one")
    return tuple(dict.fromkeys(specs))


PARSERS["kernels"] = parse_kernels

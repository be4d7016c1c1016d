"""What a runtime can do beyond the core every framework supplies (`runtime.Runtime`), each a
small protocol: declared by its framework (`FrameworkInfo.capabilities`, by name, in a
declaration that imports no framework), checked when its runtime is made (`checked`: a
runtime missing a declared capability is refused, naming what it lacks), and asked by
`isinstance`, never by probing for a method name. `tests/test_layering.py` holds each
framework's runtime class to its declaration without importing the framework.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Profiles(Protocol):
    """A profiler of its own (PyTorch: torch.profiler), run after the samples."""

    def profile(self, call: Callable[[int], Any], calls: int) -> Any:
        """`calls` more calls of `call(i)`, profiled: a `ProfileSummary`."""


@runtime_checkable
class ProbesDevice(Protocol):
    """The read ceiling of its own accelerator (the host's NumPy probe is a CPU framework's)."""

    def probe_buffer(self, elements: int) -> Any:
        """A float32 buffer of `elements` on the device."""

    def probe_read(self) -> Callable[[Any], Any]:
        """A read of every element of a buffer, as one call."""


@runtime_checkable
class ProbesL2(Protocol):
    """Its accelerator's L2 ceiling, where the framework can say the L2's size (CUDA's)."""

    def l2_cache_bytes(self) -> int | None:
        """The L2's size in bytes."""

    def l2_read(self, buffer: Any, times: int) -> Callable[[], Any]:
        """A call that reads `buffer` (from `probe_buffer`) `times` over in one launch."""


@runtime_checkable
class PlacesPerGpu(Protocol):
    """Replicas on one GPU each, driven from one process (PyTorch, CuPy)."""

    def replica_gpus(self, count: int) -> list[Any] | None:
        """`count` GPUs, one a replica (None where fewer are here)."""

    def put_on(self, array: Any, device: Any) -> Any:
        """`array` on `device`."""

    def on_device(self, device: Any) -> Any:
        """A context in which calls run on `device`."""

    def sync_device(self, device: Any) -> None:
        """Block until everything dispatched on `device` is computed."""


@runtime_checkable
class PlacesOverDevices(Protocol):
    """One program over several devices of its own, maybe across processes (JAX)."""

    @property
    def processes(self) -> int:
        """The framework's processes in this run (several on JAX's multi-process path)."""

    def replica_devices(self, count: int) -> list[Any] | None:
        """The devices to lay `count` replicas over (None where fewer are here)."""

    def place_over(self, *args: Any, **kwargs: Any) -> Any:
        """Inputs laid over the devices (one sharded array)."""

    def put_on(self, pair: tuple[Any, Any], device: Any) -> tuple[Any, Any]:
        """A replica's own slice on its own device."""

    def device_parts(self, output: Any) -> list[np.ndarray]:
        """An output's parts, one a device, on the host."""

    def is_local(self, device: Any) -> bool:
        """Whether `device` is this process's (another process times the others)."""

    def gather_floats(self, values: list[float | None]) -> list[float | None]:
        """Every process's values, in one list."""

    def every_process(self, values: list[float | None]) -> np.ndarray:
        """Every process's values, a row each."""

    def barrier(self, name: str) -> None:
        """Wait until every process reaches `name`."""


@runtime_checkable
class PreloadsCompiler(Protocol):
    """A compiler of its own loaded on request (PyTorch: Dynamo and Inductor, seconds to
    import: docs/timing.md, "Figures behind the code"): a prestarted process loads it before
    the run measures, so the first compiled variant's first call is not charged its import."""

    def preload_compiler(self) -> None:
        """Import the compiler's modules; nothing is compiled or timed."""


@runtime_checkable
class TimesDevice(Protocol):
    """Its GPU's own time (CUDA events: PyTorch, CuPy): around each timed block, the clocks
    each block ran at (NVML), and the launch-free and flushed-L2 forms of a call after the
    samples (docs/timing.md, "Device time"). Each is None (or nothing) on the host."""

    def device_timer(self) -> Any:
        """A fresh `blocks.DeviceTimer` for one variant's blocks."""

    def clock_reader(self) -> Callable[[], Any] | None:
        """A reader of the GPU's clocks (`gpu_clocks.BlockClocks`)."""

    def clocks_note(self) -> str | None:
        """Why `clock_reader` read no clocks, where it read none (no NVML, no such GPU)."""

    def device_forms(self, call: Callable[[], Any]) -> Any:
        """`call` warm, as a graph replay and after an L2 flush: a `DeviceForms`."""


# The names a declaration uses, and the protocol each stands for.
CAPABILITIES: dict[str, type] = {
    "profile": Profiles,
    "device_ceiling": ProbesDevice,
    "l2_ceiling": ProbesL2,
    "replica_gpus": PlacesPerGpu,
    "replica_devices": PlacesOverDevices,
    "compiler_preload": PreloadsCompiler,
    "device_time": TimesDevice,
}


class CapabilityMissing(TypeError):
    """A runtime that lacks a capability its framework declares."""


def members(name: str) -> tuple[str, ...]:
    """The methods and properties a capability asks for, by name."""
    protocol = CAPABILITIES[name]
    return tuple(sorted(m for m in vars(protocol) if not m.startswith("_")))


def missing(runtime: Any, declared: Iterable[str]) -> list[str]:
    """`capability: member` for each declared member the runtime (or its class) lacks."""
    return [
        f"{name}: {member}"
        for name in declared
        for member in members(name)
        if not hasattr(runtime, member)  # an instance or its class alike
    ]


def checked(runtime: Any, framework: str, declared: Sequence[str]) -> Any:
    """`runtime`, once it has every capability its framework declares; refused otherwise."""
    lacking = missing(runtime, declared)
    if lacking:
        raise CapabilityMissing(
            f"the {framework} runtime declares capabilities it does not have: {', '.join(lacking)}"
        )
    return runtime


def process_count(runtime: Any) -> int:
    """The framework's processes in this run: one unless it places over devices of its own."""
    return int(runtime.processes) if isinstance(runtime, PlacesOverDevices) else 1

"""CuPy on the first GPU: the same prepare -> sample -> check path as every framework.

CuPy runs only on an NVIDIA (or ROCm) GPU: where there is none its import or its first
allocation fails, and the run says so for its variants alone. A call is asynchronous on the
current stream; `sync` waits for the whole device, as the other frameworks' syncs do. Its
memory pool keeps what it allocated, so what the pool holds is at least the peak in use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy as cp
import numpy as np

from engine.harness.runtime import ArraysSayWhere


class CupyRuntime(ArraysSayWhere):
    framework = "cupy"
    device_kind = "GPU"
    array_types: tuple[type, ...] = (cp.ndarray,)  # what a user kernel must return

    def __init__(self, dtype: str, threads: int) -> None:
        self.device = cp.cuda.Device(0)
        self.device.use()
        self.threads = threads  # host threads do not drive CuPy's kernels; kept for the record
        self._clocks_note: str | None = None  # set by clock_reader

    def unsupported(self, dtype: str) -> str | None:
        if dtype == "bfloat16":
            return "CuPy has no bfloat16 arrays"
        return None

    def put(self, host: tuple[np.ndarray, np.ndarray]) -> tuple[Any, Any]:
        placed = tuple(cp.asarray(array) for array in host)
        self.sync(None)
        return placed  # type: ignore[return-value]

    def put_array(self, array: np.ndarray) -> Any:
        placed = cp.asarray(array)
        self.sync(None)
        return placed

    def store(self, placed: tuple[Any, Any], dtype: str) -> tuple[Any, Any]:
        raise ValueError(f"CuPy has no {dtype} storage point")

    def build(self, function: Callable[..., Any], option: str) -> Callable[..., Any]:
        if option:
            raise ValueError(f"CuPy kernels have no {option!r} variant")
        return function

    def sync(self, output: Any) -> None:
        self.device.synchronize()

    def to_host(self, output: Any) -> np.ndarray:
        return cp.asnumpy(output)

    def replica_gpus(self, count: int) -> list[Any] | None:
        """One GPU per replica, where `count` are here (None with fewer)."""
        if cp.cuda.runtime.getDeviceCount() < count:
            return None
        return [cp.cuda.Device(k) for k in range(count)]

    def put_on(self, array: Any, device: Any) -> Any:
        """A copy of `array` on `device`, finished, through the host (before any timing: no
        peer access between the GPUs is assumed)."""
        host = cp.asnumpy(array)
        with device:
            moved = cp.asarray(host)
        device.synchronize()
        return moved

    def on_device(self, device: Any) -> Any:
        return device  # a cupy.cuda.Device is the context that makes it current

    def sync_device(self, device: Any) -> None:
        device.synchronize()

    def probe_buffer(self, elements: int) -> Any:
        """A float32 buffer on the device, for the read probe (`peers/device_probes.py`)."""
        buffer = cp.ones(elements, dtype=cp.float32)
        self.sync(buffer)
        return buffer

    def probe_read(self) -> Callable[[Any], Any]:
        """A read of every element: a sum."""
        return cp.sum

    def l2_cache_bytes(self) -> int | None:
        """The GPU's L2 size, as CUDA reports it."""
        size = cp.cuda.runtime.getDeviceProperties(self.device.id).get("l2CacheSize")
        return int(size) if size else None

    def l2_read(self, buffer: Any, times: int) -> Callable[[], Any]:
        """`buffer` read `times` over in one launch: a kernel of its own (`l2_read.py`)."""
        from engine.backends.cupy.l2_read import l2_read

        return l2_read(buffer, times)

    def device_timer(self) -> Any:
        """CUDA events around each timed block."""
        from engine.measure.device_timer import EventTimer

        return EventTimer(cp.cuda.Event, cp.cuda.get_elapsed_time)

    def clock_reader(self) -> Callable[[], Any] | None:
        """NVML's reading of this GPU's clocks, found by its UUID where CUDA gives it."""
        from engine.machine.gpu_clocks import nvml_reader

        raw = cp.cuda.runtime.getDeviceProperties(self.device.id).get("uuid")
        uuid = _uuid_text(raw) if isinstance(raw, bytes) and len(raw) == 16 else None
        reader, self._clocks_note = nvml_reader(uuid, self.device.id)
        return reader

    def clocks_note(self) -> str | None:
        """Why the clocks were not read per block, where they were not."""
        return self._clocks_note

    def device_forms(self, call: Callable[[], Any]) -> Any:
        """`call` warm, as a CUDA graph replay, and after twice the L2 was written."""
        from engine.backends.cupy.device_forms import cupy_forms

        return cupy_forms(call, self.l2_cache_bytes())

    def memory_stats(self) -> dict[str, int] | None:
        pool = cp.get_default_memory_pool()
        used = int(pool.used_bytes())
        return {"bytes_in_use": used, "peak_bytes_in_use": max(used, int(pool.total_bytes()))}

    def environment(self) -> dict[str, Any]:
        properties = cp.cuda.runtime.getDeviceProperties(self.device.id)
        name = properties.get("name", b"")
        return {
            "version": cp.__version__,
            "device": f"cuda:{self.device.id}",
            "device_kind": self.device_kind,
            "device_name": name.decode() if isinstance(name, bytes) else str(name),
            "threads": self.threads,
            "thread_control": "none needed: the GPU runs the kernels",
        }


def _uuid_text(raw: bytes) -> str:
    """CUDA's 16-byte UUID as NVML names the GPU: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"."""
    text = raw.hex()
    return f"GPU-{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def make_runtime(dtype: str, threads: int) -> CupyRuntime:
    return CupyRuntime(dtype, threads)

"""PyTorch on CUDA when it is available, else the CPU; in modes replicated and sharded on a
multi-GPU box, one GPU per replica (`execution/replicas/host.py`).

On a TPU host PyTorch runs on the host CPU (torch_xla is not used): the results say so, so its
numbers are never read as the TPU's. TF32 stays off for float32 matmuls (PyTorch's default),
so float32 means float32.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from engine.harness.runtime import ArraysSayWhere

DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}


class TorchRuntime(ArraysSayWhere):
    framework = "torch"
    array_types: tuple[type, ...] = (torch.Tensor,)  # what a user kernel must return

    def __init__(self, dtype: str, threads: int) -> None:
        torch.set_num_threads(threads)
        torch.set_grad_enabled(False)
        self.cuda = torch.cuda.is_available()
        self.device = torch.device("cuda:0" if self.cuda else "cpu")
        self.device_kind = "GPU" if self.cuda else "CPU"
        self.dtype = DTYPES[dtype]
        self._clocks_note: str | None = None  # set by clock_reader
        if self.cuda:
            torch.backends.cuda.matmul.allow_tf32 = False

    def unsupported(self, dtype: str) -> str | None:
        return None

    def preload_compiler(self) -> None:
        import torch._dynamo
        import torch._inductor.compile_fx  # noqa: F401

    def put(self, host: tuple[np.ndarray, np.ndarray]) -> tuple[Any, Any]:
        placed = tuple(self._tensor(array) for array in host)
        self.sync(None)
        return placed

    def put_array(self, array: np.ndarray) -> Any:
        placed = self._tensor(array)
        self.sync(None)
        return placed

    def store(self, placed: tuple[Any, Any], dtype: str) -> tuple[Any, Any]:
        """The placed inputs narrowed to `dtype` on the device (a reduced-precision point's)."""
        narrowed = tuple(t.to(DTYPES[dtype]) for t in placed)
        self.sync(None)
        return narrowed  # type: ignore[return-value]

    def _tensor(self, array: np.ndarray) -> torch.Tensor:
        if self.dtype == torch.bfloat16:  # NumPy has no bfloat16: widen, then narrow exactly
            return torch.from_numpy(array.astype(np.float32)).to(self.device, torch.bfloat16)
        return torch.from_numpy(np.ascontiguousarray(array)).to(self.device).clone()

    def build(self, function: Callable[..., Any], option: str) -> Callable[..., Any]:
        """The kernel eager, or under `torch.compile` ("compile"): Inductor generates C++ (a
        compiler must be on the path) or, on a GPU, Triton kernels for this exact shape."""
        if option == "compile":
            if not self.cuda and shutil.which(os.environ.get("CXX", "c++")) is None:
                raise RuntimeError("torch.compile on the CPU needs a C++ compiler on the path")
            return torch.compile(function, dynamic=False)
        if option:
            raise ValueError(f"PyTorch kernels have no {option!r} variant")
        return function

    def sync(self, output: Any) -> None:
        if self.cuda:
            torch.cuda.synchronize(self.device)

    def to_host(self, output: Any) -> np.ndarray:
        if output.dtype == torch.bfloat16:
            output = output.float()  # exact: every bfloat16 is a float32
        return output.cpu().numpy()

    def replica_gpus(self, count: int) -> list[Any] | None:
        """One CUDA device per replica, where `count` are here (None on the CPU, which splits
        over threads, or with fewer GPUs)."""
        if not self.cuda or torch.cuda.device_count() < count:
            return None
        return [torch.device(f"cuda:{k}") for k in range(count)]

    def put_on(self, tensor: Any, device: Any) -> Any:
        """A copy of `tensor` on `device`, finished (a replica's slice, before any timing)."""
        moved = tensor.to(device, copy=True)
        torch.cuda.synchronize(device)
        return moved

    def on_device(self, device: Any) -> Any:
        return torch.cuda.device(device)

    def sync_device(self, device: Any) -> None:
        torch.cuda.synchronize(device)

    def probe_buffer(self, elements: int) -> Any:
        """A float32 buffer on the device, for the read probe (`peers/device_probes.py`)."""
        buffer = torch.ones(elements, dtype=torch.float32, device=self.device)
        self.sync(buffer)
        return buffer

    def probe_read(self) -> Callable[[Any], Any]:
        """A read of every element: a sum."""
        return torch.sum

    def l2_cache_bytes(self) -> int | None:
        """The GPU's L2 size, as CUDA reports it (None on the host)."""
        if self.device_kind != "GPU":
            return None
        return int(torch.cuda.get_device_properties(self.device).L2_cache_size)

    def l2_read(self, buffer: Any, times: int) -> Callable[[], Any]:
        """`buffer` read `times` over in one launch: a row sum over rows that all alias it
        (stride 0). On an H200 (`benchmarks/gpu_l2_probe.py`, half its L2) the row sum read
        5.8 TB/s, the whole view's sum 2.2 TB/s, under its 4.3 TB/s memory read."""
        view = buffer.unsqueeze(0).expand(times, -1)
        return lambda: view.sum(1)

    def device_timer(self) -> Any:
        """CUDA events around each timed block (None on the host)."""
        if not self.cuda:
            return None
        from engine.measure.device_timer import EventTimer

        return EventTimer(
            lambda: torch.cuda.Event(enable_timing=True), lambda a, b: a.elapsed_time(b)
        )

    def clock_reader(self) -> Callable[[], Any] | None:
        """NVML's reading of this GPU's clocks, found by its UUID (CUDA's numbering is not
        NVML's under CUDA_VISIBLE_DEVICES); None on the host or without NVML."""
        if not self.cuda:
            return None
        from engine.machine.gpu_clocks import nvml_reader

        uuid = getattr(torch.cuda.get_device_properties(self.device), "uuid", None)
        reader, self._clocks_note = nvml_reader(f"GPU-{uuid}" if uuid else None, 0)
        return reader

    def clocks_note(self) -> str | None:
        """Why the clocks were not read per block, where they were not."""
        return self._clocks_note

    def device_forms(self, call: Callable[[], Any]) -> Any:
        """`call` warm, as a CUDA graph replay, and after twice the L2 was written."""
        from engine.backends.torch.device_forms import torch_forms

        return torch_forms(call, self.l2_cache_bytes())

    def profile(self, call: Callable[[int], Any], calls: int) -> Any:
        """A `ProfileSummary` of `calls` more calls (`torch.profiler`)."""
        from engine.backends.torch.profile import profile_kernel

        return profile_kernel(call, self.sync, calls, self.cuda)

    def memory_stats(self) -> dict[str, int] | None:
        """The GPU's memory this process allocated, now and at its peak (None on the CPU)."""
        if not self.cuda:
            return None
        return {
            "bytes_in_use": int(torch.cuda.memory_allocated(self.device)),
            "peak_bytes_in_use": int(torch.cuda.max_memory_allocated(self.device)),
        }

    def environment(self) -> dict[str, Any]:
        return {
            "version": torch.__version__,
            "device": str(self.device),
            "device_kind": self.device_kind,
            "device_name": torch.cuda.get_device_name(self.device) if self.cuda else None,
            "cuda": torch.version.cuda,
            "threads": torch.get_num_threads(),
            "interop_threads": torch.get_num_interop_threads(),
            "thread_control": "torch.set_num_threads and CPU affinity",
        }


def make_runtime(dtype: str, threads: int) -> TorchRuntime:
    return TorchRuntime(dtype, threads)

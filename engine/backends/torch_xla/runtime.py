"""PyTorch/XLA on its PJRT device: a TPU where there is one, else what `PJRT_DEVICE` names
(the CPU when none is found, which is how it is tested on a machine without a TPU).

Lazy tensors change what a call is: calling a kernel only records its operations; they run
when the step ends (`torch_xla.sync()`, the `xm.mark_step()` of older releases), and only for
the tensors still alive then. A block of timed calls synced once at its end would run the
last call alone (the earlier outputs are dropped unrun): the first version of this runtime
did that, and the engine's plausibility check refused its 41 us "calls" as 90x the memory's
speed. So every call is its own step (`build` ends it, as a training loop does), and `sync`
waits for the device (`xm.wait_device_ops()`). The first call compiles and is not timed (the
warm-up), as for jax.jit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.runtime as xr

from engine.harness.runtime import ArraysSayWhere

DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}
DEVICE_KINDS = {"TPU": "TPU", "CUDA": "GPU", "GPU": "GPU", "ROCM": "GPU"}


def run_step() -> None:
    """Launch what was recorded (asynchronously)."""
    step = getattr(torch_xla, "sync", None) or xm.mark_step
    step()


def end_step() -> None:
    """Run what was recorded, and wait for the device to finish it."""
    run_step()
    xm.wait_device_ops()


class TorchXlaRuntime(ArraysSayWhere):
    framework = "torch_xla"
    array_types: tuple[type, ...] = (torch.Tensor,)

    def __init__(self, dtype: str, threads: int) -> None:
        torch.set_grad_enabled(False)
        self.threads = threads  # PJRT's CPU client sizes its own pool; kept for the record
        self.device = torch_xla.device() if hasattr(torch_xla, "device") else xm.xla_device()
        self.platform = str(xr.device_type() or "CPU").upper()
        self.device_kind = DEVICE_KINDS.get(self.platform, "CPU")
        self.dtype = DTYPES[dtype]

    def unsupported(self, dtype: str) -> str | None:
        return None

    def put(self, host: tuple[np.ndarray, np.ndarray]) -> tuple[Any, Any]:
        placed = tuple(self._tensor(array) for array in host)
        end_step()
        return placed

    def put_array(self, array: np.ndarray) -> Any:
        placed = self._tensor(array)
        end_step()
        return placed

    def store(self, placed: tuple[Any, Any], dtype: str) -> tuple[Any, Any]:
        narrowed = tuple(t.to(DTYPES[dtype]) for t in placed)
        end_step()
        return narrowed  # type: ignore[return-value]

    def _tensor(self, array: np.ndarray) -> torch.Tensor:
        if self.dtype == torch.bfloat16:  # NumPy has no bfloat16: widen, then narrow exactly
            return torch.from_numpy(array.astype(np.float32)).to(torch.bfloat16).to(self.device)
        return torch.from_numpy(np.ascontiguousarray(array)).to(self.device)

    def build(self, function: Callable[..., Any], option: str) -> Callable[..., Any]:
        if option:
            raise ValueError(f"PyTorch/XLA kernels have no {option!r} variant")

        def one_step(*args: Any) -> Any:
            output = function(*args)  # traced lazily; XLA caches the compiled graph
            run_step()
            return output

        return one_step

    def sync(self, output: Any) -> None:
        end_step()

    def to_host(self, output: Any) -> np.ndarray:
        if output.dtype == torch.bfloat16:
            output = output.float()  # exact: every bfloat16 is a float32
        return output.cpu().numpy()

    def probe_buffer(self, elements: int) -> Any:
        """A float32 buffer on the device, for the read probe (`peers/device_probes.py`)."""
        buffer = torch.ones(elements, dtype=torch.float32, device=self.device)
        end_step()
        return buffer

    def probe_read(self) -> Callable[[Any], Any]:
        """A read of every element: a sum."""
        return torch.sum

    def memory_stats(self) -> dict[str, int] | None:
        """The device's memory in use and at its peak, where PJRT reports it (a TPU or GPU)."""
        if self.device_kind == "CPU":
            return None
        try:
            info = xm.get_memory_info(self.device)
        except (RuntimeError, AttributeError):
            return None
        used = int(info.get("bytes_used", info.get("kb_total", 0) - info.get("kb_free", 0)))
        return {"bytes_in_use": used, "peak_bytes_in_use": int(info.get("peak_bytes_used", used))}

    def environment(self) -> dict[str, Any]:
        return {
            "version": torch_xla.__version__,
            "torch": torch.__version__,
            "device": str(self.device),
            "device_kind": self.device_kind,
            "pjrt_device": self.platform,
            "devices": int(xr.global_runtime_device_count()),
            "thread_control": "PJRT's own pools (CPU affinity bounds them)",
        }


def make_runtime(dtype: str, threads: int) -> TorchXlaRuntime:
    return TorchXlaRuntime(dtype, threads)

"""How to read a GPU's L2 for its ceiling: each way a framework can read a half-L2 buffer
several times over in one launch, against its memory read, on the GPU this runs on.

    python benchmarks/gpu_l2_probe.py

An H200 gave (2026-12-04) CuPy's sum over a stride-0 view 10 GB/s and PyTorch's 2.5 TB/s,
both under its 4.3 TB/s memory read: neither shows the L2. Each line: the method, the bytes
it reads a call, its median over 20 calls timed with CUDA events, and the rate.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

READ_PER_LAUNCH = 256 * 2**20


def timed(name: str, call: Callable[[], Any], nbytes: int, event: Any, sync: Callable) -> str:
    for _ in range(3):
        call()
    sync()
    times = []
    for _ in range(20):
        start, end = event(), event()
        start.record()
        call()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    median = statistics.median(times)
    rate = nbytes / median / 1e9
    return f"{name:<44} {nbytes / 2**20:8.1f} MiB  {median * 1e6:9.1f} us  {rate:8.1f} GB/s"


def torch_lines() -> list[str]:
    import torch

    device = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(device).L2_cache_size
    event = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    sync = torch.cuda.synchronize
    lines = [f"torch {torch.__version__}: L2 {l2 / 2**20:.0f} MiB"]
    big = torch.ones(1200 * 2**20 // 4, device=device)
    lines.append(timed("torch memory: sum over 1200 MiB", big.sum, big.numel() * 4, event, sync))
    del big
    for fraction in (0.25, 0.5, 0.75):
        buffer = torch.ones(int(l2 * fraction) // 16 * 4, device=device)
        nbytes = buffer.numel() * 4
        times = max(1, READ_PER_LAUNCH // nbytes)
        view = buffer.unsqueeze(0).expand(times, -1)
        tag = f"{fraction:.2f} L2"
        ev = (event, sync)
        lines.append(timed(f"torch {tag} expand().sum()", view.sum, nbytes * times, event, sync))
        lines.append(
            timed(
                f"torch {tag} expand().sum(1)", lambda v=view: v.sum(1), nbytes * times, event, sync
            )
        )
        lines.append(timed(f"torch {tag} sum per launch", buffer.sum, nbytes, event, sync))
        matrix = buffer.view(-1, 1024)
        ones = torch.ones(1024, device=device)
        lines.append(
            timed(f"torch {tag} matrix @ ones", lambda m=matrix, o=ones: m @ o, nbytes, *ev)
        )
        try:
            lines.append(triton_line(tag, buffer, times, event, sync))
        except Exception as error:  # noqa: BLE001 - a missing Triton is a line, not the end
            lines.append(f"torch {tag} triton: {type(error).__name__}: {error}"[:300])
    return lines


def triton_line(tag: str, buffer: Any, times: int, event: Any, sync: Callable) -> str:
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def l2_read(x_ptr, out_ptr, n, times, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        programs = tl.num_programs(0)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for _ in range(times):
            for start in range(pid * BLOCK, n, programs * BLOCK):
                offsets = start + tl.arange(0, BLOCK)
                acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0, cache_modifier=".cg")
        tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)

    programs = torch.cuda.get_device_properties(buffer.device).multi_processor_count * 8
    out = torch.empty(programs * 1024, device=buffer.device)
    n = buffer.numel()

    def call() -> Any:
        l2_read[(programs,)](buffer, out, n, times, BLOCK=1024)
        return out

    return timed(f"torch {tag} triton .cg kernel", call, n * 4 * times, event, sync)


def cupy_lines() -> list[str]:
    import cupy as cp

    from engine.backends.cupy.l2_read import l2_read

    l2 = cp.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
    event = lambda: cp.cuda.Event()  # noqa: E731

    class Ev:
        def __init__(self) -> None:
            self.e = event()

        def record(self) -> None:
            self.e.record()

        def synchronize(self) -> None:
            self.e.synchronize()

        def elapsed_time(self, end: Any) -> float:
            return cp.cuda.get_elapsed_time(self.e, end.e)

    sync = cp.cuda.Device().synchronize
    lines = [f"cupy {cp.__version__}: L2 {l2 / 2**20:.0f} MiB"]
    big = cp.ones(1200 * 2**20 // 4, dtype=cp.float32)
    lines.append(timed("cupy memory: sum over 1200 MiB", big.sum, big.size * 4, Ev, sync))
    lines.append(
        timed("cupy memory: l2_read kernel, 1 time", l2_read(big, 1), big.size * 4, Ev, sync)
    )
    del big
    for fraction in (0.125, 0.25, 0.5, 0.75, 1.0, 2.0):
        buffer = cp.ones(int(l2 * fraction) // 16 * 4, dtype=cp.float32)
        nbytes = buffer.size * 4
        times = max(1, READ_PER_LAUNCH // nbytes)
        tag = f"{fraction:.3f} L2"
        lines.append(
            timed(f"cupy {tag} l2_read kernel", l2_read(buffer, times), nbytes * times, Ev, sync)
        )
        if fraction == 0.5:
            view = cp.broadcast_to(buffer, (times, buffer.size))
            lines.append(timed(f"cupy {tag} broadcast sum", view.sum, nbytes * times, Ev, sync))
            lines.append(timed(f"cupy {tag} sum per launch", buffer.sum, nbytes, Ev, sync))
    return lines


def main() -> int:
    for part in (torch_lines, cupy_lines):
        try:
            print("\n".join(part()), flush=True)
        except Exception as error:  # noqa: BLE001 - one framework's failure keeps the other's
            print(f"{part.__name__}: {type(error).__name__}: {error}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

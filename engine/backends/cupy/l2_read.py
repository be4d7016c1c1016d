"""One launch that reads a buffer several times over, for the L2 probe: CuPy's reductions over
a stride-0 view read at about 10 GB/s on an H200 (its memory reads 4.4 TB/s), so the probe is
a kernel of its own. Each thread reads its float4s with `__ldcg` (cached in L2, not in the
SM's L1, which would otherwise hold a thread's share of a half-L2 buffer on a large GPU)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy as cp

SOURCE = r"""
extern "C" __global__ void l2_read(const float4* x, long long n4, int times, float* out) {
    float acc = 0.0f;
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (int t = 0; t < times; ++t) {
        for (long long i = first; i < n4; i += stride) {
            float4 v = __ldcg(x + i);
            acc += v.x + v.y + v.z + v.w;
        }
    }
    out[first] = acc;  /* one store a thread: the reads cannot be dropped */
}
"""
THREADS = 256
BLOCKS_PER_SM = 8


def l2_read(buffer: Any, times: int) -> Callable[[], Any]:
    """A call that reads `buffer` (float32, its size a multiple of 4) `times` over in one
    launch and returns the per-thread sums (on the device; the harness syncs)."""
    kernel = cp.RawKernel(SOURCE, "l2_read")
    device = cp.cuda.Device()
    blocks = int(device.attributes["MultiProcessorCount"]) * BLOCKS_PER_SM
    out = cp.empty(blocks * THREADS, dtype=cp.float32)
    n4 = buffer.size // 4

    def read() -> Any:
        kernel((blocks,), (THREADS,), (buffer, cp.int64(n4), cp.int32(times), out))
        return out

    return read

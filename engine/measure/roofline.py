"""Work and traffic of a batched matvec, and the rates derived from a time.

Counters are exact functions of the shape, so rates are derived, never guessed (Google
Benchmark's bytes/items-processed idea). Bytes count each input read once and each output
written once: the minimum traffic any implementation must move.
"""

from __future__ import annotations


def flops(matrices: int, rows: int, cols: int) -> int:
    """2·B·m·n: one multiply and one add per matrix element."""
    return 2 * matrices * rows * cols


def traffic_bytes(matrices: int, rows: int, cols: int, itemsize: int) -> int:
    """itemsize·B·(m·n + n + m): read A and x, write y."""
    return itemsize * matrices * (rows * cols + cols + rows)


def arithmetic_intensity(rows: int, cols: int, itemsize: int) -> float:
    """FLOPs per byte: about 2/itemsize for large m·n, far below any device's ridge point."""
    return (2 * rows * cols) / (itemsize * (rows * cols + cols + rows))


def rates(
    work_flops: int,
    work_bytes: int,
    matrices: int,
    seconds: float | None,
    peak_bytes_per_s: float | None,
) -> dict[str, float | None]:
    """GFLOP/s, GB/s (10^9 bytes), matrices/s and roofline fraction for one call of `seconds`."""
    if seconds is None or seconds <= 0:
        return {
            "gflops_per_s": None,
            "gbytes_per_s": None,
            "matrices_per_s": None,
            "roofline_fraction": None,
        }
    bytes_per_s = work_bytes / seconds
    return {
        "gflops_per_s": work_flops / seconds / 1e9,
        "gbytes_per_s": bytes_per_s / 1e9,
        "matrices_per_s": matrices / seconds,
        "roofline_fraction": (bytes_per_s / peak_bytes_per_s) if peak_bytes_per_s else None,
    }

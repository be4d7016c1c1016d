"""Work and traffic of a batched matvec, and the rates derived from a time.

Counters are exact functions of the shape, so rates are derived, never guessed (Google
Benchmark's bytes/items-processed idea). Bytes count each input read once and each output
written once: the minimum traffic any implementation must move.
"""

from __future__ import annotations


def flops(matrices: int, rows: int, cols: int) -> int:
    """2·B·m·n: one multiply and one add per matrix element."""
    return 2 * matrices * rows * cols


def traffic_bytes(
    matrices: int, rows: int, cols: int, itemsize: int, stored_itemsize: int | None = None
) -> int:
    """B·(m·n + n)·s + B·m·itemsize: read A and x (stored with `s` bytes each, the requested
    itemsize unless narrowed for storage), write y."""
    stored = itemsize if stored_itemsize is None else stored_itemsize
    return matrices * ((rows * cols + cols) * stored + rows * itemsize)


TPU_LANES = 128  # the minor dimension of a TPU tile
TPU_SUBLANES_32BIT = 8  # the second-minor dimension for 4-byte elements; 2-byte: 16, 1-byte: 32


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def tpu_tile(itemsize: int) -> tuple[int, int]:
    """XLA's TPU tile of the two minor dimensions: (8, 128) for 4 bytes, (16, 128) for 2."""
    return TPU_SUBLANES_32BIT * max(1, 4 // itemsize), TPU_LANES


def padded_minor(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """`shape` as XLA lays it out on a TPU: its two minor dimensions rounded up to the tile
    (a 100x100 float32 matrix is stored as 104x128)."""
    sublanes, lanes = tpu_tile(itemsize)
    if len(shape) == 1:
        return (_round_up(shape[0], lanes),)
    *major, second, minor = shape
    return (*major, _round_up(second, sublanes), _round_up(minor, lanes))


def tpu_padded_bytes(matrices: int, rows: int, cols: int, itemsize: int) -> int:
    """The bytes a TPU actually moves for A (B, m, n), x (B, n) and y (B, m) with padding."""
    total = 0
    for shape in ((matrices, rows, cols), (matrices, cols), (matrices, rows)):
        elements = 1
        for size in padded_minor(shape, itemsize):
            elements *= size
        total += elements * itemsize
    return total


def tpu_padding_note(matrices: int, rows: int, cols: int, itemsize: int) -> str:
    padded = tpu_padded_bytes(matrices, rows, cols, itemsize)
    logical = traffic_bytes(matrices, rows, cols, itemsize)
    shown = "x".join(map(str, padded_minor((rows, cols), itemsize)))
    return (
        f"on the TPU each {rows}x{cols} matrix is stored as {shown} (XLA's "
        f"{'x'.join(map(str, tpu_tile(itemsize)))} tiles): {padded / logical:.2f}x the logical "
        "bytes; roofline_fraction_padded is against the bytes it really moves"
    )


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


def fraction(work_bytes: int, seconds: float | None, ceiling: float | None) -> float | None:
    """The necessary bytes' rate over a ceiling (None without a time or a ceiling)."""
    if not seconds or seconds <= 0 or not ceiling:
        return None
    return work_bytes / seconds / ceiling


OVERHEAD_FACTOR = 10  # a call this many times longer than its bytes take at the peak
OVERHEAD_CALL_S = 2e-4  # ... and this short: its fixed cost (dispatch, launch, Python) rules


def regime(
    work_bytes: int,
    seconds: float | None,
    peak_bytes_per_s: float | None,
    working_set_bytes: int,
    llc_bytes: int | None,
    cache: str,
) -> tuple[str, str]:
    """What sets this call's time, named from the numbers: `overhead-bound` (a short call far
    slower than its bytes at the measured peak), `cache-resident` (warm inputs that fit in the
    last-level cache), else `memory-bound`; with the sentence that says why."""
    if seconds and peak_bytes_per_s:
        at_peak = work_bytes / peak_bytes_per_s
        if seconds > OVERHEAD_FACTOR * at_peak and seconds < OVERHEAD_CALL_S:
            return "overhead-bound", (
                f"a call takes {seconds * 1e6:,.1f} us, {seconds / at_peak:,.0f}x what its "
                f"{work_bytes:,} bytes take at the measured peak: its fixed cost per call "
                "(dispatch, launch, Python) sets the time, not memory"
            )
    if cache == "warm" and llc_bytes and working_set_bytes <= llc_bytes:
        return "cache-resident", (
            f"its inputs ({working_set_bytes / 2**20:.1f} MiB) fit in the "
            f"{llc_bytes / 2**20:.0f} MiB last-level cache and are reused warm: it reads the "
            "cache, so it can beat the DRAM ceiling"
        )
    return "memory-bound", (
        "it reads far more bytes than it computes on, so the bytes read set the time"
    )

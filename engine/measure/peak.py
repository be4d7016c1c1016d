"""The results' `peak`: the best of a run's read probes, whichever framework (or none) took them."""

from __future__ import annotations

from engine.measure.memory import bandwidth_buffer_bytes
from engine.results.parts import Peak, Probe


def peak_from(probes: list[Probe], device: str, llc_bytes: int) -> Peak:
    """The results JSON `peak` object: the best probe median, with every probe kept."""
    best = max(probes, key=lambda p: p.bandwidth_bytes_per_s)
    size = bandwidth_buffer_bytes(llc_bytes)
    methods = sorted({str(p.extra.get("method", "tensorflow")) for p in probes})
    return Peak(
        bandwidth_bytes_per_s=best.bandwidth_bytes_per_s,
        method=(
            f"best median of {len(probes)} synchronised read probes ({', '.join(methods)}; "
            f"{best.kernel} was best, {best.when} the strategies) over a "
            f"{size / 2**20:.0f} MiB float32 buffer on {device}, "
            f"{size / max(1, llc_bytes):.1f}x the last-level cache"
        ),
        device=device,
        buffer_bytes=size,
        probes=tuple(probes),
    )

"""A run's progress in words and as a fraction, by the decisions made so far.

Preparing counts one unit per variant; sampling counts each variant's samples up to the most
it may take (`repeats`). A variant that has stopped (precise, eliminated by the race, out of
budget) is credited with all of its units at once, so the bar follows the work that is really
left, and the label names what is still running and what the race has eliminated.
"""

from __future__ import annotations

from typing import Any


def sampling_started(status: Any) -> bool:
    return bool(status.sampled)


def run_fraction(status: Any) -> float:
    """Work done over all the work a run may do, crediting stopped variants in full."""
    variants = status.variant_count or len(status.variants)
    if not variants:
        return 0.0
    most = max(status.max_samples, 1)
    # The variant being prepared is not done yet; once sampling starts, all were prepared.
    prepared = variants if sampling_started(status) else max(0, status.variant_index - 1)
    finished = set(status.results)
    taken = sum(
        most if variant in finished else min(status.sampled.get(variant, 0), most)
        for variant in (status.variants or finished)
    )
    done = prepared + taken
    return min(1.0, done / (variants * (1 + most)))


def describe_run(status: Any) -> str:
    """ "Sampling: 2 of 7 still running (einsum, numpy) · eliminated: python_loop 110× numpy"."""
    elapsed = f"{status.elapsed_s:.1f} s elapsed"
    if status.state == "queued":
        return (
            f"Waiting in the queue: position {status.queue_position} "
            "(another run is using this machine; runs never overlap)."
        )
    if sampling_started(status):
        variants = list(status.variants) or list(status.sampled)
        running = [v for v in variants if v not in status.results]
        names = ", ".join(running[:4]) + (
            f" and {len(running) - 4} more" if len(running) > 4 else ""
        )
        text = f"Sampling: {len(running)} of {len(variants)} still running"
        text += f" ({names})" if running else ""
        if status.eliminated:
            gone = ", ".join(f"{v} {why}" for v, why in list(status.eliminated.items())[:4])
            text += f" · eliminated: {gone}"
        return f"{text} · {elapsed}"
    if status.variant:
        return (
            f"Preparing {status.variant} ({status.variant_index}/{status.variant_count}): "
            f"first call, warm-up, check · {elapsed}"
        )
    return f"{status.phase or 'Starting worker'}… · {elapsed}"

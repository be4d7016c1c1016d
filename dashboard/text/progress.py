"""A run's progress in words and as a fraction, by the decisions made so far.

Preparing counts one unit per variant; sampling counts each variant's samples up to the most
it may take (`repeats`). A variant that has stopped (precise, eliminated by the race, out of
budget) is credited with all of its units at once, so the bar follows the work that is really
left, and the label names what is still running and what the race has eliminated.
"""

from __future__ import annotations

from typing import Any

from engine.machine.words import counted


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
        if status.provisional and running:
            text += f" · {status.provisional}"
        return f"{text} · {elapsed}"
    if status.variant:
        return (
            f"Preparing {status.variant} ({status.variant_index}/{status.variant_count}): "
            f"first call, warm-up, check · {elapsed}"
        )
    return f"{status.phase or 'Starting worker'}… · {elapsed}"


def sweep_progress_text(status: Any) -> str:
    """ "Point 3 of 84 (matrices=100 · dim=16) · einsum, 2 of 5 · about 2 min left · 40 s elapsed".

    Before the grid is known the label says what is happening (never "Point 1 of 0"); the
    estimate appears once the first variant of the first point has finished."""
    elapsed = f"{status.elapsed_s:.0f} s elapsed"
    if not status.points_total:
        return f"Preparing the sweep: {status.phase or 'starting worker'}… · {elapsed}"
    if not status.point:
        points = counted(status.points_total, "point")
        return f"{points} to run · {status.phase or 'starting'}… · {elapsed}"
    point = min(status.points_done + 1, status.points_total)
    text = f"Point {point} of {status.points_total} ({status.point})"
    if status.variant:
        of = f", {status.variant_index} of {status.variant_count}" if status.variant_count else ""
        text += f" · {status.variant}{of}"
    return f"{text} · {time_left(status)} · {elapsed}"


def time_left(status: Any) -> str:
    """The estimate counted down since it was made (it is refined only as variants finish,
    and a page that showed it unchanged for a minute looked frozen); past it, said so."""
    if status.eta_s is None:
        return "estimating the time left"
    left = status.eta_s - max(0.0, status.elapsed_s - status.eta_at_s)
    if left < 1:
        return "taking longer than estimated"
    return f"{duration(left)} left"


def duration(seconds: float) -> str:
    """ "about 40 s", "about 3 min", "about 2.5 h": a countdown's precision, not a timing's."""
    if seconds < 90:
        return f"about {seconds:.0f} s"
    if seconds < 90 * 60:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds / 3600:.1f} h"

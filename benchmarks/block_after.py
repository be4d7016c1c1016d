"""The shared parts of `first_block` and `peer_rewarm`: a kernel's timed blocks right after a
neighbour, with or without a re-warm, in one plain process. Imports no framework, so each
benchmark's process holds only the framework it asks about."""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable, Mapping

import numpy as np
from scipy import stats

BLOCK_S = 0.02  # a timed block lasts about this long, as the run's do
FAST_NEIGHBOUR_S = 0.1  # a fast neighbour's running before a block

Blocks = dict[tuple[str, float], list[float]]


def add_flags(parser: argparse.ArgumentParser) -> None:
    """The flags both benchmarks take: the problem, the re-warms compared, the repetitions."""
    parser.add_argument("--rewarm", default="0,0.12", help="re-warm seconds to compare")
    parser.add_argument("--reps", type=int, default=25, help="per neighbour and re-warm")
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=100)


def drawn_inputs(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray]:
    """The flags' problem, float32, drawn from the same seed every time."""
    rng = np.random.default_rng(0)
    matrices = rng.standard_normal((args.matrices, args.dim, args.dim), dtype=np.float32)
    vectors = rng.standard_normal((args.matrices, args.dim), dtype=np.float32)
    return matrices, vectors


def run_for(call: Callable[[], object], seconds: float) -> None:
    """Call until `seconds` have passed (at least once)."""
    began = time.perf_counter()
    call()
    while time.perf_counter() - began < seconds:
        call()


def sized_block(call: Callable[[], object]) -> tuple[int, Callable[[], float]]:
    """How many calls of `call` make a block of about `BLOCK_S` (from one call timed now), and
    the function that times one such block (seconds per call)."""
    began = time.perf_counter()
    call()
    calls = max(1, math.ceil(BLOCK_S / (time.perf_counter() - began)))

    def block() -> float:
        began = time.perf_counter()
        for _ in range(calls):
            call()
        return (time.perf_counter() - began) / calls

    return calls, block


def blocks_after(
    neighbours: Mapping[str, Callable[[], object]],
    rewarm_call: Callable[[], object],
    block: Callable[[], float],
    rewarms: list[float],
    reps: int,
) -> tuple[Blocks, Blocks]:
    """`reps` times each (neighbour, re-warm) in a shuffled order: the neighbour, the re-warm
    (`rewarm_call` for that long), then three blocks. The first blocks and the later two, by
    (neighbour, re-warm)."""
    order = [(n, r) for n in neighbours for r in rewarms] * reps
    random.Random(1).shuffle(order)
    first: Blocks = {}
    later: Blocks = {}
    for name, rewarm in order:
        neighbours[name]()
        if rewarm:
            run_for(rewarm_call, rewarm)
        first.setdefault((name, rewarm), []).append(block())
        later.setdefault((name, rewarm), []).extend([block(), block()])
    return first, later


def report(first: Blocks, later: Blocks, rewarms: list[float], over: str, under: str) -> None:
    """Per re-warm, the median block after neighbour `over` over that after `under`, with a
    Mann–Whitney p, for the first blocks and for the later ones."""
    for rewarm in rewarms:
        cells = []
        for label, found in (("first block", first), ("later blocks", later)):
            above, below = found[(over, rewarm)], found[(under, rewarm)]
            ratio = statistics.median(above) / statistics.median(below)
            p_value = stats.mannwhitneyu(above, below).pvalue
            cells.append(
                f"{label} after {over} {statistics.median(above) * 1e3:.2f}, after {under} "
                f"{statistics.median(below) * 1e3:.2f}: ratio {ratio:.3f} (p = {p_value:.2g})"
            )
        print(f"re-warm {rewarm:g} s: " + "; ".join(cells))


def ask(
    args: argparse.Namespace,
    kernel: Callable[[], object],
    neighbours: Mapping[str, Callable[[], object]],
    what: str,
    over: str,
    under: str,
) -> None:
    """The question both benchmarks ask, once the kernel is warm: its blocks sized, then timed
    after each neighbour with each of the flags' re-warms, and the ratio of `over` to `under`."""
    calls, block = sized_block(kernel)
    rewarms = [float(r) for r in args.rewarm.split(",")]
    first, later = blocks_after(neighbours, kernel, block, rewarms, args.reps)
    print(f"{what}, {calls} calls a block, {args.reps} of each (ms, medians)")
    report(first, later, rewarms, over, under)

"""The per-level ceilings on this machine, and what their probes add to a run.

Two ways, in one process:

1. The probes alone, as a run takes them: the levels the OS reports, the first (full) round of
   the process, then `--runs` rounds of a warm process (a probe before the variants and one
   after, both short): each round's wall time and each level's median. A warm worker's run
   pays exactly one such round.
2. Whole warm runs through the notebook API (`engine.notebook.run`, one process kept warm as
   the worker keeps it): each run's `peak.levels`, its `timings.peak_s`, and where its
   variants were placed (`ceiling_level`, `ceiling_fraction`).

    python -m benchmarks.cache_ceilings [--runs 10] [--matrices 300] [--dim 32]
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine.machine.caches import cache_levels
from engine.measure.cache_ceilings import LevelProber
from engine.measure.memory import format_bytes


def probe_rounds(runs: int) -> None:
    levels, reason = cache_levels()
    if not levels:
        print(f"no cache levels here: {reason}")
        return
    print("levels:", ", ".join(f"{lv.name} {format_bytes(lv.bytes)}" for lv in levels))
    rounds = []
    for index in range(runs + 1):
        prober = LevelProber("CPU", levels, None)
        start = time.perf_counter()
        prober.probe("before")
        prober.probe("after")
        spent = time.perf_counter() - start
        rates = {p.extra["level"]: p.bandwidth_bytes_per_s / 1e9 for p in prober.probes}
        kind = "first (full)" if index == 0 else "warm"
        print(
            f"  round {index:2d} {kind:12s} {spent * 1e3:6.0f} ms  "
            + "  ".join(f"{name} {rate:6.1f} GB/s" for name, rate in rates.items())
        )
        if index:
            rounds.append(spent)
    print(
        f"warm rounds: median {statistics.median(rounds) * 1e3:.0f} ms, "
        f"max {max(rounds) * 1e3:.0f} ms over {len(rounds)}"
    )


def warm_runs(runs: int, matrices: int, dim: int) -> None:
    from engine import notebook

    for index in range(runs):
        result = notebook.run(
            matrices=matrices,
            dim=dim,
            strategies=["numpy", "batched_matvec"],
            cache="warm",
            progress=False,
        )
        data = result.to_dict()
        levels = "  ".join(
            f"{lv['level']} {lv['bandwidth_bytes_per_s'] / 1e9:.1f}"
            for lv in data["peak"].get("levels", [])
        )
        placed = "  ".join(
            f"{r['variant']}: {r['ceiling_fraction']:.0%} of {r['ceiling_level']}"
            f" ({r['roofline_fraction']:.0%} of memory)"
            for r in data["results"]
            if r.get("ceiling_fraction") is not None
        )
        print(f"  run {index:2d} peak_s {data['timings']['peak_s']:.2f}  {levels} GB/s  {placed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--matrices", type=int, default=300)
    parser.add_argument("--dim", type=int, default=32)
    args = parser.parse_args()
    print("1. the level probes alone, as a run takes them")
    probe_rounds(args.runs)
    print(f"2. warm runs of {args.matrices}x{args.dim}x{args.dim} in one process")
    warm_runs(args.runs, args.matrices, args.dim)


if __name__ == "__main__":
    main()

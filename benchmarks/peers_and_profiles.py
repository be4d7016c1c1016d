"""The peers beside TensorFlow, and what `--profile` costs, at the seed problem's size.

1. `run --strategy all` at 3000 x 100 x 100 float32: each peer's median, interval, GB/s and
   roofline beside the best TensorFlow strategy and NumPy, with the threads each used;
2. the same `--strategy all --xla` run without and with `--profile`, back to back, and the
   wall-time ratio (the issue's target: under 1.30), plus each variant's ops per call and
   time in ops against time outside them.

    python -m benchmarks.peers_and_profiles [--matrices 3000] [--dim 100]

Figures, not assertions: a shared machine moves medians by +-15% between processes.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from benchmarks.engine_cli import engine


def engine_run(out: Path, *flags: str) -> tuple[dict, float]:
    start = time.monotonic()
    engine("run", *flags, "--json", str(out), "--no-history", "--progress", "none", quiet=True)
    return json.loads(out.read_text()), time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrices", default="3000")
    parser.add_argument("--dim", default="100")
    args = parser.parse_args()
    size = ["--matrices", args.matrices, "--dim", args.dim, "--strategy", "all"]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        peers, wall = engine_run(folder / "peers.json", *size)
        peak = peers["peak"]["bandwidth_bytes_per_s"] / 1e9
        print(f"all strategies: {wall:.1f} s wall; peak {peak:.1f} GB/s")
        for entry in peers["results"]:
            low, high = entry["median_ci_s"] or (float("nan"), float("nan"))
            print(
                f"  {entry['variant']:<16} {entry['median_s'] * 1e3:8.2f} ms "
                f"({low * 1e3:.2f}-{high * 1e3:.2f})  {entry['gbytes_per_s']:5.1f} GB/s  "
                f"{entry['roofline_fraction']:4.0%}"
            )
        for name, info in peers["environment"].get("frameworks", {}).items():
            print(f"  {name}: {info.get('version')} threads={info.get('threads')}")
        print(f"  tensorflow/numpy threads: {peers['environment']['threads']}")
        winner = peers["winner"]
        print(f"  winner {winner['variant']}, tied with {winner['tied_with']}")

        _, plain_s = engine_run(folder / "plain.json", *size, "--xla")
        profiled, profiled_s = engine_run(folder / "profiled.json", *size, "--xla", "--profile")
        print(
            f"--profile: {profiled_s:.1f} s against {plain_s:.1f} s ({profiled_s / plain_s:.2f}x)"
        )
        for entry in profiled["results"]:
            profile = entry["profile"] or {}
            if profile.get("status") != "ok":
                continue
            print(
                f"  {entry['variant']:<20} {profile['ops_per_call']:10,.0f} ops/call  "
                f"in ops {profile['op_time_s'] * 1e3:8.2f} ms  "
                f"outside {profile['host_time_s'] * 1e3:8.2f} ms  ({profile['calls']} calls)"
            )


if __name__ == "__main__":
    main()

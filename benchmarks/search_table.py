"""Does the search find the faster form? The rows of the search issue, one search each.

For each (shape, framework) row: a `run --search` at that shape (every installed framework's
points, raced), then the framework's catalogue best (its named strategies, +xla included)
against the search's best point of that framework, with the ratio. `--repeat N` runs the seed
shape's search N more times and prints each winner-or-tie set and the points they share.

    python -m benchmarks.search_table [--repeat 5] [--budget 60]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from benchmarks.engine_cli import engine
from engine.catalogue.catalog import strategy_info

ROWS = (
    ((100_000, 8, 8), "tensorflow"),
    ((555, 37, 61), "torch"),
    ((64, 1000, 1000), "numpy"),
    ((3000, 100, 100), "numpy"),
    ((3000, 100, 100), "torch"),
    ((64, 1000, 1000), "tensorflow"),
)


def search(shape: tuple[int, int, int], budget: float, out: Path) -> tuple[dict, float]:
    matrices, rows, cols = shape
    started = time.perf_counter()
    engine(
        "run",
        f"--matrices={matrices}",
        f"--dim={rows}",
        f"--cols={cols}",
        "--search",
        f"--search-budget={budget}",
        "--no-history",
        "--progress=none",
        f"--json={out}",
        quiet=True,
    )
    return json.loads(out.read_text()), time.perf_counter() - started


def best_of(data: dict, framework: str, catalogue_only: bool) -> tuple[str, float] | None:
    found = []
    for entry in data["results"]:
        info = strategy_info(entry["strategy"])
        if info.framework != framework or entry["status"] != "ok" or not entry["correct"]:
            continue
        if catalogue_only and info.search_only:
            continue
        if entry.get("accuracy_class"):  # reduced precision answers another question
            continue
        found.append((entry["variant"], entry["median_s"]))
    return min(found, key=lambda pair: pair[1]) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=0)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="matvec-search-"))
    cache: dict[tuple[int, int, int], tuple[dict, float]] = {}
    for shape, framework in ROWS:
        if shape not in cache:
            cache[shape] = search(shape, args.budget, scratch / f"{'x'.join(map(str, shape))}.json")
        data, took = cache[shape]
        catalogue = best_of(data, framework, catalogue_only=True)
        searched = best_of(data, framework, catalogue_only=False)
        if catalogue is None or searched is None:
            print(f"{shape} {framework}: not installed or nothing correct")
            continue
        print(
            f"{'x'.join(map(str, shape)):>14} {framework:<10} catalogue best {catalogue[0]} "
            f"{catalogue[1] * 1e3:.3f} ms; searched best {searched[0]} {searched[1] * 1e3:.3f} ms "
            f"({catalogue[1] / searched[1]:.2f}x); search took {took:.0f} s; overall "
            f"{data['search']['best']}",
            flush=True,
        )
    seed = (3000, 100, 100)
    if args.repeat:
        sets = []
        for index in range(args.repeat):
            data, took = search(seed, args.budget, scratch / f"seed{index}.json")
            group = {data["search"]["best"], *data["search"]["tied_with"]}
            sets.append(group)
            peak = data["peak"]["bandwidth_bytes_per_s"]
            best = next(r for r in data["results"] if r["variant"] == data["search"]["best"])
            print(
                f"seed search {index + 1}: {took:.0f} s, best {data['search']['best']} "
                f"{best['median_s'] * 1e3:.3f} ms = {best['bytes'] / best['median_s'] / peak:.0%} "
                f"of the run's ceiling ({peak / 1e9:.1f} GB/s); ties {sorted(group)}",
                flush=True,
            )
        print(f"points every winner-or-tie set shares: {sorted(set.intersection(*sets))}")


if __name__ == "__main__":
    main()

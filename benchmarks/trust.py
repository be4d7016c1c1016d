"""Can the answers be trusted on this noisy machine? A/A, power, winner stability, ceiling.

1. `calibrate`: 5 fresh processes of the configuration measure this machine's noise floor.
2. A/A: 5 more fresh runs of the same configuration; every pair compared, one run a side.
3. Power: 5 runs of 1.5x the matrices; every (A/A run, power run) pair compared.
4. Winner: the winner-or-tie set of each A/A run, and the strategy common to all of them.
5. Ceiling: the independent (NumPy) probe beside the TensorFlow probes of one run.

Everything goes to a scratch history (the floor is looked up there), never the user's.

    python -m benchmarks.trust [--runs 5] [--matrices 3000] [--dim 100]
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from pathlib import Path

from benchmarks.engine_cli import engine
from engine.analysis.compare import compare_runs
from engine.results.parse import read_run_group
from engine.storage.history import History

STRATEGIES = ("batched_matvec", "einsum", "vectorized_map", "numpy")
BATCHED = ("batched_matvec", "einsum", "vectorized_map")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=100)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="matvec-trust-"))
    history = scratch / "history.sqlite3"
    shape = ["--dim", str(args.dim), *[f"--strategy={s}" for s in STRATEGIES]]
    common = [f"--history={history}", "--progress=none"]

    engine("calibrate", f"--runs={args.runs}", f"--matrices={args.matrices}", *shape, common[0])
    engine(
        "run",
        f"--repetitions={args.runs}",
        f"--matrices={args.matrices}",
        *shape,
        *common,
        f"--json={scratch / 'aa.json'}",
    )
    bigger = args.matrices * 3 // 2
    engine(
        "run",
        f"--repetitions={args.runs}",
        f"--matrices={bigger}",
        *shape,
        *common,
        f"--json={scratch / 'power.json'}",
    )

    store = History(history)
    aa, power = read_run_group(scratch / "aa.json"), read_run_group(scratch / "power.json")
    env = aa[0].environment
    floor = store.noise_floor(env.hostname, env.device_kind)
    assert floor is not None
    print(
        f"noise floor: between runs {floor.between_run_log_sd:.3f}, "
        f"ratios {floor.ratio_log_sd:.3f} (log sd); {floor.source}"
    )

    called, total, ratios = 0, 0, []
    for a, b in itertools.combinations(aa, 2):
        frame = compare_runs([a, b], floor=floor)
        rows = frame[~frame["baseline"]]
        called += int(rows["verdict"].isin(["faster", "slower"]).sum())
        total += len(rows)
        ratios += list(rows["ratio"])
    print(
        f"A/A: {called} of {total} comparisons called faster/slower ({called / total:.0%}); "
        f"ratios between identical runs {min(ratios):.2f}-{max(ratios):.2f}"
    )

    slower, total = 0, 0
    for a, b in itertools.product(aa, power):
        rows = compare_runs([a, b], floor=floor)
        rows = rows[~rows["baseline"] & rows["variant"].isin(BATCHED)]
        slower += int((rows["verdict"] == "slower").sum())
        total += len(rows)
    print(
        f"power ({args.matrices} vs {bigger} matrices): {slower} of {total} batched "
        f"comparisons called slower ({slower / total:.0%})"
    )

    sets = []
    for run in aa:
        winner = run.to_dict()["winner"]
        group = {winner["variant"], *winner["tied_with"]}
        sets.append(group)
        print(f"  winner {winner['variant']:<16} tied with {sorted(winner['tied_with'])}")
    common_set = set.intersection(*sets)
    print(f"winner-or-tie set common to all {len(aa)} runs: {sorted(common_set) or 'none'}")

    print("ceiling (first A/A run):")
    for probe in aa[0].peak.probes:
        print(
            f"  {probe.extra.get('method', '?'):<10} {probe.when:<6} "
            f"{probe.bandwidth_bytes_per_s / 1e9:6.1f} GB/s  {probe.kernel}"
        )
    print(json.dumps({"scratch": str(scratch)}))


if __name__ == "__main__":
    main()

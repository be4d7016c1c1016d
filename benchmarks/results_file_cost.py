"""What reading a results file costs, by its number of samples: seconds and peak memory of
`matvec-profiler import FILE` and `compare FILE FILE` in fresh processes, for this checkout
and, with --earlier, another one (a `git worktree` of an earlier commit), in one window.

One result of a small real run is given N samples around its median (a file of the size a
careless or hostile user can hand the tool); each command runs under `/usr/bin/time` with a
wall limit, so an earlier checkout that takes gigabytes is stopped, not waited on.

    python -m benchmarks.results_file_cost [--sizes 20000,100000,4500000] [--earlier DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from engine.process.children import Child, run_to_end

ROOT = Path(__file__).resolve().parent.parent


def base_run(folder: Path) -> dict:
    out = folder / "base.json"
    command = [sys.executable, "-m", "engine", "run", "--matrices", "64", "--dim", "8"]
    command += ["--strategy", "numpy,numpy_einsum", "--repeats", "5", "--no-history"]
    command += ["--progress", "none", "--json", str(out)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=300)
    return json.loads(out.read_text())


def with_samples(base: dict, count: int, folder: Path) -> Path:
    data = json.loads(json.dumps(base))
    entry = data["results"][0]
    rng = np.random.default_rng(count)
    median = float(np.median(entry["samples_s"]))
    # four significant digits, as a hand-made file writes them: 4.5 million in about 35 MB
    values = median * np.exp(rng.normal(0, 0.05, count))
    entry["samples_s"] = [float(f"{v:.4g}") for v in values]
    data["run_id"] = f"samples-{count}"
    path = folder / f"samples-{count}.json"
    path.write_text(json.dumps(data))
    return path


def measured(checkout: Path, args: list[str], limit_s: float, folder: Path) -> str:
    """ "12.3 s, 1,050 MB" in a fresh process, or what stopped it."""
    history = folder / f"h-{abs(hash((str(checkout), *args)))}.sqlite3"
    command = ["/usr/bin/time", "-f", "%e %M", sys.executable, "-m", "engine", *args]
    command += ["--history", str(history)] if args[0] == "import" else []
    child = Child(command, cwd=checkout)  # its own group: a stop ends python too
    done = run_to_end(child, timeout_s=limit_s)
    if done.ended.timed_out:
        return f"stopped at {limit_s:.0f} s"
    seconds, kilobytes = child.stderr_tail()[-1].split()
    said = f"{float(seconds):.2f} s, {int(kilobytes) / 1024:,.0f} MB"
    return said if done.code == 0 else f"{said} (exit {done.code})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,100000,4500000")
    parser.add_argument("--earlier", type=Path, default=None)
    parser.add_argument("--limit-s", type=float, default=120.0)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="results-cost-"))
    base = base_run(folder)
    checkouts = [("this checkout", ROOT)]
    checkouts += [("earlier", args.earlier)] if args.earlier else []
    for count in (int(size) for size in args.sizes.split(",")):
        path = with_samples(base, count, folder)
        size = path.stat().st_size / 2**20
        for name, checkout in checkouts:
            for command in (["import", str(path)], ["compare", str(path), str(path)]):
                said = measured(checkout, command, args.limit_s, folder)
                print(f"{count:>9,} samples ({size:5.1f} MB) {name:<14} {command[0]:<8} {said}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

"""The device check for a bare Linux GPU machine: PyTorch, JAX (and maybe CuPy) preinstalled,
no TensorFlow, no network.

Run from the repository root of a checkout on that machine:

    python benchmarks/gpu_check.py --out OUT_DIR [--wheels .whl]

1. The engine runs from the checkout itself (`python -m engine`, the repository root on the
   path): nothing is installed over the preinstalled frameworks. A small pure-Python
   dependency missing there (tqdm, platformdirs, ...) can travel as a wheel in `--wheels`; it
   is installed with `--no-deps --no-index` into a folder of its own, added to the path.
2. `devices --json`, then `run --strategy all` (the installed strategies) at the seed's size
   (3000x100x100 float32) and two other shapes (100000x8x8, 64x1000x1000), each a fresh
   process, each writing its results JSON to OUT_DIR. The seed's size adds a PyTorch and a
   CuPy user kernel that compute on a stream of their own (`tests/fixtures/user_kernels`):
   their ratio to the framework's own kernel shows the sync covered the whole device.
   Then the modes at the seed's size, with every per-replica record: sharded and replicated
   over one replica per GPU here (PyTorch and CuPy: a GPU each; JAX: a NamedSharding over
   them), and sharded over two (on a one-GPU box the frameworks say how many they need). Then
   without TensorFlow, a two-point `sweep` and a three-run `calibrate`, as a Colab or GPU box
   runs them.
3. A one-screen summary (`summary.txt`): per shape, each variant's median, synced against
   dispatch-only time, GB/s and its fraction of the read bandwidth measured on the device it
   ran on, correctness and why sampling stopped; its host against device time (CUDA events
   around each block), its warm, graph-replay and flushed-L2 forms, its clocks and throttled
   blocks (NVML: carry the nvidia-ml-py wheel in `--wheels` where the box lacks it) and its
   share of the speed of light (docs/timing.md, "Device time"); and every ceiling probe.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script there
from benchmarks.gpu_summary import (
    side_stream_kernels,
    side_stream_lines,
    summarise,
)

ROOT = Path(__file__).resolve().parent.parent
NEEDED = (
    "numpy",
    "scipy",
    "pandas",
    "ml_dtypes",
    "tqdm",
    "psutil",
    "platformdirs",
    "threadpoolctl",
)
SHAPES = ((3000, 100, 100), (100_000, 8, 8), (64, 1000, 1000))


def missing_modules() -> list[str]:
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def install_wheels(wheels: Path, target: Path) -> None:
    found = sorted(str(p) for p in wheels.glob("*.whl"))
    if not found:
        return
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            "--target",
            str(target),
            *found,
        ],
        check=True,
    )


class Budget:
    """The check's own deadline: a lease's minutes are few, so each step gets what is left
    (at most 300 s) and a step past the deadline is skipped with a line saying so."""

    def __init__(self, seconds: float | None) -> None:
        self.ends = None if seconds is None else time.monotonic() + seconds

    def left_s(self) -> float:
        return 300.0 if self.ends is None else min(300.0, self.ends - time.monotonic())


BUDGET = Budget(None)


def engine(args: list[str], env: dict[str, str], timeout_s: int = 900) -> Any:
    """`python -m engine ARGS`. The one engine child not started through the engine's own
    `Child`: this script runs on a bare machine before it knows the engine's dependencies
    import there (importing `engine` here is what it checks, in the child). A step that
    outlasts the check's budget comes back as exit 124 with what it printed."""
    limit = min(timeout_s, BUDGET.left_s())
    if limit <= 5:
        return subprocess.CompletedProcess(args, 125, "", "skipped: the check's budget is spent")
    try:
        return subprocess.run(
            [sys.executable, "-m", "engine", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=limit,
        )
    except subprocess.TimeoutExpired as ended:
        err = ended.stderr.decode() if isinstance(ended.stderr, bytes) else ended.stderr or ""
        return subprocess.CompletedProcess(args, 124, "", f"timed out after {limit:.0f} s {err}")


def gpu_count(env: dict[str, str]) -> int:
    """The GPUs PyTorch sees here (asked in a child: this script imports no framework)."""
    done = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.cuda.device_count())"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    text = done.stdout.strip()
    return int(text) if done.returncode == 0 and text.isdigit() else 0


def mode_check(out_dir: Path, env: dict[str, str], mode: str, replicas: int) -> list[str]:
    """One mode at the seed's size: JAX over its devices where it has them (else it says why),
    PyTorch and CuPy a GPU per replica, NumPy over host threads; each variant's per-replica
    record in the summary."""
    matrices, rows, cols = SHAPES[0]
    out = out_dir / f"run-{mode}-{replicas}.json"
    done = engine(
        [
            "run",
            f"--matrices={matrices}",
            f"--dim={rows}",
            f"--cols={cols}",
            "--strategy=numpy,jax_vmap,torch_bmm,cupy_matmul",
            f"--mode={mode}",
            f"--replicas={replicas}",
            "--no-history",
            "--progress=none",
            f"--json={out}",
        ],
        env,
    )
    if done.returncode != 0:
        return [f"{mode} x{replicas}: exit {done.returncode}: {done.stderr[-800:]}"]
    lines = [f"{mode} over {replicas} replicas:", *summarise(out)]
    for entry in json.loads(out.read_text())["results"]:
        for replica in entry.get("replicas", []):
            median = replica.get("median_s")
            shown = "-" if median is None else f"{median * 1e6:.1f} us"
            lines.append(
                f"  {entry['variant']:<16} replica {replica['replica']} on {replica['device']}: "
                f"{replica['matrices']} matrices, {shown}"
            )
    return lines


def without_tensorflow_checks(out_dir: Path, env: dict[str, str]) -> list[str]:
    """A two-point sweep and a three-run calibration, with what is installed (no TensorFlow
    on this machine): each stores its points or its floor in the check's history."""
    strategies = "--strategy=numpy,jax_vmap,torch_bmm,cupy_matmul"
    sweep = engine(
        ["sweep", "--matrices=1000,3000", "--dim=100", strategies, "--progress=none"], env
    )
    calibrate = engine(["calibrate", "--runs=3", "--time-budget=2"], env)
    return [
        f"sweep (2 points): exit {sweep.returncode}: {(sweep.stdout or sweep.stderr)[-600:]}",
        f"calibrate (3 runs): exit {calibrate.returncode}: "
        f"{(calibrate.stdout or calibrate.stderr)[-600:]}",
    ]


GPU_SET = "numpy,jax_vmap,jax_einsum,torch_bmm,torch_einsum,torch_broadcast,cupy_matmul,cupy_einsum"


def history_pair(out_dir: Path, env: dict[str, str]) -> list[str]:
    """The seed's size twice with the check's history: the second run learns from the first
    (a variant 4x the best there is confirmed with one block, across processes), and both
    name the same winner-or-tie set."""
    matrices, rows, cols = SHAPES[0]
    lines = []
    for turn in (1, 2):
        out = out_dir / f"run-history-{turn}.json"
        done = engine(
            [
                "run",
                f"--matrices={matrices}",
                f"--dim={rows}",
                f"--cols={cols}",
                f"--strategy={GPU_SET}",
                "--progress=none",
                f"--json={out}",
            ],
            env,
        )
        if done.returncode not in (0, 3):
            lines.append(f"history run {turn}: exit {done.returncode}: {done.stderr[-800:]}")
            continue
        data = json.loads(out.read_text())
        verdict = data.get("winner") or {}
        sampling = data.get("sampling") or {}
        priors = {
            **(sampling.get("priors") or {}),
            **{
                name: prior
                for peer in (sampling.get("peers") or {}).values()
                for name, prior in (peer.get("priors") or {}).items()
            },
        }
        timing = data.get("timings") or {}
        lines.append(
            f"history run {turn}: winner {verdict.get('variant')} tied {verdict.get('tied_with')} "
            f"timings {json.dumps(timing)} "
            f"priors {json.dumps(priors)}"
        )
        for entry in data["results"]:
            lines.append(
                f"  {entry['variant']:<16} {entry['status']:<8} samples {len(entry['samples_s'])}"
                f"  median {(entry.get('median_s') or 0) * 1e6:9.1f} us  "
                f"{' | '.join(n for n in entry['notes'] if 'history' in n)[:300]}"
            )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("gpu-check"))
    parser.add_argument("--wheels", type=Path, default=ROOT / ".whl")
    parser.add_argument(
        "--budget-s", type=float, default=None, help="stop starting steps after this long"
    )
    parser.add_argument(
        "--seed-only", action="store_true", help="the seed's size and its history pair alone"
    )
    args = parser.parse_args()
    BUDGET.ends = None if args.budget_s is None else time.monotonic() + args.budget_s
    args.out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    paths = [str(ROOT)]
    wanted = missing_modules() or importlib.util.find_spec("pynvml") is None  # clocks: optional
    if wanted and args.wheels.is_dir():
        target = args.out / "site"
        install_wheels(args.wheels, target)
        paths.append(str(target))
        sys.path.extend(paths[1:])
    still = missing_modules()
    if still:
        print(f"missing and not carried as wheels: {', '.join(still)}", file=sys.stderr)
        return 2
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")])
    env["MATVEC_HISTORY"] = str(args.out / "history.sqlite3")

    report: list[str] = []

    def say(lines: list[str]) -> None:  # the summary so far, kept if the lease ends early
        report.extend(lines)
        print("\n".join(lines), flush=True)
        (args.out / "summary.txt").write_text("\n".join(report) + "\n")

    devices = engine(["devices", "--json"], env, timeout_s=300)
    say([f"devices: {devices.stdout.strip() or devices.stderr.strip()[-500:]}"])
    for matrices, rows, cols in SHAPES:
        out = args.out / f"run-{matrices}x{rows}x{cols}.json"
        done = engine(
            [
                "run",
                f"--matrices={matrices}",
                f"--dim={rows}",
                f"--cols={cols}",
                "--strategy=all",
                *(side_stream_kernels() if (matrices, rows, cols) == SHAPES[0] else []),
                "--no-history",
                "--progress=none",
                f"--json={out}",
            ],
            env,
        )
        if done.returncode != 0:
            say([f"{matrices}x{rows}x{cols}: exit {done.returncode}: {done.stderr[-800:]}"])
        else:
            say([*summarise(out), *side_stream_lines(out)])
        if (matrices, rows, cols) == SHAPES[0]:
            say(history_pair(args.out, env))
            if args.seed_only:
                return 0
    gpus = max(1, gpu_count(env))
    say([f"GPUs PyTorch sees: {gpus}"])
    for mode, replicas in (("sharded", gpus), ("replicated", gpus), ("sharded", 2)):
        if mode == "sharded" and replicas == 2 and gpus == 2:
            continue  # already run
        say(mode_check(args.out, env, mode, replicas))
    say(without_tensorflow_checks(args.out, env))
    return 0


if __name__ == "__main__":
    sys.exit(main())

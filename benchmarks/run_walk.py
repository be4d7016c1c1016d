"""The walk of a run from the CLI to a kernel and back, as it happens: every call from one of
the engine's files into another, traced in the run's own process (`sys.setprofile`), for this
checkout and, with `--earlier DIR`, another one.

    python -m benchmarks.run_walk [--earlier /tmp/earlier]

A *stay* is a call that enters another engine file than its caller's; a *climb* is one from a
lower layer of the house (`tests/test_layering.py`'s order: machine and process, the catalogue
and the run's settings, measure, results, analysis, storage, harness, backends, execution, cli)
into a higher one: a callback handed down (the CLI's progress line called from the sampling) or
a module named by a string (`declared_call`). The run: `run --strategy einsum` (TensorFlow's,
measured in this process) at 100x8x8, fixed sampling, three samples, no history. Reports the
files visited, the stays, the distinct climbs (caller -> callee, by function) and how many
times each happened.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Layers from the ground up; `engine.spec` is what an older checkout called the catalogue and
# the run's settings.
LAYERS = (
    ("engine.machine", "engine.process"),
    ("engine.spec", "engine.catalogue"),
    ("engine.run_settings",),
    ("engine.measure",),
    ("engine.results",),
    ("engine.analysis",),
    ("engine.storage",),
    ("engine.harness",),
    ("engine.backends",),
    ("engine.execution",),
    ("engine.cli",),
    ("engine",),
)

TRACER = r"""
import json, sys
root = sys.argv[1] + "/engine/"
edges = {}
def profile(frame, event, arg):
    if event != "call":
        return
    callee = frame.f_code.co_filename
    if not callee.startswith(root):
        return
    back = frame.f_back
    while back is not None and not back.f_code.co_filename.startswith(root):
        back = back.f_back  # through a framework's or Python's own frames
    if back is None or back.f_code.co_filename == callee:
        return
    key = (back.f_code.co_filename[len(root):], back.f_code.co_name,
           callee[len(root):], frame.f_code.co_name)
    edges[key] = edges.get(key, 0) + 1
sys.setprofile(profile)
import threading
threading.setprofile(profile)
from engine.cli.main import main
try:
    code = main(sys.argv[3:])
finally:
    sys.setprofile(None)
    with open(sys.argv[2], "w") as out:
        json.dump([[*k, v] for k, v in edges.items()], out)
"""

RUN = ["run", "--strategy=einsum", "--matrices=100", "--dim=8", "--sampling=fixed"]
RUN += ["--repeats=3", "--warmup=1", "--no-history", "--progress=none"]


def module_of(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["engine", *parts])


def layer_of(module: str) -> int:
    best, found = -1, len(LAYERS)
    for index, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, found = len(name), index
    return found


def walk(checkout: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout), "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", TRACER, str(checkout), str(out), *RUN],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if not out.exists():
        raise SystemExit(f"{checkout}: the traced run wrote nothing: {done.stderr[-1500:]}")
    edges = json.loads(out.read_text())
    files = {e[0] for e in edges} | {e[2] for e in edges}
    climbs = [e for e in edges if layer_of(module_of(e[0])) < layer_of(module_of(e[2]))]
    return {
        "files": len(files),
        "stays": sum(e[4] for e in edges),
        "distinct_stays": len(edges),
        "climbs": sorted(climbs, key=lambda e: -e[4]),
        "exit": done.returncode,
    }


def report(name: str, found: dict) -> None:
    print(
        f"{name}: {found['files']} files, {found['distinct_stays']} distinct stays "
        f"({found['stays']} calls), {len(found['climbs'])} distinct climbs "
        f"({sum(c[4] for c in found['climbs'])} calls); run exit {found['exit']}"
    )
    for caller, function, callee, target, count in found["climbs"]:
        print(f"  {caller}:{function} -> {callee}:{target}  x{count}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--earlier", type=Path, help="another checkout to walk the same way")
    args = parser.parse_args()
    scratch = Path(os.environ.get("TMPDIR", "/tmp"))
    if args.earlier:
        report(str(args.earlier), walk(args.earlier.resolve(), scratch / "walk-earlier.json"))
    report("this checkout", walk(ROOT, scratch / "walk-this.json"))


if __name__ == "__main__":
    main()

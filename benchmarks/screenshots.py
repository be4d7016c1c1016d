"""A screenshot of every page and report state, to look at one by one.

Real runs first (the CLI, small problems, into a history of their own): five ways with a
profile, one way, a tiny problem, a sharded run, a search, float16 with unsupported variants,
and a sweep. Then a real Streamlit server over that history, driven by headless Chromium:
the Run page fresh, with a bad link, running and finished; History listed and each run opened;
Compare with too few runs, two alike and two that differ in shape; Sweeps; and every HTML
report (run, comparison, sweep, search) opened from disk.

    python -m benchmarks.screenshots --out test-artifacts/screenshots

Writes one PNG per state and `index.txt` naming what each shows. Takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.server import CHROMIUM_ARGS, ROOT, chromium_path, streamlit_server

SHAPE = ["--matrices", "300", "--dim", "16"]
QUICK = ["--repeats", "8", "--warmup", "1", "--time-budget", "5"]

RUNS: dict[str, list[str]] = {  # file stem -> CLI arguments of `run`
    "five-ways": [
        *SHAPE,
        *QUICK,
        "--strategy",
        "python_loop,einsum,batched_matvec,numpy,jax_vmap,torch_bmm",
        "--profile",
        "--label",
        "screens: five ways, profiled",
    ],
    "one-way": [*SHAPE, *QUICK, "--strategy", "einsum", "--label", "screens: one way"],
    "tiny": [
        "--matrices",
        "5",
        "--dim",
        "8",
        *QUICK,
        "--strategy",
        "einsum,numpy",
        "--label",
        "screens: tiny",
    ],
    "sharded": [
        *SHAPE,
        *QUICK,
        "--mode",
        "sharded",
        "--replicas",
        "2",
        "--strategy",
        "batched_matvec,einsum,numpy,jax_vmap",
        "--label",
        "screens: sharded",
    ],
    "search": [*SHAPE, *QUICK, "--search", "--search-budget", "20", "--label", "screens: search"],
    "float16": [
        *SHAPE,
        *QUICK,
        "--dtype",
        "float16",
        "--strategy",
        "einsum,numpy,jax_vmap,torch_bmm",
        "--label",
        "screens: float16",
    ],
}
SWEEP = [
    "--matrices",
    "16,256",
    "--dim",
    "4,16",
    "--strategy",
    "einsum",
    "--strategy",
    "numpy",
    "--repeats",
    "6",
    "--warmup",
    "0",
    "--time-budget",
    "3",
    "--label",
    "screens: sweep",
]


def engine(*args: str, env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "engine", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode not in (0, 1):  # 1: a variant failed, which is a state worth seeing
        raise SystemExit(f"engine {' '.join(args)} failed:\n{done.stderr[-3000:]}")


def make_results(scratch: Path, env: dict[str, str]) -> dict[str, Path]:
    files = {}
    for stem, args in RUNS.items():
        print(f"run {stem}...", flush=True)
        files[stem] = scratch / f"{stem}.json"
        engine("run", *args, "--json", str(files[stem]), env=env)
    print("sweep...", flush=True)
    files["sweep"] = scratch / "sweep.json"
    engine("sweep", *SWEEP, "--json", str(files["sweep"]), env=env)
    return files


def reports(files: dict[str, Path], scratch: Path) -> dict[str, Path]:
    wanted = {
        "report-run": [files["five-ways"]],
        "report-run-sharded": [files["sharded"]],
        "report-search": [files["search"]],
        "report-sweep": [files["sweep"]],
        "report-comparison": [files["five-ways"], files["tiny"]],
    }
    written = {}
    for name, inputs in wanted.items():
        written[name] = scratch / f"{name}.html"
        subprocess.run(
            [sys.executable, "-m", "dashboard.report", *map(str, inputs), "-o", str(written[name])],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
    return written


def run_id(path: Path) -> str:
    return json.loads(path.read_text())["run_id"]


class Camera:
    """One browser page; `shoot` waits for the app to settle, then takes the whole page."""

    def __init__(self, page, out: Path) -> None:
        self.page, self.out, self.index = page, out, []

    def settle(self) -> None:
        self.page.wait_for_function(
            "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120_000
        )
        self.page.wait_for_timeout(1500)  # plotly's transitions and fonts

    def shoot(self, name: str, what: str) -> None:
        """Streamlit scrolls inside its main pane, so a full-page shot is one screen: the
        window is made as tall as the pane's content first."""
        self.settle()
        height = self.page.evaluate(
            "() => Math.max(...[...document.querySelectorAll("
            "'[data-testid=stMain], [data-testid=stAppScrollToBottomContainer]')]"
            ".map(e => e.scrollHeight), 1000)"
        )
        self.page.set_viewport_size({"width": 1400, "height": min(int(height) + 80, 16000)})
        self.page.wait_for_timeout(1000)
        self.page.screenshot(path=str(self.out / f"{name}.png"), full_page=True)
        self.page.set_viewport_size({"width": 1400, "height": 1000})
        self.index.append(f"{name}.png: {what}")
        print(f"  {name}.png", flush=True)


def open_from_history(camera: Camera, server: str, label: str) -> None:
    page = camera.page
    page.goto(f"{server}/history")
    page.get_by_text("Run history").wait_for(timeout=60_000)
    page.get_by_label("Label contains").fill(label)
    page.get_by_label("Label contains").press("Enter")
    page.get_by_text(re.compile(r"^1 run\(s\)$")).wait_for(timeout=30_000)
    grid = page.locator("[data-testid='stDataFrame']").first
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # the first row's selection box
    button = page.get_by_role("button", name="Open run")
    page.wait_for_function("b => !b.disabled", arg=button.element_handle(), timeout=30_000)
    button.click()
    page.get_by_text("The fastest way").wait_for(timeout=60_000)


def pages(camera: Camera, server: str, files: dict[str, Path]) -> None:
    page = camera.page
    page.goto(f"{server}/?matrices=48&dim=8&strategy=einsum,numpy,python_loop")
    page.get_by_role("button", name="Run benchmark").wait_for(timeout=60_000)
    camera.shoot("run-fresh", "Run page, as a link opens it")
    page.goto(f"{server}/?matrices=abc&dtype=float7")
    page.get_by_role("button", name="Run benchmark").wait_for(timeout=60_000)
    camera.shoot("run-bad-link", "Run page opened from a link with two bad fields")
    page.goto(f"{server}/?matrices=3000&dim=100&strategy=python_loop,einsum,numpy&repeats=30")
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_text(re.compile(r"Sampling: ")).wait_for(timeout=180_000)
    page.screenshot(path=str(camera.out / "run-running.png"))
    camera.index.append("run-running.png: Run page while the race samples")
    page.get_by_text("The fastest way").wait_for(timeout=300_000)
    camera.shoot("run-finished", "Run page after that run (3000×100×100, three ways)")
    for stem, label in (
        ("five-ways", "five ways"),
        ("one-way", "one way"),
        ("tiny", "tiny"),
        ("sharded", "sharded"),
        ("search", "search"),
        ("float16", "float16"),
    ):
        open_from_history(camera, server, f"screens: {label}")
        camera.shoot(f"history-{stem}", f"History, the '{label}' run opened")
    page.goto(f"{server}/history")
    page.get_by_text("Run history").wait_for(timeout=60_000)
    camera.shoot("history-list", "History, every run listed")
    page.goto(f"{server}/compare")
    page.get_by_text("Compare runs").wait_for(timeout=60_000)
    camera.shoot("compare-too-few", "Compare with no runs chosen")
    five, one, tiny = (run_id(files[s]) for s in ("five-ways", "one-way", "tiny"))
    page.goto(f"{server}/compare?runs={five},{one}")
    page.locator(".js-plotly-plot").nth(1).wait_for(timeout=60_000)
    camera.shoot("compare-alike", "Compare: two runs of the same shape")
    page.goto(f"{server}/compare?runs={five},{tiny}")
    page.locator(".js-plotly-plot").nth(1).wait_for(timeout=60_000)
    camera.shoot("compare-mismatch", "Compare: 300×16×16 against 5×8×8 (the warning)")
    page.goto(f"{server}/sweeps")
    page.get_by_role("heading", name="Crossover map").wait_for(timeout=60_000)
    camera.shoot("sweeps", "Sweeps: the stored 2×2 sweep")
    page.get_by_label("Matrices B (comma-separated)").fill("10,100,1000")
    page.get_by_label("Rows m (comma-separated)").fill("8,32")
    page.get_by_role("button", name="Run sweep").click()
    page.get_by_text(re.compile(r"Point \d+ of 6 .* left")).wait_for(timeout=180_000)
    page.screenshot(path=str(camera.out / "sweeps-running.png"))
    camera.index.append("sweeps-running.png: Sweeps while a 6-point sweep runs (its estimate)")
    page.get_by_role("button", name="Cancel sweep").click()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "test-artifacts" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = chromium_path()
    if path is None:
        raise SystemExit("chromium not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        env = {
            **os.environ,
            "MATVEC_HISTORY": str(scratch / "history.sqlite3"),
            "MATVEC_QUEUE_DIR": str(scratch / "queue"),
            "TF_CPP_MIN_LOG_LEVEL": "2",
        }
        started = time.monotonic()
        files = make_results(scratch, env)
        html = reports(files, scratch)
        with (
            streamlit_server(
                log=open(scratch / "streamlit.log", "w"),
                MATVEC_HISTORY=env["MATVEC_HISTORY"],
                MATVEC_QUEUE_DIR=env["MATVEC_QUEUE_DIR"],
            ) as server,
            sync_playwright() as playwright,
        ):
            browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            camera = Camera(context.new_page(), args.out)
            pages(camera, server, files)
            for name, report in html.items():
                camera.page.goto(report.as_uri())
                camera.page.locator("h1").wait_for(timeout=60_000)
                camera.page.wait_for_timeout(2000)
                camera.page.screenshot(path=str(args.out / f"{name}.png"), full_page=True)
                camera.index.append(f"{name}.png: {name.replace('-', ' ')}, opened from disk")
            browser.close()
        (args.out / "index.txt").write_text("\n".join(camera.index) + "\n")
        print(f"{len(camera.index)} screenshots in {args.out} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()

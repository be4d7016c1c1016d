"""How good the answer before measuring is: a history filled by the Sweeps page's default
grid (matrices 10,100,1000,10000 x dim 16,64,256, float32, the dashboard's pre-selected
strategies), then runs at shapes that are not in it but inside its range, each in a fresh
process: did the predicted winner-or-tie set meet the measured one, and did the measured
winner's time fall inside its predicted interval (or within 25% of the predicted time)?
With `--browser`, the seconds from pressing Run (on a warm worker, the same history) to the
prediction on the page, in Chromium.

    python -m benchmarks.prediction_check [--shapes 30x32,300x32,...] [--browser]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine.catalogue.catalog import interactive_strategies

ROOT = Path(__file__).resolve().parent.parent
GRID = ("--matrices", "10,100,1000,10000", "--dim", "16,64,256")
SHAPES = "30x32,300x32,3000x32,300x128,3000x128,50x200"
WITHIN = 0.25


def engine(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "engine", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, timeout=3600)


def judged(data: dict) -> tuple[bool, bool, str]:
    """(sets meet, time within its interval or 25%, the line that says so) for one run."""
    made, winner = data.get("prediction") or {}, data.get("winner") or {}
    if "winner" not in made or not winner:
        return False, False, f"no prediction: {made.get('none', 'no verdict')}"
    predicted = {made["winner"], *made.get("tied_with", ())}
    measured = {winner["variant"], *winner.get("tied_with", ())}
    median = next(r["median_s"] for r in data["results"] if r["variant"] == winner["variant"])
    low, mid, high = made["times_s"].get(winner["variant"], (0.0, 0.0, 0.0))
    inside = low <= median <= high or abs(mid / median - 1) <= WITHIN
    line = (
        f"predicted {sorted(predicted)} (winner {made['winner']}), measured {sorted(measured)} "
        f"(winner {winner['variant']}, {median * 1e6:.4g} us; predicted {mid * 1e6:.4g} us, "
        f"{low * 1e6:.4g}-{high * 1e6:.4g}); {made['source']}"
    )
    return bool(predicted & measured), inside, line


def on_the_page(env: dict[str, str], shape: tuple[int, int], strategies: str) -> float:
    """Seconds from pressing Run to the prediction on the Run page, on a warm worker."""
    from playwright.sync_api import sync_playwright

    from benchmarks.server import CHROMIUM_ARGS, chromium_path, streamlit_server

    link = f"/?matrices={shape[0]}&dim={shape[1]}&strategy={strategies}"
    with streamlit_server(**env) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(url + link)
        run = page.get_by_role("button", name="Run benchmark")
        run.wait_for(timeout=120_000)
        page.wait_for_timeout(20_000)  # the worker started and prewarmed while the user reads
        started = time.monotonic()
        run.click()
        page.get_by_text("predicted from this machine's history").first.wait_for(timeout=120_000)
        seen = time.monotonic() - started
        page.get_by_text("The fastest way").wait_for(timeout=600_000)
        browser.close()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--browser", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="prediction-check-"))
    env = {**os.environ, "MATVEC_HISTORY": str(folder / "h.sqlite3")}
    env["MATVEC_QUEUE_DIR"] = str(folder / "queue")
    strategies = ",".join(interactive_strategies())
    began = time.monotonic()
    swept = engine("sweep", *GRID, "--strategy", strategies, "--progress", "none", env=env)
    print(f"default sweep: exit {swept.returncode}, {time.monotonic() - began:.0f} s")
    meets = inside = 0
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    for matrices, dim in shapes:
        out = folder / f"run-{matrices}x{dim}.json"
        done = engine(
            "run", "--matrices", str(matrices), "--dim", str(dim), "--strategy", strategies,
            "--progress", "none", "--json", str(out), env=env,
        )  # fmt: skip
        if done.returncode != 0:
            print(f"{matrices}x{dim}: exit {done.returncode}: {done.stderr[-300:]}")
            continue
        met, close, line = judged(json.loads(out.read_text()))
        meets, inside = meets + met, inside + close
        print(f"{matrices}x{dim}: sets {'meet' if met else 'differ'}, time "
              f"{'inside' if close else 'outside'}: {line}")  # fmt: skip
    print(f"winner sets meet in {meets} of {len(shapes)}; time inside in {inside} of {len(shapes)}")
    print(engine("history", "predictions", env=env).stdout.strip())
    if args.browser:
        seen = on_the_page(env, shapes[0], strategies)
        print(f"prediction on the page {seen:.2f} s after Run was pressed (warm worker)")


if __name__ == "__main__":
    main()

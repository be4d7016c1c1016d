"""The first click on a page whose server has just started: this checkout against an earlier
one, alternated, each click on a fresh server with a history of its own.

The dashboard's default run is clicked as soon as the page shows its Run button, while the
worker the click starts still imports TensorFlow. Per side, the median seconds from the click
to the first samples on screen (a first look's, where the checkout has one), to the run's own
first samples, and to the complete answer.

    git worktree add /tmp/before <commit>
    python -m benchmarks.cold_click --earlier /tmp/before [--pairs 4]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks import interactive_speed
from benchmarks.server import CHROMIUM_ARGS, ROOT, streamlit_server


def cold_click(browser, checkout: Path, scratch: Path) -> tuple[float, float, float]:
    """One click at once on a fresh server of `checkout`: (first samples, the run's own first
    samples, complete), in seconds from the click."""
    env = {
        "MATVEC_HISTORY": str(scratch / "history.sqlite3"),
        "MATVEC_QUEUE_DIR": str(scratch / "queue"),
        "PYTHONPATH": str(checkout),
    }
    script = "dashboard/server.py"  # an older checkout has only the app itself
    script = script if (checkout / script).exists() else "dashboard/app.py"
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        with streamlit_server(script=script, cwd=checkout, **env) as url:
            page.goto(url)
            page.get_by_role("button", name="Run benchmark").wait_for(timeout=60_000)
            samples, own, _, complete, run_id = interactive_speed.click_and_time(page)
            assert samples is not None and own is not None
            timings = interactive_speed.timings_of(scratch / "history.sqlite3", run_id)
            print(f"  {checkout.name}: {interactive_speed.phases(timings)}")
            return samples, own, complete
    finally:
        page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--earlier", type=Path, required=True)
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    sides = {"earlier": args.earlier.resolve(), "this": ROOT}
    found: dict[str, list[tuple[float, float, float]]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        for pair in range(args.pairs):
            order = list(sides) if pair % 2 == 0 else list(reversed(sides))
            for name in order:
                folder = Path(scratch) / f"{name}-{pair}"
                folder.mkdir()
                times = cold_click(browser, sides[name], folder)
                found[name].append(times)
                print(f"pair {pair + 1} {name}: " + ", ".join(f"{t:.2f}" for t in times))
        browser.close()
    for name, rows in found.items():
        first, own, complete = (statistics.median(column) for column in zip(*rows, strict=True))
        print(
            f"{name}: median click -> first samples {first:.2f} s, -> the run's own first "
            f"samples {own:.2f} s, -> complete {complete:.2f} s ({len(rows)} clicks)"
        )


if __name__ == "__main__":
    main()

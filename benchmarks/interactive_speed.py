"""Interactive speed, through a real browser and the real CLI (issue 13's targets).

1. First run after opening the page (default fast strategies, 3000 x 100 x 100 float32):
   click -> first result on screen ("Results so far" or the finished page), and click ->
   complete results, against the run's own `variants_s`.
2. Repeated run, same settings (second and later clicks): click -> complete results, against
   that run's `variants_s` (target: within variants_s + 1 s).
3. The CLI at 3000 x 100 x 100, two commands: a TensorFlow strategy (batched_matvec), wall
   time minus TensorFlow's own import (measured in separate processes, median of three),
   target under 3 s; and NumPy alone, which starts no TensorFlow, its whole wall time.

Every figure is one measurement on this machine, printed with the run's own phases; the
machine is shared, so compare within one invocation.

    python -m benchmarks.interactive_speed [--chromium /usr/bin/chromium] [--repeats 3]
    python -m benchmarks.interactive_speed --cli-only
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from benchmarks.server import CHROMIUM_ARGS, ROOT, streamlit_server
from engine.process.children import (
    ENGINE_ROOT,
    Child,
    engine_command,
    engine_environment,
    run_to_end,
)
from engine.storage.history import History

TIMEOUT_MS = 600_000
RUN_ID = r"/run ([0-9a-f]{8})/"


def shown_run_id(page: Page) -> str | None:
    return page.evaluate(f"() => (document.body.innerText.match({RUN_ID}) || [])[1] || null")


def wait_until_ready(page: Page) -> None:
    page.wait_for_function(
        "() => [...document.querySelectorAll('button')].some("
        "b => b.innerText.includes('Run benchmark') && !b.disabled)",
        timeout=TIMEOUT_MS,
    )


FINISHED = r"/([1-9][0-9]*) of [0-9]+ variant\(s\) finished/"
OWN_SAMPLES = "variant(s) finished; the others show their samples so far"


def click_and_time(page: Page) -> tuple[float | None, float | None, float | None, float, str]:
    """Click Run; seconds to the first samples on screen (the first look's, while the worker
    starts TensorFlow, or the run's own), to the run's own first samples, to the first finished
    variant's result of the run on screen, and to the complete new result."""
    before = shown_run_id(page)
    began = time.monotonic()
    page.get_by_role("button", name="Run benchmark").click()
    samples = finished = own = None
    while True:
        text = page.evaluate("() => document.body.innerText")
        now = shown_run_id(page)
        complete = bool(now and now != before and "The fastest way" in text)
        elapsed = time.monotonic() - began
        if samples is None and ("Results so far" in text or complete):
            samples = elapsed
        if own is None and (OWN_SAMPLES in text or complete):  # the run's caption, not a look's
            own = elapsed
        if finished is None and (
            page.evaluate(f"() => {FINISHED}.test(document.body.innerText)") or complete
        ):
            finished = elapsed
        if complete:
            return samples, own, finished, elapsed, now
        if elapsed > TIMEOUT_MS / 1000:
            raise TimeoutError("the run did not complete")
        page.wait_for_timeout(20)


def timings_of(history: Path, short_id: str) -> dict[str, float]:
    runs = History(history).list_runs()
    run_id = next(r for r in runs["run_id"] if r.startswith(short_id))
    found = History(history).get_run(run_id)
    assert found is not None and found.timings is not None
    return {**found.timings, "warm": bool(found.worker.get("warm"))}


def phases(timings: dict[str, float]) -> str:
    names = ("startup_s", "peers_s", "peak_s", "inputs_s", "variants_s", "total_s")
    return ", ".join(f"{n} {timings.get(n, 0.0):.2f}" for n in names)


def first_run(page: Page, url: str, history: Path, settle_s: float) -> None:
    page.goto(url)
    page.get_by_role("button", name="Run benchmark").wait_for(timeout=60_000)
    if settle_s:
        page.wait_for_timeout(settle_s * 1000)  # a user reading the settings first
    samples, own, finished, complete, run_id = click_and_time(page)
    timings = timings_of(history, run_id)
    print(
        f"first run, clicked {settle_s:g} s after the page was up: click -> first samples "
        f"{samples:.2f} s (the run's own {own:.2f} s), -> first finished result "
        f"{finished:.2f} s, -> complete "
        f"{complete:.2f} s (target variants_s + 5 = {timings['variants_s'] + 5:.2f} s); "
        f"phases: {phases(timings)}"
    )


def dashboard(chromium: str, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        for settle_s in (0.0, 10.0):  # each with a fresh server: a truly first run
            history = Path(scratch) / f"history-{settle_s:g}.sqlite3"
            env = {"MATVEC_HISTORY": str(history), "MATVEC_QUEUE_DIR": str(Path(scratch) / "q")}
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            with streamlit_server(**env) as url:
                first_run(page, url, history, settle_s)
                if settle_s:
                    continue
                for index in range(repeats):
                    wait_until_ready(page)
                    samples, _, finished, complete, run_id = click_and_time(page)
                    timings = timings_of(history, run_id)
                    print(
                        f"repeated run {index + 1}: click -> first samples {samples:.2f} s, "
                        f"-> first finished result {finished:.2f} s, -> complete {complete:.2f} s, "
                        f"variants_s + 1 = {timings['variants_s'] + 1:.2f} s "
                        f"(over variants_s by {complete - timings['variants_s']:.2f} s; warm "
                        f"worker: {timings['warm']}); phases: {phases(timings)}"
                    )
            page.close()
        browser.close()


def tensorflow_import_s() -> float:
    code = "import time; t = time.perf_counter(); import tensorflow; print(time.perf_counter() - t)"
    env = engine_environment(TF_CPP_MIN_LOG_LEVEL="3")
    times = [
        float(run_to_end(Child([sys.executable, "-c", code], env=env)).stdout.split()[-1])
        for _ in range(3)
    ]
    return statistics.median(times)


def cli_run(strategy: str) -> tuple[float, dict]:
    """One `run` of `strategy` in a fresh process: its wall time and its own timings."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "run.json"
        command = engine_command(
            "run",
            "--matrices",
            "3000",
            "--dim",
            "100",
            "--strategy",
            strategy,
            "--no-history",
            "--progress",
            "none",
            "--json",
            str(out),
        )
        env = engine_environment(TF_CPP_MIN_LOG_LEVEL="3", MATVEC_QUEUE_DIR=scratch)
        began = time.monotonic()
        done = run_to_end(Child(command, env=env, cwd=ENGINE_ROOT))
        wall = time.monotonic() - began
        if done.code != 0:
            raise SystemExit(f"the run failed: {' '.join(done.stderr_tail[-3:])}")
        return wall, json.loads(out.read_text())["timings"]


def cli() -> None:
    wall, timings = cli_run("batched_matvec")
    imported = tensorflow_import_s()
    print(
        f"CLI batched_matvec 3000x100x100: wall {wall:.2f} s, TensorFlow import {imported:.2f} s "
        f"(median of 3, separate processes), wall - import {wall - imported:.2f} s "
        f"(target 3 s); phases: {phases(timings)}"
    )
    wall, timings = cli_run("numpy")
    print(
        f"CLI numpy 3000x100x100 (starts no TensorFlow): wall {wall:.2f} s; "
        f"phases: {phases(timings)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--repeats", type=int, default=3, help="repeated runs to time")
    parser.add_argument("--cli-only", action="store_true", help="only the CLI's two commands")
    args = parser.parse_args()
    cli()
    if not args.cli_only:
        dashboard(args.chromium, args.repeats)


if __name__ == "__main__":
    os.chdir(ROOT)
    main()

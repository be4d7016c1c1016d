"""History at scale: database size per stored run and History page load with N runs.

Stores N copies (fresh run_ids) of a real results JSON into a new SQLite file, then times
`History.list_runs()` and the History page in a real Streamlit server + headless Chromium
(from navigation to the run count being rendered).

    python -m benchmarks.history_timing results.json [--runs 1000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.server import CHROMIUM_ARGS, streamlit_server
from engine.results.parse import read_results_file
from engine.storage.history import History


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    template = read_results_file(args.results)
    path = Path(tempfile.mkdtemp()) / "history.sqlite3"
    history = History(path)
    start = time.perf_counter()
    for index in range(args.runs):
        template.run_id = uuid.uuid4().hex
        template.config = replace(template.config, label=f"bench run {index}")
        history.add_run(template)
    insert_s = time.perf_counter() - start
    size = sum(p.stat().st_size for p in path.parent.glob("history.sqlite3*"))
    listings = []
    for _ in range(5):
        began = time.perf_counter()
        history.list_runs()
        listings.append(time.perf_counter() - began)

    loads = []
    with streamlit_server(MATVEC_HISTORY=str(path)) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(f"{url}/history")  # warm the server once
        page.get_by_text(f"{args.runs:,} run(s)").wait_for(timeout=60_000)
        for _ in range(5):
            page.goto(f"{url}/run")
            page.get_by_role("button", name="Run benchmark").wait_for()
            began = time.perf_counter()
            page.goto(f"{url}/history")
            page.get_by_text(f"{args.runs:,} run(s)").wait_for(timeout=60_000)
            page.locator("[data-testid='stDataFrame']").wait_for()
            loads.append(time.perf_counter() - began)
        browser.close()
    print(
        f"stored {args.runs} runs in {insert_s:.2f} s; database {size / 2**20:.2f} MiB, "
        f"{size / args.runs / 1024:.1f} KiB per run"
    )
    print(f"History.list_runs(): median {statistics.median(listings) * 1e3:.1f} ms")
    print(
        f"History page load (navigate -> table rendered): median "
        f"{statistics.median(loads):.2f} s, all {', '.join(f'{v:.2f}' for v in loads)}"
    )


if __name__ == "__main__":
    main()

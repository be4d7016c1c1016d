"""History at scale: database size per stored run and History page load with N runs.

Stores N copies (fresh run_ids) of a real results JSON into a new SQLite file, then times
`History.list_runs()` and the History page in a real Streamlit server + headless Chromium
(from navigation to the run count being rendered).

    python -m benchmarks.history_timing results.json [--runs 1000]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

from playwright.sync_api import sync_playwright

from engine.history import History
from engine.validate import read_results_file

ROOT = Path(__file__).resolve().parent.parent


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
        template.config["label"] = f"bench run {index}"
        history.add_run(template)
    insert_s = time.perf_counter() - start
    size = sum(p.stat().st_size for p in path.parent.glob("history.sqlite3*"))
    listings = []
    for _ in range(5):
        began = time.perf_counter()
        history.list_runs()
        listings.append(time.perf_counter() - began)

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "MATVEC_HISTORY": str(path)}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "dashboard/app.py",
            "--server.port",
            str(port),
            "--server.headless",
            "true",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    loads = []
    try:
        url = f"http://localhost:{port}"
        while True:
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"]
            )
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
    finally:
        server.terminate()
        server.wait(timeout=10)
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

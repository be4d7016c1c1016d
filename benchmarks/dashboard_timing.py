"""Dashboard speed, measured with a real server and headless Chromium.

1. `streamlit run` to the first rendered page (title and Run button visible);
2. re-render after a widget change (from the change to the URL reflecting it);
3. wall time of a default run of the fast strategies at 3000 x 100 x 100 float32
   (click to "The fastest way" appearing).

    python -m benchmarks.dashboard_timing [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    port = free_port()
    url = f"http://localhost:{port}"
    start = time.monotonic()
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
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            while True:
                try:
                    urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
                    break
                except OSError:
                    time.sleep(0.05)
            page.goto(url)
            page.get_by_role("button", name="Run benchmark").wait_for()
            first_page_s = time.monotonic() - start

            renders = []
            for value in (1234, 2345, 3456, 1000, 3000):
                box = page.get_by_label("Matrices (B)", exact=True)
                box.fill(str(value))
                began = time.monotonic()
                box.press("Enter")
                if value == 3000:
                    page.wait_for_url(lambda u: "matrices=" not in u)
                else:
                    page.wait_for_url(re.compile(rf"matrices={value}"))
                renders.append(time.monotonic() - began)

            began = time.monotonic()
            page.get_by_role("button", name="Run benchmark").click()
            page.get_by_text("The fastest way").wait_for(timeout=600_000)
            run_s = time.monotonic() - began
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"streamlit run -> first rendered page: {first_page_s:.2f} s")
    print(
        f"re-render after a widget change: median {sorted(renders)[len(renders) // 2]:.3f} s "
        f"(all: {', '.join(f'{r:.3f}' for r in renders)})"
    )
    print(f"default run (fast strategies, 3000x100x100 float32), click to results: {run_s:.1f} s")


if __name__ == "__main__":
    os.chdir(ROOT)
    main()

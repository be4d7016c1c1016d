"""Dashboard speed, measured with a real server and headless Chromium.

1. `streamlit run` to the first rendered page (title and Run button visible);
   then fresh page loads on the warm server (a new browser tab each: navigation to the Run
   button visible), beside the same for an empty Streamlit page (a title and a button) on a
   second server: the part of a load that is this app's, measured in one window;
2. re-render after a widget change (from the change to the URL reflecting it);
3. wall time of a default run of the fast strategies at 3000 x 100 x 100 float32
   (click to "The fastest way" appearing).

    python -m benchmarks.dashboard_timing [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.server import CHROMIUM_ARGS, ROOT, streamlit_server

LOADS = 7
EMPTY_PAGE = """import streamlit as st

st.title("Batched MatVec Profiler")
st.button("Run benchmark")
"""


def load_times(browser, url: str, loads: int = LOADS) -> list[float]:
    """Seconds from navigation to a visible Run button, each load in a fresh tab and context."""
    times = []
    for _ in range(loads):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        tab = context.new_page()
        began = time.monotonic()
        tab.goto(url)
        tab.get_by_role("button", name="Run benchmark").wait_for()
        times.append(time.monotonic() - began)
        context.close()
    return times


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def empty_page_load_times(browser, directory: Path) -> list[float]:
    script = directory / "empty_page.py"
    script.write_text(EMPTY_PAGE)
    with streamlit_server(script=str(script)) as url:
        return load_times(browser, url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        start = time.monotonic()  # the browser is ready: time the server and the page only
        with streamlit_server() as url:
            page.goto(url)
            page.get_by_role("button", name="Run benchmark").wait_for()
            first_page_s = time.monotonic() - start
            reloads = load_times(browser, url)
            with tempfile.TemporaryDirectory() as directory:
                empty = empty_page_load_times(browser, Path(directory))

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
    print(f"streamlit run -> first rendered page: {first_page_s:.2f} s")
    print(
        f"fresh page load -> Run button: median {median(reloads):.2f} s "
        f"(all: {', '.join(f'{r:.2f}' for r in reloads)}); an empty Streamlit page: median "
        f"{median(empty):.2f} s (all: {', '.join(f'{r:.2f}' for r in empty)}); "
        f"ratio {median(reloads) / median(empty):.2f}"
    )
    print(
        f"re-render after a widget change: median {sorted(renders)[len(renders) // 2]:.3f} s "
        f"(all: {', '.join(f'{r:.3f}' for r in renders)})"
    )
    print(f"default run (fast strategies, 3000x100x100 float32), click to results: {run_s:.1f} s")


if __name__ == "__main__":
    os.chdir(ROOT)
    main()

"""End to end: a real browser against a real Streamlit server running real benchmarks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from benchmarks.server import streamlit_server
from tests.conftest import ROOT
from tests.e2e.conftest import ARTIFACTS, settled

pytestmark = pytest.mark.e2e
TIMEOUT_MS = 180_000


def wait_for_app(page, url: str) -> float:
    start = time.monotonic()
    page.goto(url)
    page.get_by_text("Batched MatVec Profiler").first.wait_for(timeout=60_000)
    page.get_by_role("button", name="Run benchmark").wait_for(timeout=60_000)
    return time.monotonic() - start


def set_number(page, label: str, value: int) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")


def test_load_change_settings_run_and_see_charts(page, server):
    wait_for_app(page, f"{server}/?matrices=48&dim=8&warmup=0&strategy=python_loop,einsum,numpy")
    set_number(page, "Samples (repeats)", 3)
    page.wait_for_url(re.compile(r"repeats=3"), timeout=30_000)
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_text("The fastest way").wait_for(timeout=TIMEOUT_MS)
    page.locator(".js-plotly-plot").nth(5).wait_for(timeout=60_000)
    assert page.locator(".js-plotly-plot").count() == 6
    assert page.get_by_text("48 matrices of 8×8 float32").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1400, "height": 4200})
    page.wait_for_timeout(1500)
    page.screenshot(path=str(ARTIFACTS / "dashboard-finished.png"), full_page=True)


def test_the_controls_show_while_the_devices_are_still_being_found(page, tmp_path):
    """The page never waits on slow work: with the device probe stuck (a TensorFlow whose import
    never finishes, in the probe's process), the settings and the Run button are there and the
    device panel says it is still looking."""
    hanging = ROOT / "tests" / "fixtures" / "hanging_tensorflow"
    env = {
        "PYTHONPATH": os.pathsep.join([str(hanging), str(ROOT)]),
        "MATVEC_TENSORFLOW_IMPORT_LIMIT_S": "300",
        "MATVEC_QUEUE_DIR": str(tmp_path / "queue"),
        "MATVEC_HISTORY": str(tmp_path / "history.sqlite3"),
    }
    with streamlit_server(**env) as url:
        wait_for_app(page, url)
        page.get_by_label("Matrices (B)", exact=True).wait_for(state="visible", timeout=30_000)
        assert page.get_by_role("button", name="Run benchmark").is_enabled()
        device = page.locator('[data-testid="stMetric"]').first
        assert device.locator('[data-testid="stMetricValue"]').inner_text() == "…"


def test_cancel_a_long_run(page, server):
    wait_for_app(
        page, f"{server}/?strategy=python_loop&repeats=1000&time_budget=600&sampling=fixed"
    )
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_text(re.compile(r"(Preparing|Sampling).*python_loop")).wait_for(timeout=TIMEOUT_MS)
    page.get_by_role("button", name="Cancel run").click()
    page.get_by_text("Run cancelled").wait_for(timeout=60_000)
    assert page.get_by_role("button", name="Run benchmark").is_enabled()


def test_html_report_downloads_and_opens_offline(page, server, browser, tmp_path):
    wait_for_app(page, f"{server}/?matrices=32&dim=4&repeats=2&warmup=0&strategy=einsum,numpy")
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_text("The fastest way").wait_for(timeout=TIMEOUT_MS)
    settled(page)
    with page.expect_download(timeout=60_000) as download_info:
        page.get_by_role("button", name="HTML report").click()
    report = tmp_path / "report.html"
    download_info.value.save_as(report)

    offline = browser.new_context(offline=True)
    requests: list[str] = []
    offline.on("request", lambda request: requests.append(request.url))
    viewer = offline.new_page()
    viewer.goto(report.as_uri())
    viewer.locator(".js-plotly-plot").nth(4).wait_for(timeout=60_000)  # 5 charts, 1 line
    assert viewer.locator(".js-plotly-plot .main-svg").count() > 0  # plotly really drew
    foreign = [u for u in requests if not u.startswith(("file:", "data:", "blob:"))]
    assert foreign == []
    offline.close()


def test_the_run_pages_own_path_opens_it_with_the_links_settings(page, server):
    page.goto(f"{server}/run?matrices=48&strategy=einsum&strategy=numpy")
    page.get_by_text("Batched MatVec Profiler").first.wait_for(timeout=60_000)
    box = page.get_by_label("Matrices (B)", exact=True)
    box.wait_for(timeout=60_000)
    assert box.input_value() == "48"
    assert page.get_by_text("Page not found").count() == 0
    page.wait_for_url(re.compile(r"strategy=einsum"), timeout=30_000)


def test_results_show_as_each_variant_finishes_and_the_rest_are_pending(page, server):
    # jax_einsum finishes in its own process first (30 quick calls); python_loop's 30 calls
    # over 3000 matrices, one op each, then take far longer: it is cancelled while they run.
    wait_for_app(
        page, f"{server}/?strategy=python_loop,jax_einsum&repeats=20&warmup=10&sampling=fixed"
    )
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_text("Results so far").wait_for(timeout=TIMEOUT_MS)
    page.get_by_text(re.compile(r"1 of 2 variant\(s\) finished")).wait_for(timeout=30_000)
    grid = page.locator("[data-testid='stDataFrame']").first
    grid.wait_for(timeout=30_000)
    page.get_by_role("button", name="Cancel run").click()
    page.get_by_text("Run cancelled").wait_for(timeout=60_000)
    # only while the run goes on: gone once the page's rerun after the cancel has finished
    page.get_by_text("Results so far").wait_for(state="detached", timeout=30_000)


def test_a_repeated_run_goes_to_the_warm_worker(page, server):
    wait_for_app(page, f"{server}/?matrices=32&dim=4&repeats=2&warmup=0&strategy=einsum,numpy")
    run_button = page.get_by_role("button", name="Run benchmark")
    run_button.click()
    page.get_by_text("The fastest way").wait_for(timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => [...document.querySelectorAll('button')].some("
        "b => b.innerText.includes('Run benchmark') && !b.disabled)",
        timeout=TIMEOUT_MS,
    )
    run_button.click()  # same settings: the worker has these inputs already
    page.get_by_text(re.compile(r"This run took .* on a warm worker \(inputs reused\)")).wait_for(
        timeout=TIMEOUT_MS
    )


@pytest.fixture
def busy_machine():
    """Every core spinning in another process while the test runs: slow reruns."""
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 2)
    ]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def test_the_url_follows_every_edit_with_the_machine_busy(page, server, busy_machine):
    wait_for_app(page, f"{server}/?strategy=einsum")
    box = page.get_by_label("Matrices (B)", exact=True)
    box.fill("500")
    box.press("Enter")
    page.wait_for_url(re.compile(r"matrices=500(&|$)"), timeout=60_000)
    box.fill("501")
    box.press("Enter")
    page.wait_for_url(re.compile(r"matrices=501(&|$)"), timeout=60_000)
    # Two edits faster than a rerun on a busy machine: the URL ends at the last one.
    box.fill("700")
    box.press("Enter")
    box.fill("701")
    box.press("Enter")
    page.wait_for_url(re.compile(r"matrices=701(&|$)"), timeout=60_000)
    assert box.input_value() == "701"


def test_a_typed_number_out_of_range_is_named_under_its_box(page, server):
    """Streamlit's number box turned 1e12 into 1 without a word; the page now names it."""
    wait_for_app(page, f"{server}/?strategy=einsum&matrices=500")
    box = page.get_by_label("Matrices (B)", exact=True)
    box.fill("1e12")
    box.press("Enter")
    page.get_by_text(re.compile(r"Matrices \(B\): must be an integer from 1 to")).wait_for(
        timeout=60_000
    )
    assert box.input_value() == "1e12"
    assert "matrices=500" in page.url  # the link keeps the last valid value


def live_tickets(queue) -> list:
    from engine.storage.run_queue import RunQueue

    return RunQueue(queue)._live_tickets() if queue.exists() else []


def test_a_reloaded_page_finds_its_run_and_a_closed_one_releases_it(browser, tmp_path):
    """A reload once lost the run (button enabled again, a duplicate could be queued) and a
    closed tab left its worker at 100% CPU holding the queue. Now the reloaded page shows the
    same run's progress, and a page gone for MATVEC_ORPHAN_JOB_S has its run cancelled."""
    queue = tmp_path / "queue"
    env = {
        "MATVEC_QUEUE_DIR": str(queue),
        "MATVEC_HISTORY": str(tmp_path / "history.sqlite3"),
        "MATVEC_ORPHAN_JOB_S": "3",
    }
    with streamlit_server(**env) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        wait_for_app(
            page, f"{url}/?strategy=python_loop&repeats=1000&time_budget=600&sampling=fixed"
        )
        page.get_by_role("button", name="Run benchmark").click()
        running = re.compile(r"(Preparing|Sampling).*python_loop")
        page.get_by_text(running).wait_for(timeout=TIMEOUT_MS)
        page.wait_for_url(re.compile(r"[?&]job="), timeout=30_000)
        page.reload()
        page.get_by_text(running).wait_for(timeout=TIMEOUT_MS)
        # Waited for, not read at one instant (`is_visible` does not wait): once, in a full
        # suite run, the bar's text was on screen and the button not yet, as the progress
        # fragment's timed reruns redraw around it. A button that never comes still fails.
        page.get_by_role("button", name="Cancel run").wait_for(state="visible", timeout=30_000)
        assert page.get_by_role("button", name="Run benchmark").is_disabled()
        assert len(live_tickets(queue)) == 1  # the same run, not a second one queued
        context.close()  # the tab goes away mid-run
        deadline = time.monotonic() + 120
        while live_tickets(queue) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert live_tickets(queue) == []  # cancelled: the queue is free for the next run


def test_the_device_panel_fills_by_itself_once_the_devices_are_found(page, tmp_path):
    """The panel said "…" for minutes until the page was touched: it now looks again on its
    own, and fills without a click."""
    env = {
        "MATVEC_QUEUE_DIR": str(tmp_path / "queue"),
        "MATVEC_HISTORY": str(tmp_path / "history.sqlite3"),
    }
    with streamlit_server(**env) as url:
        wait_for_app(page, url)  # a fresh server: its device probe has only just started
        first = '[data-testid="stMetric"] [data-testid="stMetricValue"]'
        page.wait_for_function(  # looked up afresh each time: the panel is drawn again
            f"() => {{ const el = document.querySelector('{first}'); "
            "return el && !['…', ''].includes(el.innerText.trim()); }",
            timeout=TIMEOUT_MS,
        )
        shown = page.locator(first).first.inner_text().strip()
        assert shown in ("CPU", "GPU", "TPU")


def test_a_click_as_the_server_starts_shows_a_first_look_then_the_runs_own_answer(page, tmp_path):
    """Clicked before the worker has TensorFlow up: NumPy's variant shows at once as a first
    look (said to be one), every other variant pending; the run's own answer replaces it, and
    only the run is stored."""
    history = tmp_path / "history.sqlite3"
    env = {"MATVEC_QUEUE_DIR": str(tmp_path / "queue"), "MATVEC_HISTORY": str(history)}
    with streamlit_server(**env) as url:
        wait_for_app(page, f"{url}/?matrices=48&dim=8&strategy=while_loop,einsum,numpy")
        page.get_by_role("button", name="Run benchmark").click()
        look = page.get_by_text(re.compile(r"^First look: numpy measured in a process of its own"))
        look.wait_for(timeout=TIMEOUT_MS)
        assert "Results so far" in page.inner_text("body")
        page.get_by_text("The fastest way").wait_for(timeout=TIMEOUT_MS)
        assert page.get_by_text("First look:").count() == 0
    from engine.storage.history import History

    (stored,) = History(history).all_runs()  # the run's only: the look stored nothing
    assert {r.variant for r in stored.results} == {"while_loop", "einsum", "numpy"}


def test_a_second_run_shows_what_the_history_predicted_beside_what_it_measured(page, server):
    """The answer before measuring: the second run of a problem says what this machine's
    history predicted (marked as predicted), and after its own answer, how that fared."""
    link = f"{server}/?matrices=40&dim=6&repeats=4&warmup=0&strategy=numpy,numpy_einsum"
    for _ in range(2):
        wait_for_app(page, link)
        settled(page)
        page.get_by_role("button", name="Run benchmark").click()
        page.get_by_text("The fastest way").wait_for(timeout=TIMEOUT_MS)
        settled(page)
    said = page.get_by_text(re.compile(r"^Before measuring, predicted from this machine's history"))
    said.wait_for(timeout=30_000)
    assert "not measured" in said.inner_text() and "Measured: " in said.inner_text()

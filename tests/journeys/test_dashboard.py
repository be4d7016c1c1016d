"""Journeys through the dashboard: started the way the docs say, in each documented
environment, driven in Chromium as a user drives it — open it, press Run with the defaults,
read the answer, visit every page — with no error on any page, none in the server's log, and
no request to a host outside the machine. A failure keeps a screenshot and the server's log
in test-artifacts/."""

from __future__ import annotations

import contextlib
import re
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.server import free_port
from engine.process.children import Child
from tests.conftest import ROOT
from tests.e2e.conftest import ARTIFACTS, settled
from tests.journeys.conftest import EVERY_ENVIRONMENT, Environment, environments

pytestmark = [pytest.mark.journey, pytest.mark.e2e]
ANSWER_MS = 300_000
# What the Run page offers and pre-selects in each environment (catalog.interactive_strategies).
PRESELECTED = {
    "full": ("batched_matvec", "einsum", "numpy"),
    "no-tensorflow": ("numpy", "numpy_einsum", "jax_vmap", "torch_bmm"),
    "numpy-only": ("numpy", "numpy_einsum"),
}
PAGES = {"sweeps": "Sweeps", "history": "Run history", "compare": "Compare runs"}
KERNEL = ROOT / "tests" / "fixtures" / "user_kernels" / "numpy_kernels.py"


@contextlib.contextmanager
def started(command: list[str], cwd: Path, log: Path) -> Iterator[str]:
    """The server `command` starts, once it answers; ended with its children afterwards."""
    with open(log, "w") as stream:
        server = Child(command, cwd=cwd, stdout=stream, stderr=subprocess.STDOUT)
        try:
            url = f"http://localhost:{command[command.index('--server.port') + 1]}"
            deadline = time.monotonic() + 90
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                        break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        pytest.fail(f"the server did not start: {log.read_text()[-3000:]}")
                    time.sleep(0.2)
            yield url
        finally:
            server.end(grace_s=10)


def no_error_on(page, where: str) -> None:
    body = page.inner_text("body")
    assert "This app has encountered an error" not in body, where
    assert page.locator('[data-testid="stException"]').count() == 0, where


def devices_found(page) -> None:
    """Wait for the page a user reads: the devices panel filled (until then it looks again
    every second and, once filled, runs the whole page again) and that run over. Read before,
    the sidebar may be mid-rerun, its widgets stale or not yet drawn."""
    device = page.locator('[data-testid="stMetric"]').filter(has_text="Device").first
    deadline = time.monotonic() + 90
    while "…" in device.inner_text() and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert "…" not in device.inner_text(), "the devices panel was not filled within 90 s"
    settled(page)


def walk(page, url: str, environment: Environment) -> str:
    """Open the Run page, press Run with the defaults, wait for the answer, then visit every
    page; returns the Run page's text as the answer left it."""
    page.goto(url)
    page.get_by_role("button", name="Run benchmark").wait_for(timeout=90_000)
    devices_found(page)
    strategies = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Strategies")
    chosen = strategies.inner_text()
    for name in PRESELECTED[environment.name]:
        assert name in chosen, (name, chosen)
    if not environment.has_tensorflow:
        assert "batched_matvec" not in chosen and not re.search(r"(?<!_)einsum ·", chosen)
        page.get_by_text(re.compile(r"Not installed here: TensorFlow")).wait_for(timeout=30_000)
    no_error_on(page, "the Run page before a run")
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_text("The fastest way").wait_for(timeout=ANSWER_MS)
    settled(page)
    text = page.inner_text("body")
    no_error_on(page, "the Run page with the answer")
    for path, title in PAGES.items():
        page.goto(f"{url}/{path}")
        page.get_by_role("heading", name=title).wait_for(timeout=60_000)
        settled(page)
        no_error_on(page, f"the {title} page")
    return text


def read_the_answer(text: str, environment: Environment) -> None:
    """What a user reads: a winner (or a tie led by one) among the run's strategies, and the
    ceiling its fraction is placed against, with which reading that ceiling is."""
    answer = text.split("The fastest way", 1)[1]
    named = re.search(r"(\S+) is the fastest correct strategy|Tie\.\s+(\S+) had the lowest", answer)
    assert named, answer[:2000]
    winner = named.group(1) or named.group(2)
    offered = {"full": None, "no-tensorflow": PRESELECTED["no-tensorflow"]}.get(environment.name)
    assert offered is None or winner in offered, (winner, answer[:1000])
    placed = r"of the [\d.]+ GB/s (peak read from memory|read from the \w+ cache)"
    assert re.search(placed, answer), answer[:3000]
    assert "this run's own probes" in answer or "best within the hour" in answer


def journey(browser, command: list[str], cwd: Path, environment: Environment, name: str) -> str:
    log = ARTIFACTS / f"journey-{name}.log"
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    foreign: list[str] = []
    context.on(
        "request",
        lambda r: (
            foreign.append(r.url)
            if not r.url.startswith(("http://localhost", "http://127.0.0.1", "data:", "blob:"))
            else None
        ),
    )
    page = context.new_page()
    try:
        with started(command, cwd, log) as url:
            text = walk(page, url, environment)
            read_the_answer(text, environment)
        assert foreign == [], foreign
        said = log.read_text()
        assert "Traceback" not in said and "Uncaught" not in said, said[-3000:]
        return text
    except BaseException:
        page.screenshot(path=str(ARTIFACTS / f"journey-{name}.png"), full_page=True)
        raise
    finally:
        context.close()


@pytest.mark.journey("matvec-profiler dashboard, in Chromium")
@pytest.mark.parametrize("environment", EVERY_ENVIRONMENT, indirect=True)
def test_the_dashboard_command_from_another_folder_answers(environment, browser, tmp_path):
    """`matvec-profiler dashboard` (docs/cli.md; hardware.md's GPU box path), with a kernel
    named where the full environment is (the Run page then offers it)."""
    port = str(free_port())
    kernel = ["--kernel", f"{KERNEL}:mine"] if environment.has_tensorflow else []
    command = environment.command("dashboard", "--server.port", port, *kernel)
    text = journey(browser, command, tmp_path, environment, f"dashboard-{environment.name}")
    if kernel:
        assert "Your kernels" in text


@pytest.mark.journey("the README's first command (streamlit run dashboard/server.py), in Chromium")
@pytest.mark.parametrize("environment", environments("full"), indirect=True)
def test_the_readmes_first_command_answers(environment, browser):
    """The README's Quick start: `.venv/bin/streamlit run dashboard/server.py`, from the
    repository root."""
    port = str(free_port())
    command = [str(environment.bin_dir / "streamlit"), "run", "dashboard/server.py"]
    command += ["--server.port", port, "--server.headless", "true"]
    journey(browser, command, ROOT, environment, "readme-full")

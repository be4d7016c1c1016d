"""End to end in a real browser: the History and Compare pages over a real SQLite history."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from engine.measure.peak import LevelCeiling
from engine.storage.history import History
from tests.e2e.conftest import settled
from tests.factories import make_run

pytestmark = pytest.mark.e2e


@pytest.fixture
def two_runs(history_path):
    history = History(history_path)
    laptop = make_run(
        {"einsum": [0.002] * 6, "numpy": [0.003] * 6}, label="e2e-laptop", device_kind="CPU"
    )
    tpu = make_run(
        {"einsum": [0.0005] * 6, "numpy": [0.003] * 6}, label="e2e-colab", device_kind="TPU"
    )
    history.add_run(laptop)
    history.add_run(tpu)
    yield laptop, tpu
    history.delete_run(laptop.run_id)
    history.delete_run(tpu.run_id)


def click_first_row(page) -> None:
    """st.dataframe draws on a canvas: click the selection box of the first data row."""
    grid = page.locator("[data-testid='stDataFrame']").first
    grid.wait_for()
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)


def open_from_history(page, server: str, label: str) -> None:
    """The History page filtered to one label, its run opened as a user would click it."""
    page.goto(f"{server}/history")
    page.get_by_text("Run history").wait_for(timeout=60_000)
    page.get_by_label("Label contains").fill(label)
    page.get_by_label("Label contains").press("Enter")
    page.get_by_text(re.compile(r"^1 run\(s\)$")).wait_for(timeout=30_000)
    click_first_row(page)
    open_button = page.get_by_role("button", name="Open run")
    page.wait_for_function("b => !b.disabled", arg=open_button.element_handle(), timeout=30_000)
    open_button.click()
    page.get_by_text("The fastest way").wait_for(timeout=30_000)


def test_history_filters_opens_and_deletes(page, server, two_runs, history_path):
    laptop, _ = two_runs
    open_from_history(page, server, "e2e-laptop")
    page.locator(".js-plotly-plot").nth(3).wait_for(timeout=30_000)
    page.get_by_role("button", name="Delete runs").click()
    page.get_by_role("button", name="Yes, delete").click()
    page.get_by_text(re.compile(r"^0 run\(s\)$")).wait_for(timeout=30_000)
    assert not History(history_path).has_run(laptop.run_id)


def test_compare_page_from_a_link(page, server, two_runs):
    laptop, tpu = two_runs
    page.goto(f"{server}/compare?runs={laptop.run_id},{tpu.run_id}")
    page.get_by_text("Compare runs").wait_for(timeout=60_000)
    ratios = page.locator(".js-plotly-plot").first
    ratios.wait_for(timeout=60_000)
    assert "Ratio to the baseline" in ratios.inner_text()
    assert "0.25x the time: faster" in ratios.inner_text()
    medians = page.locator(".js-plotly-plot").nth(1)
    medians.wait_for(timeout=60_000)
    legend = medians.inner_text()
    assert "e2e-laptop" in legend and "e2e-colab" in legend
    settled(page)
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="HTML report").click()
    html = Path(download.value.path()).read_text(encoding="utf-8")
    assert "Batched MatVec comparison" in html and "noise floor" in html and "faster" in html


MIB = 2**20
LEVELS = (LevelCeiling("L2", 2 * MIB, 130e9), LevelCeiling("L3", 32 * MIB, 110e9))


def with_levels(run):
    run.peak = dataclasses.replace(run.peak, levels=LEVELS)
    return run


@pytest.fixture
def ceiling_states(history_path):
    """A run of memory's ceiling only (an old file), one with three levels, and a sweep whose
    points run from inside the L2 to beyond the L3."""
    history = History(history_path)
    one = make_run({"einsum": [0.002] * 6}, label="e2e-one-level")
    three = with_levels(make_run({"einsum": [0.0001] * 6}, label="e2e-three-levels"))
    history.add_sweep("e2e-sweep", "2099-01-01T00:00:00+00:00", "e2e-across", {}, 4)
    points = [
        with_levels(make_run({"numpy": [2e-9 * b * 1024] * 3}, matrices=b, dim=32))
        for b in (100, 1_000, 10_000, 100_000)
    ]
    for run in (one, three):
        history.add_run(run)
    for index, run in enumerate(points):
        history.add_run(run, sweep_id="e2e-sweep", point_key=str(index))
    yield one, three
    for run in (one, three, *points):
        history.delete_run(run.run_id)


def ceilings_chart(page, title: str):
    chart = page.locator(".js-plotly-plot", has_text=title)
    chart.wait_for(timeout=60_000)
    return chart.inner_text()


def test_the_cache_aware_roofline_draws_one_level_three_and_a_sweep(page, server, ceiling_states):
    open_from_history(page, server, "e2e-one-level")
    drawn = ceilings_chart(page, "the ceiling of the level its working set lives in")
    assert "memory 20 GB/s" in drawn and "L2" not in drawn
    open_from_history(page, server, "e2e-three-levels")
    drawn = ceilings_chart(page, "the ceiling of the level its working set lives in")
    assert all(step in drawn for step in ("L2 130 GB/s", "L3 110 GB/s", "memory 20 GB/s"))
    page.get_by_text(re.compile(r"read from the L2 cache")).first.wait_for(timeout=30_000)
    page.goto(f"{server}/sweeps")
    page.get_by_role("heading", name="Across the cache levels").wait_for(timeout=60_000)
    drawn = ceilings_chart(page, "The sweep across the cache levels")
    assert "numpy" in drawn and "L3 110 GB/s" in drawn
    page.get_by_text(re.compile(r"^L2 \(2\.0 MiB, 130 GB/s\): the sweep spills out")).wait_for(
        timeout=30_000
    )


def test_the_published_site_opens_from_disk_with_its_charts(page, tmp_path):
    """`history publish DIR`: the index and a series page open from the disk in Chromium,
    the chart drawn with its step marked, nothing fetched from the network."""
    import dataclasses

    from dashboard.report.publish import publish
    from tests.engine.analysis.test_change_points import runs_with_a_step

    runs = runs_with_a_step()
    planted = "<a href='https://example.invalid/'>a link</a> <b>bold</b>"
    for run in runs:  # a forged host name with markup: text in the chart, never a live link
        run.environment = dataclasses.replace(run.environment, hostname=planted)
    publish(runs, tmp_path / "site")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto((tmp_path / "site" / "index.html").as_uri())
    page.get_by_role("link", name="einsum").click()
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for(timeout=30_000)
    assert "x slower" in chart.inner_text()  # the step's mark, drawn by plotly
    assert planted in chart.locator(".gtitle").text_content()
    assert (
        chart.locator("a").count() == 0 and chart.locator("text b, tspan[style*=bold]").count() == 0
    )
    page.get_by_text(re.compile(r"x slower from run 9")).first.wait_for(timeout=30_000)
    assert all(url.startswith("file://") for url in requests), requests

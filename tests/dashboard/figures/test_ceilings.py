"""The cache-aware roofline: the staircase of measured ceilings, a run's variants as points
and a sweep's as lines across it, and the sizes where a sweep spills out of a cache. Every
state draws: one level (a file without levels), three levels, a sweep crossing them."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from dashboard.figures.ceilings import run_staircase, spill_lines, steps, sweep_staircase
from dashboard.figures.style import empty_reason
from dashboard.report import sweep_report
from dashboard.tables import run as run_tables
from dashboard.tables.sweep import sweep_tables
from engine.measure.peak import LevelCeiling
from tests.factories import make_run

MIB = 2**20
LEVELS = (LevelCeiling("L2", 2 * MIB, 130e9), LevelCeiling("L3", 32 * MIB, 110e9))


def with_levels(run):
    run.peak = dataclasses.replace(run.peak, levels=LEVELS)
    return run


def test_three_levels_draw_three_steps_and_each_variant_at_its_working_set():
    run = with_levels(make_run({"einsum": [0.0001] * 4, "numpy": [0.0003] * 4}))
    levels = run_tables.levels(run)
    assert list(levels["level"]) == ["L2", "L3", "memory"]
    fig = run_staircase(run_tables.summary(run), levels)
    assert empty_reason(fig) is None
    stairs = fig.data[0]
    assert list(stairs.y) == [130.0, 130.0, 110.0, 110.0, 20.0, 20.0]
    assert stairs.x[1] == 2 * MIB and stairs.x[3] == 32 * MIB
    texts = [t.text[0] for t in fig.data if t.mode == "text"]
    assert texts == ["L2 130 GB/s", "L3 110 GB/s", "memory 20 GB/s"]
    points = {t.name: t for t in fig.data if t.mode == "markers"}
    assert set(points) == {"einsum", "numpy"}
    assert points["einsum"].x[0] == 4 * 100 * (10 * 10 + 10)  # its inputs: L2-sized
    assert "of the L2 ceiling" in points["einsum"].hovertemplate
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_a_file_without_levels_draws_one_step_memory():
    run = make_run()
    fig = run_staircase(run_tables.summary(run), run_tables.levels(run))
    assert list(fig.data[0].y) == [20.0, 20.0]
    assert "of the memory ceiling" in fig.data[-1].hovertemplate


def test_without_a_ceiling_or_timings_the_chart_says_why():
    run = make_run()
    run.peak = dataclasses.replace(run.peak, bandwidth_bytes_per_s=None)
    reason = empty_reason(run_staircase(run_tables.summary(run), run_tables.levels(run)))
    assert reason.endswith("no ceiling was measured in this run")
    failed = make_run()
    for result in failed.results:
        result.status, result.samples_s = "failed", ()
    levels = run_tables.levels(failed)
    assert empty_reason(run_staircase(run_tables.summary(failed), levels)).endswith(
        "no variant produced timings"
    )


def test_steps_never_run_backwards_when_a_working_set_is_beyond_a_level():
    levels = run_tables.levels(with_levels(make_run()))
    xs, _ = steps(levels, 10 * MIB, 1e9)  # the smallest point is already past L2
    assert all(b >= a for a, b in itertools.pairwise(xs))


@pytest.fixture
def sweep_across_levels():
    """B from 100 to 100,000 at n=32: 0.4 MiB to 400 MiB of inputs, past L2 and L3."""
    return [
        with_levels(
            make_run(
                {"numpy": [2e-9 * b * 32 * 32] * 3, "einsum": [3e-9 * b * 32 * 32] * 3},
                matrices=b,
                dim=32,
            )
        )
        for b in (100, 1_000, 10_000, 100_000)
    ]


def test_a_sweep_is_a_line_per_variant_across_the_steps(sweep_across_levels):
    tables = sweep_tables(sweep_across_levels)
    fig = sweep_staircase(tables["points"], tables["levels"])
    lines = {t.name: t for t in fig.data if t.mode == "lines+markers"}
    assert set(lines) == {"numpy", "einsum"}
    assert list(lines["numpy"].x) == sorted(lines["numpy"].x) and len(lines["numpy"].x) == 4
    assert list(tables["points"]["ceiling_level"].unique()) == ["L2", "L3", "memory"]


def test_the_spill_sizes_are_written_under_the_chart(sweep_across_levels):
    tables = sweep_tables(sweep_across_levels)
    lines = spill_lines(tables["points"], tables["levels"])
    assert lines == [
        "L2 (2.0 MiB, 130 GB/s): the sweep spills out of it between B=100, n=32 (412.5 KiB) "
        "and B=1,000, n=32 (4.0 MiB)",
        "L3 (32.0 MiB, 110 GB/s): the sweep spills out of it between B=1,000, n=32 (4.0 MiB) "
        "and B=10,000, n=32 (40.3 MiB)",
    ]
    html = sweep_report(sweep_across_levels, "across")
    assert "Across the cache levels" in html and "spills out of it between" in html


def test_an_empty_sweep_says_why():
    tables = sweep_tables([])
    assert empty_reason(sweep_staircase(tables["points"], tables["levels"])) is not None


def test_a_sweep_over_two_widths_draws_a_line_per_width_and_says_where_it_lies():
    runs = [
        with_levels(make_run({"numpy": [1e-6 * b] * 3}, matrices=b, dim=dim))
        for b in (10, 100)
        for dim in (4, 16)
    ]
    tables = sweep_tables(runs)
    fig = sweep_staircase(tables["points"], tables["levels"])
    names = [t.name for t in fig.data if t.mode == "lines+markers"]
    assert names == ["numpy, n=4", "numpy, n=16"]
    assert {t.line.dash for t in fig.data if t.mode == "lines+markers"} == {"solid", "dot"}
    (line,) = spill_lines(tables["points"], tables["levels"])
    assert line == "every point of the sweep lies in the L2 (2.0 MiB); none crosses a level"


def test_the_top_steps_label_has_room_above_it():
    run = with_levels(make_run({"einsum": [0.0001] * 4}))
    fig = run_staircase(run_tables.summary(run), run_tables.levels(run))
    assert fig.layout.yaxis.range[1] >= 3  # 130 GB/s: the axis runs to 1000, not 100

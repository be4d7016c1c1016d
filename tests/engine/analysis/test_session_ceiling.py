"""A ceiling that holds still: each level is the best this machine read within the hour where
that beats the run's own probes, the own figure kept (in the JSON, the history, the CLI's line
and the moved-ceiling judgement); never lowered, never taken from another buffer or too long
ago; and through a real history, as `run` reads it."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone

import pytest

from engine.analysis.ceiling_drift import moved_ceilings
from engine.analysis.session_ceiling import SESSION_RUNS, session_ceilings, window_start
from engine.measure.peak import LevelCeiling, Peak
from engine.results.ceiling_text import ceilings_line
from engine.results.reader import ResultsRejected
from engine.results.run_result import RunResult
from engine.storage.history import History
from engine.storage.run_rows import ceiling_rows
from tests.factories import make_run

MIB = 2**20
BUFFER = 256 * MIB


def peak(memory: float, l2: float = 130e9, buffer: int = BUFFER) -> Peak:
    return Peak(memory, "probes", buffer_bytes=buffer, levels=(LevelCeiling("L2", 2 * MIB, l2),))


EARLIER = {("memory", BUFFER): [52e9, 31e9, 50e9], ("L2", 2 * MIB): [128e9, 125e9]}


def test_a_low_probe_is_placed_against_the_sessions_best_and_keeps_its_own():
    settled = session_ceilings(peak(30e9, l2=140e9), EARLIER)
    assert settled.bandwidth_bytes_per_s == 52e9 and settled.own_bytes_per_s == 30e9
    assert "best of this machine's last 3 runs within the hour" in settled.method
    (l2,) = settled.levels
    assert l2.bandwidth_bytes_per_s == 140e9 and l2.own_bytes_per_s is None  # its own is best
    line = ceilings_line(settled)
    assert line.startswith("peak read bandwidth 52.0 GB/s (this machine's best within the")
    assert "this run's own probes read 30.0 GB/s" in line
    assert "L2 140.0 GB/s (this run's own probes)" in line


def test_a_run_that_reads_best_keeps_its_own_figure_and_words():
    settled = session_ceilings(peak(55e9), EARLIER)
    assert settled == dataclasses.replace(peak(55e9), levels=(LevelCeiling("L2", 2 * MIB, 130e9),))
    assert ceilings_line(settled) == (
        "peak read bandwidth 55.0 GB/s; caches: L2 130.0 GB/s (each read by this run's own probes)"
    )


def test_another_buffer_or_no_history_changes_nothing():
    other_buffer = session_ceilings(peak(20e9, buffer=16 * MIB), {("memory", BUFFER): [50e9]})
    assert other_buffer.own_bytes_per_s is None
    assert session_ceilings(peak(20e9), {}) == peak(20e9)
    unprobed = Peak(None, "not measured")
    assert session_ceilings(unprobed, EARLIER) == unprobed


def test_the_history_and_the_moved_ceiling_read_the_runs_own_figure():
    run = make_run(peak=30e9)
    run.peak = session_ceilings(dataclasses.replace(run.peak, buffer_bytes=BUFFER), EARLIER)
    assert run.peak.bandwidth_bytes_per_s == 52e9
    assert [row[-1] for row in ceiling_rows(run)] == [30e9]  # stored: the run's own
    (note,) = moved_ceilings(run.peak, {("memory", BUFFER): [52e9, 51e9, 53e9]})
    assert "30.0 GB/s here, below" in note  # judged by its own probe, not the session's best
    again = RunResult.from_json(run.to_json())
    assert again.peak.own_bytes_per_s == 30e9 and again.peak.bandwidth_bytes_per_s == 52e9


def test_a_file_with_a_bad_own_figure_is_refused_naming_the_field():
    data = json.loads(make_run().to_json())
    data["peak"]["own_bytes_per_s"] = -1
    with pytest.raises(ResultsRejected, match=r"peak\.own_bytes_per_s"):
        RunResult.from_json(json.dumps(data))


def test_the_window_holds_the_machines_runs_of_the_last_hour_only(tmp_path):

    now = datetime.now(timezone.utc)
    history = History(tmp_path / "h.sqlite3")
    for minutes, rate in ((200, 90e9), (30, 40e9), (5, 45e9)):
        made = (now - timedelta(minutes=minutes)).isoformat(timespec="seconds")
        history.add_run(make_run(created_at=made, peak=rate))
    other = make_run(peak=99e9, created_at=now.isoformat(timespec="seconds"))
    other.environment = dataclasses.replace(other.environment, hostname="elsewhere")
    history.add_run(other)
    start = window_start(now)
    found = history.machine_ceilings("test-host", "CPU", SESSION_RUNS, since=start)
    assert sorted(v for values in found.values() for v in values) == [40e9, 45e9]


def test_run_reads_this_hosts_window_and_nothing_from_an_unusable_history(tmp_path):
    import platform

    from engine.execution.plan.history_reads import session_ceilings_of

    history = History(tmp_path / "h.sqlite3")
    here = make_run(peak=47e9, created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    here.environment = dataclasses.replace(here.environment, hostname=platform.node())
    history.add_run(here)
    assert session_ceilings_of(str(tmp_path / "h.sqlite3"), "CPU") == {("memory", None): [47e9]}
    assert session_ceilings_of(str(tmp_path), "CPU") == {}  # a directory: no session, no error

"""A ceiling that moved beyond the machine's own spread is named; one within it, or without
enough history to have a spread, is not. Then the same through a real SQLite history."""

from __future__ import annotations

import dataclasses

from engine.analysis.ceiling_drift import moved_ceilings
from engine.measure.peak import LevelCeiling, Peak
from engine.storage.history import History
from tests.factories import make_run

MIB = 2**20


BUFFER = 256 * MIB  # memory's probe buffer


def peak(memory: float, l2: float = 130e9, buffer: int = BUFFER) -> Peak:
    return Peak(memory, "probes", buffer_bytes=buffer, levels=(LevelCeiling("L2", 2 * MIB, l2),))


EARLIER = {("memory", BUFFER): [35e9, 33e9, 36e9, 34e9], ("L2", 2 * MIB): [128e9, 131e9, 133e9]}


def test_a_ceiling_within_the_machines_spread_says_nothing():
    assert moved_ceilings(peak(34.5e9), EARLIER) == []
    assert moved_ceilings(peak(38e9), EARLIER) == []  # within the ±15% band around 35


def test_a_throttled_memory_ceiling_is_named_with_both_numbers():
    (note,) = moved_ceilings(peak(20e9), EARLIER)
    assert note.startswith("memory's ceiling moved: 20.0 GB/s here, below the")
    assert "in its last 4 runs" in note


def test_each_level_is_judged_on_its_own():
    (note,) = moved_ceilings(peak(35e9, l2=60e9), EARLIER)
    assert note.startswith("the L2 ceiling moved: 60.0 GB/s here, below")


def test_a_bimodal_history_widens_its_own_band():
    earlier = {("memory", BUFFER): [31e9, 55e9, 33e9, 52e9]}
    assert moved_ceilings(peak(54e9), earlier) == []


def test_too_few_earlier_runs_have_no_spread_to_judge_by():
    assert moved_ceilings(peak(5e9), {("memory", BUFFER): [35e9, 34e9]}) == []


def test_a_ceiling_read_over_another_buffer_is_not_compared():
    """A quick run's 16 MiB probe reads the cache, not memory: never a "moved" memory."""
    assert moved_ceilings(peak(120e9, buffer=16 * MIB), EARLIER) == []


def test_the_history_keeps_each_runs_ceilings_per_machine(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    runs = []
    for index, rate in enumerate((35e9, 34e9, 36e9)):
        run = make_run(created_at=f"2026-12-0{index + 1}T00:00:00+00:00", peak=rate)
        run.peak = dataclasses.replace(run.peak, levels=(LevelCeiling("L2", 2 * MIB, 130e9),))
        history.add_run(run)
        runs.append(run)
    other = make_run(peak=1e9)
    other.environment = dataclasses.replace(other.environment, hostname="elsewhere")
    history.add_run(other)
    found = history.machine_ceilings("test-host", "CPU")
    assert found == {("memory", None): [36e9, 34e9, 35e9], ("L2", 2 * MIB): [130e9] * 3}
    assert moved_ceilings(peak(15e9, buffer=None), found)[0].startswith(
        "memory's ceiling moved: 15.0"
    )
    history.delete_run(runs[0].run_id)
    assert history.machine_ceilings("test-host", "CPU")[("memory", None)] == [36e9, 34e9]
    assert history.machine_ceilings("test-host", "CPU", limit=1) == {
        ("memory", None): [36e9],
        ("L2", 2 * MIB): [130e9],
    }


def test_a_real_run_says_its_ceiling_moved_from_what_this_machine_stored(tmp_path):
    """Three stored runs of this machine read 100x today's memory: the run's warning says its
    memory ceiling moved, with the band, and its JSON and stored copy carry it."""
    import json
    import platform

    from engine.machine.host import last_level_cache_bytes
    from engine.measure.memory import bandwidth_buffer_bytes
    from tests.cli import run_cli

    path = tmp_path / "h.sqlite3"
    history = History(path)
    buffer = bandwidth_buffer_bytes(last_level_cache_bytes()[0])  # what the run will read
    for index in range(3):
        run = make_run(created_at=f"2026-12-0{index + 1}T00:00:00+00:00", peak=5e12)
        run.environment = dataclasses.replace(run.environment, hostname=platform.node())
        run.peak = dataclasses.replace(run.peak, buffer_bytes=buffer)
        history.add_run(run)
    out = tmp_path / "run.json"
    done = run_cli(
        *("run", "--matrices", "20", "--dim", "4", "--strategy", "numpy", "--repeats", "3"),
        *("--history", str(path), "--json", str(out)),
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    moved = [w for w in data["warnings"] if w.startswith("memory's ceiling moved")]
    assert len(moved) == 1 and "this machine read in its last 3 runs" in moved[0]
    assert "memory's ceiling moved" in done.stdout + done.stderr
    stored = History(path).machine_ceilings(platform.node(), data["environment"]["device_kind"])
    assert len(stored[("memory", buffer)]) == 4  # the run's own ceilings stored beside them


def test_a_moved_ceiling_on_a_busy_machine_says_who_shared_the_cores():
    from engine.machine.load import MachineLoad

    load = MachineLoad(None, other_cpu_s=0.2, wall_s=10.0, cores=2, tool_cpu_s=5.4)
    (note,) = moved_ceilings(peak(20e9), EARLIER, load)
    assert note.endswith(
        "the machine was not quiet meanwhile (the tool's own processes used 27% of the CPU, "
        "others 1%), and an all-core probe shares its cores with them"
    )
    quiet = MachineLoad(None, other_cpu_s=0.1, wall_s=10.0, cores=2, tool_cpu_s=0.1)
    assert "not quiet" not in moved_ceilings(peak(20e9), EARLIER, quiet)[0]

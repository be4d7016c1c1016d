"""Per-level ceilings: probe sizes from the topology, real NumPy probes of a real buffer,
levels dropped when they read no faster than the level above, and the level a working set is
placed against (warm, cold, per replica)."""

from __future__ import annotations

import pytest

from engine.machine.caches import CacheLevel
from engine.measure import cache_ceilings
from engine.measure.cache_ceilings import (
    LevelBuffers,
    LevelProber,
    level_ceilings,
    probe_bytes,
    probe_levels,
)
from engine.measure.host_bandwidth import FULL, WARM, ProbeEffort
from engine.measure.memory import working_set_bytes
from engine.measure.peak import LevelCeiling, Peak, Probe
from engine.run_settings.config import BenchConfig

MIB = 2**20
EPYC = (CacheLevel("L2", 2 * MIB, 2), CacheLevel("L3", 32 * MIB, 1))
QUICK = ProbeEffort(warmup=1, repeats=3, budget_s=1.0)


def test_each_probe_fits_its_level_and_exceeds_the_one_below():
    l2, l3 = probe_bytes(EPYC)
    assert l2 == MIB  # half the L2 of the run's cores
    assert 2 * 2 * MIB <= l3 <= 16 * MIB and l3 == 8 * MIB


def test_a_last_level_just_above_l2_still_gets_a_buffer_that_fits_it():
    (_, llc) = probe_bytes((CacheLevel("L2", 4 * MIB, 4), CacheLevel("L3", 6 * MIB, 1)))
    assert llc == 3 * MIB  # half of it: at most what fits, though not twice the L2


def test_real_probes_read_each_level_buffer_tagged_with_its_level():
    buffers = LevelBuffers.make(EPYC, threads=2)
    assert buffers.sizes == [MIB, 8 * MIB]
    probes = probe_levels(buffers, "before", QUICK)
    assert [p.extra["level"] for p in probes] == ["L2", "L3"]
    assert all(p.bandwidth_bytes_per_s > 0 and len(p.samples_s) == 3 for p in probes)
    assert "1.0 MiB buffer, 2 threads" in probes[0].kernel


def level_probe(level: str, rate: float, when: str = "before") -> Probe:
    return Probe("numpy", when, rate, extra={"level": level})


def test_the_best_of_each_level_is_kept_and_a_level_no_faster_than_above_is_dropped():
    probes = [level_probe("L2", 90e9), level_probe("L2", 130e9, "after"), level_probe("L3", 30e9)]
    levels, notes = level_ceilings(EPYC, probes, memory_bytes_per_s=35e9)
    assert [(lv.level, lv.bandwidth_bytes_per_s) for lv in levels] == [("L2", 130e9)]
    assert len(levels[0].probes) == 2
    (note,) = notes
    assert "the L3 ceiling is not used" in note and "no faster than memory (35.0 GB/s)" in note


def test_l2_is_judged_against_the_level_kept_above_it():
    probes = [level_probe("L2", 100e9), level_probe("L3", 120e9)]
    levels, notes = level_ceilings(EPYC, probes, memory_bytes_per_s=35e9)
    assert [lv.level for lv in levels] == ["L3"] and "no faster than L3 (120.0 GB/s)" in notes[0]


def test_a_run_off_a_cpu_or_without_sizes_says_once_that_only_memory_was_measured():
    peak = Peak(30e9, "probes")
    for prober in (LevelProber("GPU", EPYC, None), LevelProber("CPU", (), "no sysfs")):
        prober.probe("before")
        settled, notes = prober.settle(peak)
        assert settled.levels == () and len(notes) == 1
        assert notes[0].startswith("only memory's ceiling was measured")
    assert "on-chip memory is not probed" in LevelProber("TPU", EPYC, None).settle(peak)[1][0]


def test_a_cpu_run_gets_its_levels_beside_memory(monkeypatch):
    monkeypatch.setattr(cache_ceilings, "_KEPT", {})  # as in a fresh process
    prober = LevelProber("CPU", EPYC, None)
    prober.probe("before")
    prober.probe("after")  # the process's buffers kept, the short round
    peak, _ = prober.settle(Peak(1e6, "probes"))  # a memory ceiling every cache beats
    assert [c.level for c in peak.ceilings()] == ["L2", "L3", "memory"]
    assert [c["level"] for c in peak.to_dict()["levels"]] == ["L2", "L3", "memory"]
    # The first round is the full probe, the round after it the short one; a slow moment of a
    # shared machine may end a round at its time budget, with fewer samples, never more.
    limits = [FULL.repeats] * 2 + [WARM.repeats] * 2
    taken = [len(p.samples_s) for p in prober.probes]
    assert all(1 <= n <= limit for n, limit in zip(taken, limits, strict=True)), taken
    assert WARM.repeats < FULL.repeats


PEAK = Peak(
    30e9,
    "probes",
    levels=(LevelCeiling("L2", 2 * MIB, 130e9), LevelCeiling("L3", 32 * MIB, 110e9)),
)


@pytest.mark.parametrize(
    ("held", "level"),
    [(MIB, "L2"), (2 * MIB, "L2"), (10 * MIB, "L3"), (120 * MIB, "memory")],
)
def test_a_working_set_is_placed_against_the_smallest_level_that_holds_it(held, level):
    assert PEAK.ceiling_for(held).level == level


def test_a_cold_run_counts_every_rotated_copy():
    config = BenchConfig(matrices=300, dim=32, cache="cold")
    one_set = 300 * (32 * 32 + 32) * 4
    assert working_set_bytes(config, "single", copies=64) == 64 * one_set
    assert PEAK.ceiling_for(working_set_bytes(config, "single", copies=64)).level == "memory"


def test_replicated_holds_a_set_per_replica_sharded_splits_one():
    config = BenchConfig(matrices=600, dim=64, mode="sharded", replicas=2)
    one_set = 600 * (64 * 64 + 64) * 4
    assert working_set_bytes(config, "sharded") == one_set
    assert working_set_bytes(config, "replicated") == 2 * one_set
    assert PEAK.ceiling_for(working_set_bytes(config, "sharded")).level == "L3"


def test_a_peak_without_levels_places_everything_against_memory():
    assert Peak(30e9, "probes").ceiling_for(MIB).level == "memory"

"""Each result against its own level: the JSON's `ceiling_level` and `ceiling_fraction`, the
CLI's words, `peak.levels` read back and checked, an older file without levels, and a rate
above its level's ceiling (a note for a built-in, a refusal for a user's kernel)."""

from __future__ import annotations

import json

import pytest

from engine.analysis.ceiling import place_on_levels
from engine.measure.peak import LevelCeiling, Peak
from engine.results.ceiling_text import ceiling_words
from engine.results.codec import run_entries, run_to_dict
from engine.results.decode import run_from_json
from engine.results.formatting import format_entry
from engine.results.reader import ResultsRejected
from engine.results.run_result import RunResult
from engine.results.summary import summary_table
from tests.factories import make_run

MIB = 2**20
LEVELS = (LevelCeiling("L2", 2 * MIB, 100e9), LevelCeiling("L3", 32 * MIB, 80e9))


def run_with_levels(seconds: float = 0.002, *, cache: str = "warm", levels=LEVELS) -> RunResult:
    """100 10x10 matrices (48 KB of inputs: an L2 working set), einsum at `seconds` a call."""
    run = make_run({"einsum": [seconds] * 6, "numpy": [0.004] * 6})
    run.peak = Peak(20e9, "probes", levels=levels)
    run.config = run.config.__class__(**{**run.config.to_dict(), "cache": cache})
    run.cold_copies = 1 if cache == "warm" else 64  # 64 x 48 KB: 3 MiB, the L3's
    return run


def test_every_entry_names_its_level_and_its_fraction_of_that_level():
    run = run_with_levels(0.0000005)
    einsum = run_entries(run)[0]
    rate = einsum["bytes"] / 0.0000005
    assert einsum["ceiling_level"] == "L2"
    assert einsum["ceiling_fraction"] == pytest.approx(rate / 100e9)
    assert einsum["roofline_fraction"] == pytest.approx(rate / 20e9)  # memory, as before
    assert format_entry(einsum)["% roofline"] == f"{rate / 100e9:.0%} of L2"


def test_a_cold_run_is_placed_by_all_its_rotated_copies():
    einsum = run_entries(run_with_levels(cache="cold"))[0]
    assert einsum["working_set_bytes"] == 64 * einsum["bytes"] - 64 * 4 * 100 * 10
    assert einsum["ceiling_level"] == "L3" and ceiling_words(einsum).endswith("of L3")
    big = run_with_levels(cache="cold")
    big.cold_copies = 1000
    einsum = run_entries(big)[0]
    assert einsum["ceiling_level"] == "memory"
    assert einsum["ceiling_fraction"] == pytest.approx(einsum["roofline_fraction"])


def test_levels_survive_the_file_and_memory_is_listed_last():
    run = run_with_levels()
    data = run_to_dict(run)
    assert [lv["level"] for lv in data["peak"]["levels"]] == ["L2", "L3", "memory"]
    assert data["peak"]["levels"][-1]["bandwidth_bytes_per_s"] == 20e9
    back = run_from_json(RunResult, json.dumps(data))
    assert back.peak.levels == LEVELS
    assert run_entries(back)[0]["ceiling_level"] == "L2"


def test_a_file_without_levels_reads_as_memory_only():
    data = run_to_dict(make_run())
    assert "levels" not in data["peak"]
    back = run_from_json(RunResult, json.dumps(data))
    entry = run_entries(back)[0]
    assert back.peak.levels == () and entry["ceiling_level"] == "memory"
    assert entry["ceiling_fraction"] == pytest.approx(entry["roofline_fraction"])


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("level", "L9", "peak.levels[0].level"),
        ("bytes", -1, "peak.levels[0].bytes"),
        ("bandwidth_bytes_per_s", "fast", "peak.levels[0].bandwidth_bytes_per_s"),
    ],
)
def test_a_bad_level_is_refused_naming_the_field(field, value, named):
    data = run_to_dict(run_with_levels())
    data["peak"]["levels"][0][field] = value
    with pytest.raises(ResultsRejected, match=named.replace("[", r"\[").replace("]", r"\]")):
        run_from_json(RunResult, json.dumps(data))


def test_above_110_percent_of_its_level_a_built_in_gets_a_note_with_the_numbers():
    run = run_with_levels()
    einsum = run.results[0]
    einsum.bytes = int(150e9 * einsum.median_s)  # 150 GB/s against L2's 100
    place_on_levels(run.peak, run.results, run.config)
    (note,) = einsum.warnings
    assert note.startswith("150% of the L2 ceiling") and "100.0 GB/s" in note
    assert einsum.status == "ok"
    table = summary_table(run)
    assert "150% of L2" in table and "150% of the L2 ceiling" in table


def test_within_110_percent_of_its_level_nothing_is_said():
    run = run_with_levels()
    run.results[0].bytes = int(105e9 * run.results[0].median_s)
    place_on_levels(run.peak, run.results, run.config)
    assert run.results[0].warnings == []


def test_a_user_kernel_far_above_its_level_is_refused():
    run = run_with_levels()
    kernel = run.results[0]
    kernel.user_kernel = {"name": "mine", "path": "k.py", "function": "f"}
    kernel.bytes = int(400e9 * kernel.median_s)  # 4x L2's ceiling
    place_on_levels(run.peak, run.results, run.config)
    assert kernel.status == "failed" and "ImplausibleThroughput" in kernel.error
    assert "4.0x the 100.0 GB/s read from the L2 cache" in kernel.error

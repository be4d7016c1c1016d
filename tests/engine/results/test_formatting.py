"""Human formatting: units chosen from the value, failures spelt out, never a crash on None."""

import math

import pytest

from engine.results.formatting import (
    format_entry,
    format_number,
    format_seconds,
    select_time_unit,
    verdict,
)
from engine.results.summary import summary_table
from tests.factories import make_run


@pytest.mark.parametrize(
    ("seconds", "unit"), [(2.0, "s"), (0.0021, "ms"), (3e-6, "us"), (4e-9, "ns"), (1e-12, "ns")]
)
def test_time_unit_is_the_largest_not_below_one(seconds, unit):
    assert select_time_unit(seconds)[0] == unit


def test_seconds_and_numbers():
    assert format_seconds(0.00123) == "1.23 ms"
    assert format_seconds(None) == "-" and format_seconds(math.inf) == "-"
    assert format_number(3.14159, ".2f") == "3.14" and format_number(math.nan) == "-"


def test_verdict_never_lets_a_wrong_answer_look_like_a_result():
    assert verdict("ok", True) == "ok"
    assert verdict("ok", False) == "WRONG"
    assert verdict("failed", False) == "failed"


def test_entry_of_a_failed_variant_formats_with_dashes():
    run = make_run()
    run.results[0].samples_s = ()
    run.results[0].status = "failed"
    entry = run.to_dict()["results"][0]
    row = format_entry(entry)
    assert row["status"] == "failed" and row["median"] == "-" and row["% roofline"] == "-"


def test_summary_table_names_every_variant_and_the_peak():
    text = summary_table(make_run(peak=20e9))
    assert "einsum" in text and "numpy" in text
    assert text.startswith("peak read bandwidth 20.0 GB/s (read by this run's own probes)")


def test_the_took_line_names_each_phase_that_took_time():
    from engine.results.summary import took_line

    timings = {"startup_s": 3.04, "peers_s": 0.0, "peak_s": 1.6, "variants_s": 0.61, "total_s": 5.3}
    assert took_line(timings) == (
        "This run took 5.3 s: starting 3.0 s · peak bandwidth 1.6 s · variants 0.6 s"
    )
    assert took_line(None) is None and took_line({}) is None
    warm = {"warm": True, "inputs_reused": True}
    assert took_line({"peak_s": 0.3, "total_s": 1.2}, warm) == (
        "This run took 1.2 s on a warm worker (inputs reused): peak bandwidth 0.3 s"
    )
    assert took_line({"total_s": 1.2}, {"warm": "yes"}) == "This run took 1.2 s"


def test_notes_that_differ_only_in_a_number_are_one_line():
    from engine.results.formatting import grouped_notes

    iqr = "IQR is {}% of the median: significant environmental influence"
    lines = grouped_notes(
        [
            ("einsum", iqr.format(12)),
            ("numpy", iqr.format(15)),
            ("map_fn", "warm-up cut to 1 of 3 calls by the time budget"),
            ("while_loop", "warm-up cut to 1 of 3 calls by the time budget"),
        ]
    )
    assert lines == [
        "IQR is 12–15% of the median: significant environmental influence (einsum 12%, numpy 15%)",
        "map_fn, while_loop: warm-up cut to 1 of 3 calls by the time budget",
    ]


def test_a_failed_profile_is_in_the_printed_notes():
    from engine.results.parts import ProfileSummary
    from engine.results.summary import summary_table
    from tests.factories import make_run

    run = make_run({"einsum": [0.001] * 4})
    run.results[0].profile = ProfileSummary("failed", error="RuntimeError: profiler busy")
    assert "einsum: profile failed: RuntimeError: profiler busy" in summary_table(run)


@pytest.mark.parametrize(
    ("ratio", "low", "high", "expected"),
    [
        (1.5, 1.3, 1.7, "1.50x faster than numpy (1.30–1.70x)"),
        (0.88, 0.8, 0.95, "1.14x slower than numpy (1.05–1.25x)"),
        (1.02, 0.9, 1.1, "about as fast as numpy (0.90–1.10x its speed)"),
        (2245.24, 1254.52, 4018.38, "2,245x faster than numpy (1,255–4,018x)"),
        (23.32, 18.2, 99.6, "23.3x faster than numpy (18.2–99.6x)"),
    ],
)
def test_speeds_are_said_the_right_way_round(ratio, low, high, expected):
    from engine.results.formatting import speed_words

    assert speed_words(ratio, low, high, "numpy") == expected


def test_the_regime_is_named_from_the_numbers():
    from engine.measure.roofline import regime

    mib = 2**20
    small = regime(4 * 5 * (8 * 8 + 16), 20e-6, 30e9, 1500, 32 * mib, "warm")
    assert small[0] == "overhead-bound" and "fixed cost per call" in small[1]
    cached = regime(4 * mib, 1e-3, 30e9, 4 * mib, 32 * mib, "warm")
    assert cached[0] == "cache-resident"
    big = regime(117 * mib, 4e-3, 30e9, 117 * mib, 32 * mib, "warm")
    assert big[0] == "memory-bound"
    assert regime(4 * mib, 1e-3, 30e9, 4 * mib, 32 * mib, "cold")[0] == "memory-bound"


def test_a_note_reads_as_a_sentence_unless_it_starts_with_a_name():
    from engine.results.formatting import sentence

    assert sentence("the machine was busy: 24%") == "The machine was busy: 24%"
    assert sentence("warm cache: the inputs fit") == "Warm cache: the inputs fit"
    assert sentence("numpy: IQR is 50%") == "numpy: IQR is 50%"
    assert sentence("jax_vmap ran on the CPU") == "jax_vmap ran on the CPU"
    assert sentence("TensorFlow's probe") == "TensorFlow's probe"
    assert sentence("") == ""


def test_an_interval_of_one_value_is_not_shown_as_a_range():
    """A one-sample interval read "318–318 ms"."""
    from engine.results.formatting import format_interval

    assert format_interval([0.318, 0.318]) == "318 ms (no spread)"
    assert format_interval([0.001, 0.003]) == "1–3 ms"


def test_a_searchs_tie_names_the_search_budget_that_stopped_it():
    """A search's sampling is stopped by --search-budget: its tie advice names that flag,
    not --time-budget (which a search caps by itself)."""
    import dataclasses

    from engine.results.formatting import winner_line

    run = make_run({"einsum": [0.002, 0.0035, 0.0012, 0.004, 0.0009], "numpy": [0.0021] * 5})
    assert "--time-budget" in winner_line(run.winner_dict())
    searched = dataclasses.replace(run.config, search=True)
    run.config = searched
    line = winner_line(run.winner_dict())
    assert "a longer --search-budget" in line and "--time-budget" not in line


def test_a_count_reads_as_english():
    from engine.machine.words import counted

    assert counted(1, "run") == "1 run" and counted(2, "point") == "2 points"
    assert counted(1_000, "series", "series") == "1,000 series"

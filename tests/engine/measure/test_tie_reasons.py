"""Why a tie is one, from synthetic samples with known answers, and the words each reason
gets: within the margin, samples too spread, another process's spread, the machine's floor."""

from __future__ import annotations

import numpy as np
import pytest

from engine.measure.uncertainty import NoiseFloor, winner_and_ties
from engine.results.formatting import tie_words, winner_line

FLOOR = NoiseFloor(between_run_log_sd=0.10, ratio_log_sd=0.08)


def samples(median: float, spread: float, seed: int, n: int = 30) -> list[float]:
    rng = np.random.default_rng(seed)
    return list(median * np.exp(rng.normal(0.0, spread, n)))


@pytest.mark.parametrize(
    ("other", "processes", "reason"),
    [
        (samples(1.01e-3, 0.002, 2), None, "margin"),  # 1% slower, tight: inside 5%
        (
            [0.95e-3, 1.6e-3, 1.1e-3, 2.4e-3, 1.02e-3, 1.9e-3],
            None,
            "samples",
        ),  # few, wildly spread samples
        (samples(1.20e-3, 0.002, 2), {"a": "", "b": "jax"}, "processes"),  # tight, another process
        (samples(1.15e-3, 0.002, 2), None, "floor"),  # tight, one process, the floor covers it
    ],
)
def test_each_tie_carries_the_reason_its_numbers_give(other, processes, reason):
    best = samples(1.0e-3, 0.002, 1)
    found = winner_and_ties({"a": best, "b": other}, FLOOR, seed=3, processes=processes)
    assert found is not None and found.variant == "a" and found.tied_with == ("b",)
    assert found.reasons == {"b": reason}
    same = reason != "processes"
    assert found.side_log_sd["b"] == pytest.approx(FLOOR.side_log_sd(same))


def test_a_clear_win_has_no_reasons():
    found = winner_and_ties(
        {"a": samples(1e-3, 0.002, 1), "b": samples(2e-3, 0.002, 2)}, FLOOR, seed=3
    )
    assert found.tied_with == () and found.reasons == {}


RECORD = {"ratio": 1.29, "ratio_ci": [1.02, 1.61], "side_log_sd": 0.08}


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("margin", "within the 5% margin, as fast for this problem"),
        ("samples", "its samples spread too widely to tell; a longer --time-budget"),
        ("processes", "ran in another process and a fresh process's time moves ±17%"),
        ("floor", "ratios on this machine move ±17% between runs; --repetitions 5 measures"),
    ],
)
def test_each_reason_has_its_words_with_the_numbers(reason, words):
    text = tie_words({**RECORD, "tie_reason": reason}, 0.05)
    assert text.startswith("1.29x the winner's time, 1.02–1.61: ")
    assert words in text


def test_the_cli_line_says_why_each_variant_is_tied():
    winner = {
        "variant": "numpy",
        "tied_with": ["jax_vmap"],
        "margin": 0.05,
        "ratios": {"jax_vmap": {**RECORD, "tie_reason": "processes"}},
        "simplest": "numpy",
        "simplest_reason": "one NumPy call",
    }
    line = winner_line(winner)
    assert line.startswith("tied: numpy, jax_vmap (jax_vmap 1.29x the winner's time, 1.02–1.61")
    assert "within the noise" not in line and line.endswith(
        "simplest to copy: numpy (one NumPy call)"
    )


def test_a_winner_alone_is_not_said_to_be_faster_than_others_it_never_met():
    alone = winner_and_ties({"numpy": samples(1.0e-3, 0.002, 1)}, FLOOR)
    record = {"variant": "numpy", "tied_with": [], "margin": 0.05, "ratios": alone.ratios}
    assert winner_line({**record, "simplest": "numpy"}) == (
        "fastest: numpy (the only variant with a correct result)"
    )
    beaten = winner_and_ties({"a": samples(1.0e-3, 0.002, 1), "b": samples(2e-3, 0.002, 2)}, FLOOR)
    record = {"variant": "a", "tied_with": [], "margin": 0.05, "ratios": beaten.ratios}
    assert winner_line({**record, "simplest": "a"}).endswith("by more than 5%)")

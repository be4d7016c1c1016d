"""The fastest-way words on constructed runs: a tie shows each tied ratio, its interval and why,
and a busy machine that widened the verdict is named with what to do about it."""

from __future__ import annotations

import random

from dashboard.tables import run as data
from dashboard.text.explain import answer_for, comparison_method
from engine.machine.load import MachineLoad
from engine.measure.uncertainty import NoiseFloor
from tests.factories import make_run


def noisy(median: float, spread: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [median * (1 + rng.uniform(-spread, spread)) for _ in range(12)]


def answer(run) -> str:
    chosen = run.winner_dict()
    best = data.winner(data.summary(run), chosen)
    return answer_for(run, best, chosen, None)


def test_a_tie_shows_each_tied_ratio_with_its_interval():
    run = make_run({"einsum": noisy(0.002, 0.5, 1), "numpy": noisy(0.0022, 0.5, 2)})
    text = answer(run)
    assert text.startswith("**Tie.**")
    assert "x the winner's time, " in text  # "`numpy`: 1.10x the winner's time, 0.80–1.50: ..."
    assert "other processes used" not in text  # a quiet run says nothing about load


def test_a_busy_machine_that_widened_the_verdict_is_named_with_what_to_do():
    run = make_run({"einsum": [0.002] * 12, "numpy": [0.0021] * 12})
    run.machine_load = MachineLoad(load_at_start=None, other_cpu_s=16.0, wall_s=10.0, cores=2)
    text = answer(run)
    assert "other processes used 80% of the CPU" in text
    assert "Close other work and run again, or use repetitions" in text


def test_a_clean_win_on_a_busy_machine_says_the_win_held_not_what_to_do():
    run = make_run({"einsum": [0.002] * 12, "numpy": [0.006] * 12})
    run.machine_load = MachineLoad(load_at_start=None, other_cpu_s=8.0, wall_s=10.0, cores=2)
    text = answer(run)
    assert "**einsum** is the fastest correct strategy" in text
    assert "Other processes used 40% of the CPU" in text
    assert "the win clears the margin even so" in text
    assert "Close other work" not in text


def test_the_comparison_names_the_variants_judged_by_their_own_spread():
    assert "their own spread" not in comparison_method(NoiseFloor(), 0.05)
    floor = NoiseFloor(0.12, 0.06, "observed over 7 runs", (("einsum", 0.24), ("numpy", 0.08)))
    text = comparison_method(floor, 0.05)
    assert "from the history: `einsum` ±60%, `numpy` ±17%." in text


def test_one_launch_is_said_to_stream_memory_only_when_the_rate_shows_it():
    from dashboard.text.explain import one_launch_words

    assert "keeps memory streaming" in one_launch_words(3000, 0.85)
    slow = one_launch_words(3000, 0.18)
    assert "18% of the measured peak" in slow and "streaming" not in slow
    assert one_launch_words(3000, None).endswith("no per-matrix dispatch.")

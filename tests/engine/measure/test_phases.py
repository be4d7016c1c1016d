"""A change of the machine's speed during a run, on synthetic runs with known answers: found
where it is, not found in steady samples, and a variant faster on one side of it is tied with
the winner, in the JSON and in words."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.text.explain import verdict_lines
from engine.measure.phases import (
    ALPHA,
    MIN_EACH,
    pettitt,
    phase_shift,
    phase_ties,
    rounds_of,
)
from engine.results.formatting import winner_line
from tests.factories import make_run


def steady(median: float, count: int, rng: np.random.Generator, spread: float = 0.05) -> list:
    return list(median * rng.lognormal(0.0, spread, count))


def interleaved(names: list[str], rounds: int) -> dict:
    """An interleaved run's record where every variant took a block in every round."""
    return {
        "order": "interleaved",
        "variants": names,
        "rounds": [list(range(len(names)))] * rounds,
    }


def slow_phase_run(changes_at: int = 8, rounds: int = 20, seed: int = 0):
    """A two-thread kernel at 3.7 ms that runs at 8.2 ms from round `changes_at` on, beside
    NumPy's steady 4.4 ms and a slow loop: the shape seen in this machine's runs."""
    rng = np.random.default_rng(seed)
    samples = {
        "batched_matvec": steady(0.0037, changes_at, rng)
        + steady(0.0082, rounds - changes_at, rng),
        "numpy": steady(0.0044, rounds, rng),
        "python_loop": steady(0.45, rounds, rng),
    }
    run = make_run(samples)
    run.sampling = interleaved(list(samples), rounds)
    return run


def test_the_change_point_is_found_where_it_is():
    rng = np.random.default_rng(1)
    samples = steady(0.0037, 8, rng) + steady(0.0082, 12, rng)
    at, p_value = pettitt(samples)
    assert at == 8 and p_value < 0.005  # a perfect split of 8 and 12 reads 0.0028
    shift = phase_shift("batched_matvec", samples, tested=3)
    assert shift is not None and shift.at_sample == 8
    assert shift.before_s == pytest.approx(0.0037, rel=0.05)
    assert shift.after_s == pytest.approx(0.0082, rel=0.05)
    assert "its time changed during the run: 3.77 ms for its first 8 samples, 8.17 ms" in (
        shift.warning()
    )


def test_steady_samples_are_called_shifted_less_often_than_alpha():
    rng = np.random.default_rng(2)
    found = sum(phase_shift("v", steady(0.004, 20, rng, 0.2)) is not None for _ in range(1000))
    assert found / 1000 <= ALPHA


def test_a_change_within_the_margin_or_too_near_an_end_is_not_a_phase():
    rng = np.random.default_rng(3)
    small = steady(0.0040, 10, rng, 0.005) + steady(0.0041, 10, rng, 0.005)  # 2.5%, clear
    assert pettitt(small)[1] < 0.005 and phase_shift("v", small) is None
    late = steady(0.0040, 20 - MIN_EACH + 1, rng) + steady(0.008, MIN_EACH - 1, rng)
    assert phase_shift("v", late) is None
    assert phase_shift("v", steady(0.004, 2 * MIN_EACH - 1, rng)) is None  # too few to say


def test_rounds_come_from_an_interleaved_record_only():
    record = {"order": "interleaved", "variants": ["a", "b"], "rounds": [[0, 1], [1], [1, 0]]}
    assert rounds_of(record, "a", 2) == [0, 2]
    assert rounds_of(record, "b", 3) == [0, 1, 2]
    assert rounds_of(record, "b", 4) is None  # not the samples this record ran
    assert rounds_of({**record, "order": "sequential"}, "a", 2) is None
    assert rounds_of(record, "jax_einsum", 2) is None  # another process's variant
    assert rounds_of(None, "a", 2) is None
    assert rounds_of({**record, "rounds": [0, "x", None]}, "a", 2) is None  # an imported file
    assert rounds_of({**record, "rounds": "[[0]]"}, "a", 1) is None


def test_a_malformed_imported_record_leaves_the_ties_as_the_noise_gives_them():
    run = slow_phase_run()
    run.sampling = {**run.sampling, "rounds": [[0, 1, 2], 7, "x"] * 7}
    assert run.winner_dict()["tied_with"] == []


def test_a_variant_faster_before_the_machine_slowed_it_is_tied_with_the_winner():
    run = slow_phase_run()
    winner = run.winner_dict()
    assert winner["variant"] == "numpy"
    assert winner["tied_with"] == ["batched_matvec"]  # never python_loop
    phase = winner["ratios"]["batched_matvec"]["phase"]
    assert phase["changed"] == "batched_matvec" and phase["round"] == 8
    assert phase["before"] == pytest.approx(0.0037 / 0.0044, rel=0.06)
    assert phase["after"] == pytest.approx(0.0082 / 0.0044, rel=0.06)
    assert "phase" not in winner["ratios"]["python_loop"]
    line = winner_line(winner)
    assert "changed places when the machine changed speed" in line
    assert "batched_matvec: 0.8" in line and "over the first 8 rounds, 1.8" in line
    words = " ".join(verdict_lines(winner))
    assert "had the lowest median over the run, but not all through it" in words
    assert "The machine changed speed during the run" in words
    assert "the winner's time over the first 8 rounds and 1.8" in words


def test_without_the_runs_rounds_the_slowed_variant_is_not_tied():
    run = slow_phase_run()
    run.sampling = {**run.sampling, "order": "sequential"}  # no common clock to split by
    winner = run.winner_dict()
    assert winner["variant"] == "numpy" and winner["tied_with"] == []
    run.sampling = None
    assert run.winner_dict()["tied_with"] == []


def test_a_steadily_slower_variant_stays_slower_whatever_else_changed():
    rng = np.random.default_rng(4)
    samples = {
        "numpy": steady(0.0044, 20, rng),
        "einsum": steady(0.0066, 20, rng),  # 1.5x, all through the run
        "batched_matvec": steady(0.0046, 8, rng) + steady(0.0090, 12, rng),
    }
    found = phase_ties(
        "numpy", ["einsum", "batched_matvec"], samples, interleaved(list(samples), 20)
    )
    assert set(found) == {"batched_matvec"}
    assert found["batched_matvec"].before == pytest.approx(0.0046 / 0.0044, rel=0.06)


def test_the_winners_own_change_splits_the_others_too():
    rng = np.random.default_rng(5)
    samples = {  # the winner slowed down late; the other was faster than it before that
        "numpy": steady(0.0030, 12, rng) + steady(0.0050, 8, rng),
        "einsum": steady(0.0040, 20, rng),
    }
    found = phase_ties("numpy", ["einsum"], samples, interleaved(list(samples), 20))
    assert found["einsum"].changed == "numpy" and found["einsum"].round == 12
    assert found["einsum"].after < 1


def test_an_eliminated_variant_is_never_tied_by_a_phase():
    run = slow_phase_run()
    slowed = next(r for r in run.results if r.variant == "batched_matvec")
    slowed.stop_reason = "eliminated"  # the race separated it: the ties keep that promise
    assert run.winner_dict()["tied_with"] == []


def test_a_change_any_variant_shows_splits_them_all():
    rng = np.random.default_rng(6)
    samples = {
        "numpy": steady(0.0044, 20, rng),
        "map_fn": steady(0.035, 9, rng) + steady(0.050, 11, rng),  # the machine slowed here
        "vectorized_map": steady(0.0042, 9, rng) + steady(0.0080, 11, rng),
    }
    found = phase_ties("numpy", ["vectorized_map"], samples, interleaved(list(samples), 20))
    assert found["vectorized_map"].changed == "map_fn"  # the first named, at the same round
    assert found["vectorized_map"].round == 9


def test_a_peer_frameworks_own_record_splits_its_variants():
    run = slow_phase_run()  # as if JAX's process had sampled them, on a machine without TF
    run.sampling = {
        "order": "interleaved",
        "variants": [],
        "rounds": [],
        "peers": {"jax": run.sampling},
    }
    assert run.winner_dict()["tied_with"] == ["batched_matvec"]
    record = {"order": "interleaved", "variants": ["numpy"], "rounds": [[0]] * 20}
    run.sampling = {**record, "peers": {"jax": {**record, "variants": ["batched_matvec"]}}}
    assert run.winner_dict()["tied_with"] == []  # two processes: no common clock

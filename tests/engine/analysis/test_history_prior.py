"""What the history says before a run starts: which variants were far slower than the best at
this problem (`analysis/history_prior.py`), on synthetic stored runs with known ratios."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

from engine.analysis.history_prior import (
    PRIOR_DAYS,
    PRIOR_RUNS,
    Prior,
    for_more_matrices,
    point_priors,
    priors_from,
)
from engine.machine.load import MachineLoad
from tests.factories import make_run

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=timezone.utc)


def at(minutes_ago: float, times: dict[str, float]) -> object:
    made = (NOW - timedelta(minutes=minutes_ago)).isoformat(timespec="seconds")
    return make_run({name: [t] * 6 for name, t in times.items()}, created_at=made)


def test_a_variant_far_slower_in_every_recent_run_is_a_prior_with_its_least_ratio():
    runs = [at(1, {"numpy": 0.01, "python_loop": 1.5}), at(5, {"numpy": 0.01, "python_loop": 1.2})]
    found = priors_from(runs, now=NOW)
    assert set(found) == {"python_loop"}
    prior = found["python_loop"]
    assert prior.best == "numpy" and prior.runs == 2 and prior.median_s == 1.5  # the newest
    assert abs(prior.ratio - 120.0) < 1e-6  # the least of 150× and 120×
    assert "from history" in prior.words() and "120.0×" in prior.words()


def test_one_recent_run_near_the_best_means_no_prior():
    runs = [at(1, {"numpy": 0.01, "einsum": 0.05}), at(5, {"numpy": 0.01, "einsum": 0.012})]
    assert priors_from(runs, now=NOW) == {}  # 5× once, 1.2× the time before


def test_a_variant_that_was_the_best_once_has_no_prior():
    runs = [at(1, {"numpy": 0.01, "einsum": 0.05}), at(5, {"numpy": 0.05, "einsum": 0.01})]
    assert "einsum" not in priors_from(runs, now=NOW) and "numpy" not in priors_from(runs, now=NOW)


def test_only_the_newest_runs_of_a_variant_are_read():
    newest = [at(i, {"numpy": 0.01, "map_fn": 0.1}) for i in range(PRIOR_RUNS)]
    older = at(PRIOR_RUNS + 1, {"numpy": 0.01, "map_fn": 0.011})  # beyond the window
    assert set(priors_from([*newest, older], now=NOW)) == {"map_fn"}


def test_old_runs_say_nothing_and_a_busy_run_counts_like_any_other():
    old = at(60 * 24 * (PRIOR_DAYS + 1), {"numpy": 0.01, "python_loop": 1.0})
    busy = at(1, {"numpy": 0.01, "python_loop": 1.0})
    busy = dataclasses.replace(
        busy, machine_load=MachineLoad(None, other_cpu_s=10.0, wall_s=10.0, cores=2)
    )
    assert priors_from([old], now=NOW) == {}
    assert set(priors_from([busy], now=NOW)) == {"python_loop"}  # its block still confirms


def test_wrong_or_failed_results_neither_count_nor_make_the_best():
    run = at(1, {"numpy": 0.01, "python_loop": 1.0, "einsum": 0.001})
    for result in run.results:
        if result.variant == "einsum":
            result.correct = False  # the fastest, but wrong: never the best
    assert priors_from([run], now=NOW)["python_loop"].best == "numpy"
    assert "einsum" not in priors_from([run], now=NOW)


def test_a_users_kernel_never_has_a_prior():
    run = at(1, {"numpy": 0.01, "map_fn": 1.0})  # a user's kernel stored under a name
    for result in run.results:
        if result.variant == "map_fn":
            result.user_kernel = {"path": "mine.py", "function": "mine", "sha256": "0" * 64}
    assert priors_from([run], now=NOW) == {}


def test_a_reduced_precision_point_never_has_a_prior():
    """Its block has no best of its own accuracy to be judged against: a prior would cost one
    dropped block and then the full measurement (`jax_einsum_bf16` in a search)."""
    run = at(1, {"numpy": 0.01, "jax_einsum_bf16": 0.1})
    for result in run.results:
        if result.variant == "jax_einsum_bf16":
            result.accuracy_class = "bfloat16"
    assert priors_from([run], now=NOW) == {}


def test_a_prior_travels_as_data():
    prior = Prior("python_loop", 112.4, "numpy", 3, "2026-12-04T12:00:00+00:00", 0.9)
    assert Prior.from_dict("python_loop", prior.to_dict()) == prior
    assert "matrices" not in prior.to_dict()  # the history's: as before sweeps learnt
    learnt = dataclasses.replace(prior, matrices=300)
    assert Prior.from_dict("python_loop", learnt.to_dict()) == learnt


def test_a_sweeps_point_of_fewer_matrices_teaches_one_of_more():
    """At 300 matrices the eager loop was 150× the best: at 1,200 of the same problem it is
    a prior said to come from that point, its time per call scaled by the matrix count (to
    size its block); the best, and a variant near it, are none."""
    smaller = make_run(
        {"numpy": [0.01] * 6, "einsum": [0.012] * 6, "python_loop": [1.5] * 6}, matrices=300
    )
    found = for_more_matrices(point_priors(smaller), 1200)
    assert set(found) == {"python_loop"}
    prior = found["python_loop"]
    assert prior.matrices == 300 and prior.best == "numpy" and prior.runs == 1
    assert prior.median_s == 1.5 * 4 and abs(prior.ratio - 150.0) < 1e-6
    assert prior.words().startswith("from this sweep: at least 150.0× the best's time (numpy)")
    assert "at its point of 300 matrices" in prior.words() and "history" not in prior.words()


def test_a_point_of_as_many_or_more_matrices_teaches_nothing():
    """Fewer matrices spread a batched kernel's fixed cost over less work: the gap an eager
    loop showed at more matrices may not hold, so nothing is learnt in that direction."""
    larger = make_run({"numpy": [0.01] * 6, "python_loop": [1.5] * 6}, matrices=1200)
    said = point_priors(larger)
    assert set(said) == {"python_loop"} and said["python_loop"].matrices == 1200
    assert for_more_matrices(said, 300) == {} and for_more_matrices(said, 1200) == {}


def test_a_variant_near_the_confirming_factor_is_no_prior():
    """3× the best in every run: its one block would sit at the edge of the 2.5× it must show,
    confirmed one run and measured in full the next; it is measured in full every time."""
    runs = [at(i, {"numpy": 0.01, "einsum": 0.03}) for i in range(3)]
    assert priors_from(runs, now=NOW) == {}

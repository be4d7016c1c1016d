"""The answer before measuring (`analysis/prediction.py`), on synthetic histories with known
answers: exact matches, a cost fit across shapes used only inside its range, no guess where
a variant has no history, and the record of how predictions fared."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.analysis.prediction import (
    NoPrediction,
    Prediction,
    TrackRecord,
    outcome,
    predict,
    prediction_words,
    track_record,
    weakest,
    weakness,
)
from engine.measure.roofline import traffic_bytes
from engine.run_settings.config import BenchConfig
from tests.factories import make_run

NONE = TrackRecord(0, 0, None)
# Known costs per variant: fixed seconds, seconds per matrix, seconds per byte.
COSTS = {"numpy": (2e-5, 1e-8, 1.0e-10), "numpy_einsum": (3e-5, 2e-8, 1.3e-10)}


def true_time(variant: str, matrices: int, dim: int) -> float:
    fixed, per_matrix, per_byte = COSTS[variant]
    return fixed + per_matrix * matrices + per_byte * traffic_bytes(matrices, dim, dim, 4)


def history(shapes: list[tuple[int, int]], noise: float = 0.02, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    runs = []
    for matrices, dim in shapes:
        samples = {
            v: list(true_time(v, matrices, dim) * np.exp(rng.normal(0, noise, 8))) for v in COSTS
        }
        runs.append(make_run(samples, matrices=matrices, dim=dim))
    return runs


def config(matrices: int, dim: int) -> BenchConfig:
    return BenchConfig(matrices=matrices, dim=dim, strategies=("numpy", "numpy_einsum"))


def test_an_exact_problem_is_predicted_from_its_runs_with_a_prediction_interval():
    runs = history([(1000, 32)] * 4)
    found = predict(config(1000, 32), runs, NONE)
    assert isinstance(found, Prediction) and found.winner == "numpy"
    low, mid, high = found.times_s["numpy"]
    assert low < true_time("numpy", 1000, 32) < high
    assert mid == pytest.approx(true_time("numpy", 1000, 32), rel=0.05)
    assert found.source == "exact: 4 run(s) of this problem"


def test_two_runs_that_agree_carry_the_unknown_spread_not_their_own():
    one = predict(config(1000, 32), history([(1000, 32)] * 2, noise=0.001), NONE)
    low, _, high = one.times_s["numpy"]
    assert high / low > math.exp(2 * 1.96 * 0.35)  # never narrower than nothing-known's


def test_a_shape_between_the_measured_ones_is_predicted_by_the_cost_fit():
    grid = [(m, d) for m in (100, 1000, 10000) for d in (16, 64)]
    found = predict(config(3000, 32), history(grid), NONE)
    assert isinstance(found, Prediction) and "cost fit" in found.source
    for variant in COSTS:
        low, _, high = found.times_s[variant]
        assert low < true_time(variant, 3000, 32) < high
    assert found.winner == "numpy"


def test_outside_the_measured_range_or_without_a_variants_history_nothing_is_guessed():
    grid = [(m, d) for m in (100, 1000, 10000) for d in (16, 64)]
    beyond = predict(config(50000, 32), history(grid), NONE)
    assert isinstance(beyond, NoPrediction) and "no extrapolation" in beyond.reason
    few = predict(config(3000, 32), history([(100, 16), (1000, 16)]), NONE)
    assert isinstance(few, NoPrediction) and "needed for a fit" in few.reason
    asked = BenchConfig(matrices=1000, dim=32, strategies=("numpy", "jax_vmap"))
    missing = predict(asked, history([(1000, 32)] * 3), NONE)
    assert isinstance(missing, NoPrediction) and missing.reason.startswith("jax_vmap")
    assert predict(config(1000, 32), [], NONE).reason.startswith("no run of this kind")


def test_close_variants_are_predicted_tied_and_the_outcome_judges_by_the_measured_verdict():
    runs = [make_run({"numpy": [1e-3] * 8, "numpy_einsum": [1.01e-3] * 8})] * 3
    found = predict(
        BenchConfig(matrices=100, dim=10, strategies=("numpy", "numpy_einsum")), runs, NONE
    )
    assert found.tied_with == ("numpy_einsum",)
    record = found.to_dict()
    measured = make_run({"numpy": [1.2e-3] * 8, "numpy_einsum": [1e-3] * 8})
    judged = outcome(record, measured.winner_dict(), measured.results)
    assert judged["confirmed"] and judged["measured_winner"] == "numpy_einsum"
    assert judged["time_error"] == pytest.approx(
        abs(math.log(found.times_s["numpy_einsum"][1] / 1e-3))
    )
    assert "Measured: numpy_einsum, confirmed" in prediction_words({**record, "outcome": judged})


def test_a_poor_record_says_so():
    poor = track_record([(True, 0.1), (False, 0.5), (False, 0.9), (False, 0.2), (True, 0.3)])
    assert poor.poor and "a poor record" in poor.words()
    good = track_record([(True, 0.1)] * 5)
    assert not good.poor and good.words().startswith("5 of 5 earlier predictions here confirmed")
    assert "no earlier prediction" in NONE.words()


def test_a_reported_run_or_a_user_kernel_is_never_a_prediction_source():
    runs = history([(1000, 32)] * 3)
    for run in runs:
        run.measured_here = False  # files that do not verify here
    assert isinstance(predict(config(1000, 32), runs, NONE), NoPrediction)


def test_the_points_a_sweep_fills_first_are_those_the_history_predicts_least():
    runs = history([(1000, 32)] * 8 + [(4000, 32)] * 2 + [(m, 16) for m in (100, 10000)])
    many, few, beyond = config(1000, 32), config(4000, 32), config(50000, 32)
    assert weakness(predict(beyond, runs, NONE)) == math.inf  # no prediction at all
    assert weakness(predict(few, runs, NONE)) > weakness(predict(many, runs, NONE))
    grid = [many, few, beyond]
    assert weakest(grid, lambda _: runs, NONE, 2) == [beyond, few]
    assert weakest(grid, lambda _: runs, NONE, 3)[-1] == many

import numpy as np
import pytest

from engine.analysis.compare import compare_runs, environments, mann_whitney_p, verdict
from engine.analysis.scaling import crossover, fit_costs, sweep_frame
from tests.factories import make_run


def test_same_distribution_is_not_significant():
    rng = np.random.default_rng(1)
    a, b = rng.normal(1.0, 0.05, 30), rng.normal(1.0, 0.05, 30)
    assert mann_whitney_p(a, b) > 0.05


def test_a_clear_shift_is_significant():
    rng = np.random.default_rng(2)
    a, b = rng.normal(1.0, 0.02, 20), rng.normal(1.2, 0.02, 20)
    assert mann_whitney_p(a, b) < 1e-6


def test_known_exact_p_value():
    # Completely separated groups of 3: exact two-sided p = 2 / C(6, 3) = 0.1.
    assert mann_whitney_p([1, 2, 3], [4, 5, 6]) == pytest.approx(0.1)


def test_too_few_samples_give_no_p_value():
    assert mann_whitney_p([1.0, 2.0], [3.0, 4.0, 5.0]) is None


def test_compare_runs_ratios_and_verdicts():
    fast = make_run({"einsum": [0.001 + i * 1e-6 for i in range(10)]}, label="tpu")
    slow = make_run({"einsum": [0.002 + i * 1e-6 for i in range(10)]}, label="laptop")
    same = make_run({"einsum": [0.001 + i * 1e-6 for i in range(10)]}, label="again")
    frame = compare_runs([fast, slow, same])
    rows = frame.set_index("run")
    assert rows.iloc[0]["verdict"] == "baseline"
    assert rows.iloc[1]["ratio_to_baseline"] == pytest.approx(2.0, rel=1e-2)
    assert rows.iloc[1]["verdict"] == "slower" and rows.iloc[1]["p_value"] < 0.05
    assert rows.iloc[2]["verdict"] == "no significant difference"


def test_noise_flag():
    noisy = make_run({"einsum": [0.001, 0.003, 0.001, 0.003, 0.002]})
    quiet = make_run({"einsum": [0.002] * 5})
    assert compare_runs([quiet, noisy])["noisy"].iloc[1]


def test_verdict_words():
    assert verdict(None, None) == "no timing"
    assert verdict(0.5, 0.01) == "faster"


def test_environments_side_by_side():
    frame = environments([make_run(label="a", device_kind="CPU"), make_run(device_kind="TPU")])
    assert frame.shape[1] == 3
    kinds = frame[frame["setting"] == "device_kind"].iloc[0].tolist()[1:]
    assert kinds == ["CPU", "TPU"]


def test_crossover_and_cost_fit_on_synthetic_sweep():
    runs = []
    for matrices in (10, 100, 1000, 10000):
        work = matrices * 10 * 10
        # loop: 1 us per matrix; batched: 50 us fixed + 0.001 us per element
        loop_s = 1e-6 * matrices
        batched_s = 50e-6 + 1e-9 * work
        runs.append(
            make_run(
                {"python_loop": [loop_s] * 3, "batched_matvec": [batched_s] * 3}, matrices=matrices
            )
        )
    frame = sweep_frame(runs)
    winners = crossover(frame).set_index("matrices")["winner"].to_dict()
    assert winners == {
        10: "python_loop",
        100: "batched_matvec",
        1000: "batched_matvec",
        10000: "batched_matvec",
    }
    costs = fit_costs(frame).set_index("variant")
    assert costs.loc["batched_matvec", "overhead_s"] == pytest.approx(50e-6, rel=1e-3)
    assert costs.loc["python_loop", "overhead_s"] == pytest.approx(0, abs=1e-9)
    assert costs.loc["batched_matvec", "r2"] == pytest.approx(1.0)


def test_a_sweep_with_no_timings_gives_empty_tables():
    from dashboard.tables.sweep import sweep_tables
    from tests.factories import make_run as run

    failed = run()
    for entry in failed.results:
        entry.status, entry.samples_s = "failed", ()
    tables = sweep_tables([failed])
    assert tables["points"].empty and tables["cells"].empty and tables["fits"].empty

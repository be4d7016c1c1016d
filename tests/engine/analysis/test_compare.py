import pytest

from engine.analysis.compare import compare_runs, confirmed_slowdowns, environments
from engine.analysis.scaling import crossover, fit_costs, sweep_frame
from tests.factories import make_run


def test_compare_runs_ratios_and_verdicts():
    fast = make_run({"einsum": [0.001 + i * 1e-6 for i in range(10)]}, label="tpu")
    slow = make_run({"einsum": [0.002 + i * 1e-6 for i in range(10)]}, label="laptop")
    same = make_run({"einsum": [0.001 + i * 1e-6 for i in range(10)]}, label="again")
    frame = compare_runs([fast, slow, same])
    rows = frame.set_index("run")
    assert rows.iloc[0]["verdict"] == "baseline"
    assert rows.iloc[1]["ratio"] == pytest.approx(2.0, rel=1e-2)
    low, high = rows.iloc[1]["ratio_ci"]
    assert 1.05 < low < 2.0 < high
    assert rows.iloc[1]["verdict"] == "slower"
    # One run a side: the default noise floor keeps identical medians from being "same".
    assert rows.iloc[2]["verdict"] == "inconclusive"


def test_repetitions_on_both_sides_are_one_side_each():
    a_runs = [make_run({"einsum": [0.001 * f] * 8}) for f in (1.0, 1.01, 0.99)]
    b_runs = [make_run({"einsum": [0.0015 * f] * 8}) for f in (1.0, 1.02, 0.98)]
    frame = compare_runs([a_runs, b_runs])
    row = frame.iloc[1]
    assert row["runs"] == 3 and row["verdict"] == "slower"
    assert row["ratio"] == pytest.approx(1.5, rel=0.02)


def test_no_overlap_between_runs_is_drawn_not_crashed():
    numpy_only = make_run({"numpy": [0.003] * 5})
    matvec_only = make_run({"batched_matvec": [0.002] * 5})
    frame = compare_runs([numpy_only, matvec_only])
    assert set(frame["verdict"]) == {"baseline", "no timing"}
    assert frame["ratio_ci"].isna().all()


def test_confirmed_slowdowns_need_the_interval_past_the_threshold():
    base = [make_run({"einsum": [0.001 * f] * 8}) for f in (1.0, 1.01, 0.99)]
    slower = [make_run({"einsum": [0.0015 * f] * 8}) for f in (1.0, 1.02, 0.98)]
    frame = compare_runs([base, slower])
    assert list(confirmed_slowdowns(frame, 10)["variant"]) == ["einsum"]
    assert confirmed_slowdowns(frame, 80).empty


def test_noise_flag():
    noisy = make_run({"einsum": [0.001, 0.003, 0.001, 0.003, 0.002]})
    quiet = make_run({"einsum": [0.002] * 5})
    assert compare_runs([quiet, noisy])["noisy"].iloc[1]


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

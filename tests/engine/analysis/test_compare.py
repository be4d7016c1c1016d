import dataclasses
import math

import pytest

from engine.analysis.compare import compare_runs, confirmed_slowdowns, environments
from engine.analysis.scaling import crossover, fit_costs, sweep_frame
from engine.measure.uncertainty import NoiseFloor, busy_log_sd
from tests.factories import make_run

# The floor of a machine calibrated as quiet as a run's own default: these tests check the
# comparison's arithmetic; the default for uncalibrated runs is `test_calibration.py`'s.
QUIET = NoiseFloor()


def test_compare_runs_ratios_and_verdicts():
    fast = make_run({"einsum": [0.001 + i * 1e-6 for i in range(10)]}, label="tpu")
    slow = make_run({"einsum": [0.002 + i * 1e-6 for i in range(10)]}, label="laptop")
    same = make_run({"einsum": [0.001 + i * 1e-6 for i in range(10)]}, label="again")
    frame = compare_runs([fast, slow, same], floor=QUIET)
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
    frame = compare_runs([a_runs, b_runs], floor=QUIET)
    row = frame.iloc[1]
    assert row["runs"] == 3 and row["verdict"] == "slower"
    assert row["ratio"] == pytest.approx(1.5, rel=0.02)


def test_no_overlap_between_runs_is_drawn_not_crashed():
    numpy_only = make_run({"numpy": [0.003] * 5})
    matvec_only = make_run({"batched_matvec": [0.002] * 5})
    frame = compare_runs([numpy_only, matvec_only], floor=QUIET)
    verdicts = dict(zip(zip(frame["variant"], frame["baseline"]), frame["verdict"]))
    assert verdicts == {
        ("numpy", True): "baseline",
        ("numpy", False): "not in this run",
        ("batched_matvec", True): "baseline",
        ("batched_matvec", False): "not in the baseline",
    }
    assert frame["ratio_ci"].isna().all()


def test_confirmed_slowdowns_need_the_interval_past_the_threshold():
    base = [make_run({"einsum": [0.001 * f] * 8}) for f in (1.0, 1.01, 0.99)]
    slower = [make_run({"einsum": [0.0015 * f] * 8}) for f in (1.0, 1.02, 0.98)]
    frame = compare_runs([base, slower], floor=QUIET)
    assert list(confirmed_slowdowns(frame, 10)["variant"]) == ["einsum"]
    assert confirmed_slowdowns(frame, 80).empty


def test_noise_flag():
    noisy = make_run({"einsum": [0.001, 0.003, 0.001, 0.003, 0.002]})
    quiet = make_run({"einsum": [0.002] * 5})
    assert compare_runs([quiet, noisy], floor=QUIET)["noisy"].iloc[1]


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
    winners = crossover(runs).set_index("matrices")["winner"].to_dict()
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


def busy(run, share: float):
    from engine.machine.load import MachineLoad

    run.machine_load = MachineLoad(None, other_cpu_s=share * 10.0 * 2, wall_s=10.0, cores=2)
    return run


def test_an_injected_load_widens_verdicts_to_inconclusive_rather_than_wrong():
    """A process-level noise model: on a machine 70% busy, one side's medians are 1.5× slower
    for no reason of its own (the other processes took its cores). Quiet, that would be called
    slower; busy, never: it is inconclusive, with the reason."""
    import numpy as np

    rng = np.random.default_rng(5)
    wrong = 0
    for _ in range(40):
        base = {"einsum": list(0.002 * np.exp(rng.normal(0, 0.02, 12)))}
        disturbed = {"einsum": list(0.003 * np.exp(rng.normal(0, 0.02, 12)))}
        quiet = compare_runs([make_run(base), make_run(disturbed)], floor=QUIET)
        loud = compare_runs(
            [busy(make_run(base), 0.7), busy(make_run(disturbed), 0.7)], floor=QUIET
        )
        assert quiet["verdict"].iloc[1] == "slower"  # the disturbance is big enough to call
        wrong += loud["verdict"].iloc[1] in ("slower", "faster")
        assert loud["note"].iloc[1].startswith("inconclusive on a busy machine")
        assert "close other work and run again" in loud["note"].iloc[1]
    assert wrong == 0


def test_a_quiet_run_gets_no_busy_note_and_the_same_interval():
    quiet = compare_runs([make_run(), make_run()], floor=QUIET)
    assert set(quiet["note"]) == {""}
    assert busy_log_sd(0.0) == 0.0 and busy_log_sd(None) == 0.0
    assert busy_log_sd(0.7) == pytest.approx(math.log(1.7) / 2)


def test_a_busy_run_widens_its_own_ties():
    from engine.measure.uncertainty import NoiseFloor

    samples = {"einsum": [0.002] * 10, "numpy": [0.0025] * 10}  # 1.25x: a call when quiet
    quiet = make_run(samples)
    assert quiet.winner().tied_with == ()
    loud = busy(make_run(samples), 0.6)
    assert loud.winner().tied_with == ("numpy",)
    assert "widened for a busy machine" in loud.effective_floor.source
    assert quiet.effective_floor == NoiseFloor()


def test_compare_warns_when_shapes_dtypes_or_devices_differ():
    from engine.analysis.compare import mismatch_warnings

    seed = make_run(matrices=3000, dim=100)
    small = make_run(matrices=5, dim=8)
    tpu = make_run(matrices=3000, dim=100, device_kind="TPU")
    assert mismatch_warnings([seed, make_run(matrices=3000, dim=100)]) == []
    (shapes,) = mismatch_warnings([seed, small])
    assert "differ in shapes (3000x100x100 vs 5x8x8)" in shapes and "not which way" in shapes
    (devices,) = mismatch_warnings([seed, tpu])
    assert "differ in devices (CPU vs TPU)" in devices
    sharded = make_run(matrices=3000, dim=100)
    sharded.config = dataclasses.replace(sharded.config, mode="sharded", replicas=2)
    (modes,) = mismatch_warnings([seed, sharded])
    assert "differ in modes (single vs sharded over 2)" in modes and "layout" in modes


def runs_at(times: list[str], factor: float, seconds: float = 20.0, spread: float = 0.003):
    """Runs of einsum ending at `times`, each `seconds` long, samples around 1 ms x factor."""
    runs = []
    for index, end in enumerate(times):
        run = make_run({"einsum": [0.001 * factor * (1 + spread * k) for k in range(8)]})
        run.created_at = end
        run.timings = {"total_s": seconds}
        run.run_id = f"{factor}-{index}"
        runs.append(run)
    return runs


def test_sides_alternated_in_one_window_carry_no_drift_term_and_sides_apart_do():
    base = runs_at([f"2026-12-01T10:00:{s:02d}+00:00" for s in (20, 40, 59)], 1.0)
    alternated = runs_at([f"2026-12-01T10:00:{s:02d}+00:00" for s in (30, 50)], 1.0)
    later = runs_at([f"2026-12-01T11:00:{s:02d}+00:00" for s in (20, 40, 59)], 1.0)
    together = compare_runs([base, alternated], floor=QUIET).iloc[1]
    apart = compare_runs([base, later], floor=QUIET).iloc[1]
    assert together["window_log_sd"] == 0.0
    assert apart["window_log_sd"] == pytest.approx(0.08 * math.sqrt(2))  # the default floor
    assert (
        apart["ratio_ci"][1] / apart["ratio_ci"][0]
        > 1.3
        > (together["ratio_ci"][1] / together["ratio_ci"][0])
    )


def test_a_drift_between_windows_is_not_called_a_difference():
    """The same code measured an hour apart on a host 12% slower by then: tight runs on each
    side, so the runs alone would call it slower; the drift term keeps it from a verdict."""
    before = runs_at([f"2026-12-01T10:0{m}:00+00:00" for m in range(4)], 1.0)
    after = runs_at([f"2026-12-01T11:0{m}:00+00:00" for m in range(4)], 1.12)
    row = compare_runs([before, after], floor=QUIET).iloc[1]
    assert row["verdict"] in ("inconclusive", "same")
    # Alternated in one window, the same 12% is a real difference and is called.
    mixed = runs_at([f"2026-12-01T10:0{m}:30+00:00" for m in range(4)], 1.12)
    assert compare_runs([before, mixed], floor=QUIET).iloc[1]["verdict"] == "slower"


def test_the_advice_says_when_runs_apart_in_time_can_never_see_the_gate():
    from engine.analysis.sensitivity import sensitivities

    # Samples spread widely: one run a side sees only a large slowdown.
    base = runs_at(["2026-12-01T10:00:20+00:00"], 1.0, spread=0.15)
    candidate = runs_at(["2026-12-01T10:00:40+00:00"], 1.0, spread=0.15)
    frame = compare_runs([base, candidate], floor=QUIET)
    (wide,) = sensitivities(frame, 20.0, percent=80)
    assert wide.runs_needed and wide.apart_too  # 1.8x: enough runs see it either way
    # The default floor (a fresh process moves a median about 8% in log sd) bounds the drift
    # between windows: 1.3x hides in it, however many runs each side has.
    (narrow,) = sensitivities(frame, 20.0, percent=30)
    assert narrow.runs_needed and not narrow.apart_too  # 1.3x: only alternated runs can


def test_no_slower_row_gives_an_empty_table_with_its_columns():
    frame = compare_runs(
        [make_run({"einsum": [0.001] * 8}), make_run({"einsum": [0.001] * 8})], floor=QUIET
    )
    found = confirmed_slowdowns(frame, 20)
    assert found.empty and list(found["variant"]) == []


def test_a_gate_a_busy_machine_hides_says_so_instead_of_a_number_of_runs():
    from engine.analysis.sensitivity import sensitivities, sensitivity_lines

    base = busy(make_run({"einsum": [0.001] * 12}), 0.25)
    candidate = busy(make_run({"einsum": [0.0011] * 12}), 0.25)
    frame = compare_runs([base, candidate], floor=QUIET)
    (item,) = sensitivities(frame, 10.0, percent=50)
    assert item.runs_needed is None and item.busy_share == pytest.approx(0.25)
    (line,) = sensitivity_lines(frame, 10.0, percent=50)[1:]
    assert "1.50x cannot be seen while other processes take 25% of the CPU" in line
    quiet = compare_runs(
        [make_run({"einsum": [0.001] * 12}), make_run({"einsum": [0.0011] * 12})], floor=QUIET
    )
    (calm,) = sensitivities(quiet, 10.0, percent=50)
    assert calm.busy_share is None  # quiet, the same 1.5x is a question of runs


def test_the_page_sentence_agrees_with_the_busy_note_about_more_runs():
    from engine.analysis.sensitivity import sensitivity_sentence

    base = busy(make_run({"einsum": [0.001] * 12}), 0.7)
    loud = compare_runs([base, busy(make_run({"einsum": [0.0011] * 12}), 0.7)], floor=QUIET)
    sentence = sensitivity_sentence(loud, 10.0)
    assert "not the allowance for a busy machine" in sentence
    assert "do not narrow it" in loud["note"].iloc[1]  # the busy note: the same story
    quiet = compare_runs(
        [make_run({"einsum": [0.001] * 12}), make_run({"einsum": [0.0011] * 12})], floor=QUIET
    )
    assert sensitivity_sentence(quiet, 10.0).endswith("more runs per side, alternated, narrow it.")

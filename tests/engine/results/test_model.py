import json

import pytest

from engine.measure.peak import Peak
from engine.results.codec import RESULT_FIELDS, result_to_dict
from engine.results.model import StrategyResult
from engine.results.parts import Environment
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig


def make_run() -> RunResult:
    ok = StrategyResult(
        strategy="einsum",
        variant="einsum",
        mode="single",
        status="ok",
        matrices=10,
        flops=200,
        bytes=400,
        samples_s=(0.002, 0.001, 0.003),
        calls_per_sample=5,
        first_call_s=0.5,
        transfer_s=0.01,
        dispatch_s=0.0001,
        max_rel_error=1e-7,
        correct=True,
    )
    failed = StrategyResult(
        strategy="numpy",
        variant="numpy",
        mode="single",
        status="failed",
        matrices=10,
        flops=200,
        bytes=400,
        error="MemoryError: boom",
        max_rel_error=float("inf"),
    )
    return RunResult(
        run_id="abc",
        created_at="2026-11-30T00:00:00+00:00",
        environment=Environment(device_kind="CPU"),
        config=BenchConfig(matrices=10, strategies=("einsum", "numpy"), label="<script>"),
        peak=Peak(bandwidth_bytes_per_s=1e9, method="test"),
        results=[ok, failed],
    )


def test_json_round_trip_keeps_everything():
    run = make_run()
    again = RunResult.from_json(run.to_json())
    assert again.to_dict() == run.to_dict()


def test_statistics_are_derived_from_samples_not_stored():
    data = make_run().to_dict()["results"][0]
    assert data["median_s"] == 0.002 and data["min_s"] == 0.001
    assert data["gbytes_per_s"] == pytest.approx(400 / 0.002 / 1e9)
    assert data["roofline_fraction"] == pytest.approx(400 / 0.002 / 1e9)
    assert data["matrices_per_s"] == pytest.approx(10 / 0.002)


def test_every_contract_field_present_even_for_failures():
    data = json.loads(make_run().to_json())
    assert data["schema_version"] == 1
    for entry in data["results"]:
        assert set(RESULT_FIELDS) <= set(entry)
    failed = data["results"][1]
    assert failed["median_s"] is None and failed["max_rel_error"] is None
    assert failed["correct"] is False and failed["error"] == "MemoryError: boom"


def test_json_is_strict_no_nan(tmp_path):
    path = tmp_path / "out.json"
    make_run().write_json(path)
    json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    assert not list(tmp_path.glob(".*.tmp"))


def test_rates_are_derived_in_one_place_from_samples_and_peak():
    ok = make_run().results[0]
    derived = ok.derived(2e9)
    assert derived["median_s"] == 0.002
    assert derived["roofline_fraction"] == pytest.approx(400 / 0.002 / 2e9)
    assert result_to_dict(ok, 2e9)["gbytes_per_s"] == derived["gbytes_per_s"]


def test_imported_rates_are_ignored_and_derived_again():
    data = make_run().to_dict()
    data["results"][0]["gbytes_per_s"] = 12345.0
    data["results"][0]["median_s"] = 99.0
    again = RunResult.from_dict(data).to_dict()["results"][0]
    assert again["median_s"] == 0.002
    assert again["gbytes_per_s"] == pytest.approx(400 / 0.002 / 1e9)


def test_unknown_fields_survive_a_round_trip():
    data = make_run().to_dict()
    data["from_the_future"] = {"x": 1}
    data["environment"]["new_fact"] = "yes"
    data["peak"]["probes"] = [
        {"kernel": "k", "when": "before", "bandwidth_bytes_per_s": 1e9, "method": "numpy"}
    ]
    again = RunResult.from_dict(data).to_dict()
    assert again["from_the_future"] == {"x": 1}
    assert again["environment"]["new_fact"] == "yes"
    assert again["peak"]["probes"][0]["method"] == "numpy"


def test_memory_estimate_is_its_own_field():
    from engine.measure.memory import MemoryEstimate

    run = make_run()
    run.memory = MemoryEstimate({"timed inputs": 4000}, 10**9, "available host RAM")
    data = run.to_dict()
    assert data["memory_estimate"]["total_bytes"] == 4000
    assert data["warnings"] == []
    assert RunResult.from_dict(data).memory == run.memory


def test_a_result_naming_an_unregistered_strategy_reads_back_as_a_name():
    from engine.results.reader import ResultsRejected
    from engine.run_settings.fields import ConfigError
    from tests.factories import make_run as make_stored_run

    data = make_stored_run({"einsum": [0.001] * 5, "numpy": [0.002] * 5}).to_dict()
    data["config"]["strategies"] = ["numpy", "my_kernel"]
    for entry in data["results"]:
        if entry["strategy"] == "einsum":
            entry["strategy"], entry["variant"] = "my_kernel", "my_kernel"
    run = RunResult.from_dict(data)
    assert run.config.strategies == ("numpy", "my_kernel")
    assert run.winner().variant == "my_kernel"
    assert RunResult.from_json(run.to_json()).to_dict() == run.to_dict()
    # Only stored results are read that way: a config typed by a user still names the field.
    with pytest.raises(ConfigError, match="unknown 'my_kernel'"):
        BenchConfig.from_raw({"strategies": "my_kernel"})
    data["config"]["strategies"] = ["numpy", "<script>"]
    with pytest.raises(ResultsRejected, match=r"config\.strategy"):
        RunResult.from_dict(data)


def test_tensorflow_is_one_of_the_frameworks_and_keeps_its_top_level_field():
    run = make_run()
    run.environment = Environment(
        device_kind="CPU",
        frameworks={
            "tensorflow": {"version": "2.21.0", "device": "/CPU:0"},
            "jax": {"version": "0.10.2"},
        },
    )
    data = run.to_dict()
    assert data["environment"]["tensorflow"] == "2.21.0"  # the first rounds' contract
    assert data["environment"]["frameworks"]["tensorflow"]["device"] == "/CPU:0"
    again = RunResult.from_dict(data)
    assert again.environment.tensorflow == "2.21.0"
    assert again.to_dict() == data
    assert "tensorflow" not in again.environment.extra


def test_a_file_from_before_names_tensorflow_at_the_top_only_and_still_reads():
    data = make_run().to_dict()
    data["environment"]["tensorflow"] = "2.16.1"
    data["environment"]["frameworks"] = {"jax": {"version": "0.4.30"}}
    old = RunResult.from_dict(data)
    assert old.environment.frameworks["tensorflow"] == {"version": "2.16.1"}
    assert old.environment.frameworks["jax"] == {"version": "0.4.30"}
    assert old.environment.tensorflow == "2.16.1"


def test_a_run_without_tensorflow_says_null_where_its_version_was():
    data = make_run().to_dict()
    assert data["environment"]["tensorflow"] is None
    assert RunResult.from_dict(data).environment.frameworks == {}

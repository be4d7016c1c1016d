import json

import numpy as np
import pytest

from engine.results.parse import MAX_FILE_BYTES, ImportRejected, parse_results, read_results_file
from tests.factories import make_run


def good_text() -> str:
    return make_run().to_json()


def test_a_valid_file_parses():
    run = parse_results(good_text())
    assert run.results[0].variant == "einsum"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(schema_version=2), "schema_version: 2 is not supported"),
        (lambda d: d.pop("schema_version"), "no schema_version"),
        (lambda d: d.pop("results"), "results: is required"),
        (lambda d: d["results"][0].pop("status"), "results[0].status: is required"),
        (lambda d: d["results"][0].update(status="great"), "results[0].status: must be one of"),
        (lambda d: d["results"][0].update(samples_s="fast"), "samples_s: must be a list"),
        (lambda d: d["results"][0].update(samples_s=[-1.0]), "samples_s[0]: must be a number"),
        (lambda d: d["results"][0].update(correct="yes"), "correct: must be true or false"),
        (lambda d: d.update(run_id=""), "run_id: must be 1 to 64"),
        (lambda d: d.update(config=[1]), "config: must be an object"),
        (lambda d: d["config"].update(dim="ten"), "config.dim: must be an integer"),
        (lambda d: d["results"][0].update(bytes=0), "results[0].bytes: must be an integer"),
        (lambda d: d["results"][0].update(calls_per_sample=0), "calls_per_sample: must be"),
        (lambda d: d["results"][0].update(strategy="bogus"), "results[0].variant: 'einsum'"),
        (lambda d: d["results"][0].update(notes="x"), "results[0].notes: must be a list"),
        (lambda d: d.update(warnings=[1]), "warnings[0]: must be text"),
        (lambda d: d.update(created_at=5), "created_at: must be text"),
        (lambda d: d.update(created_at="yesterday"), "created_at: must be an ISO 8601"),
        (lambda d: d["environment"].pop("device_kind"), "environment.device_kind: is required"),
    ],
)
def test_malformed_files_are_rejected_with_a_reason(mutate, message):
    data = json.loads(good_text())
    mutate(data)
    with pytest.raises(ImportRejected) as caught:
        parse_results(json.dumps(data))
    assert message in str(caught.value)


def test_non_finite_huge_and_deep_json_are_refused_in_one_line():
    text = good_text()
    for bad, fragment in (
        (text.replace('"bytes": 48000', '"bytes": NaN', 1), "NaN is not a number"),
        ('{"schema_version": 1, "run_id": ' + "9" * 5000 + "}", "not valid results JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ):
        with pytest.raises(ImportRejected, match=fragment) as refused:
            parse_results(bad)
        assert str(refused.value).count("not valid results JSON") <= 1  # said once


def test_truncated_file():
    with pytest.raises(ImportRejected, match="not valid JSON \\(truncated\\?\\)"):
        parse_results(good_text()[:-40])


def test_foreign_json():
    with pytest.raises(ImportRejected, match="no schema_version"):
        parse_results(json.dumps({"name": "some other tool"}))
    with pytest.raises(ImportRejected, match="top level must be an object"):
        parse_results("[1, 2]")


def test_oversized_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(ImportRejected, match="results files are at most 64 MiB"):
        read_results_file(big)


def test_missing_file(tmp_path):
    with pytest.raises(ImportRejected, match="cannot read"):
        read_results_file(tmp_path / "nope.json")


def test_a_file_of_many_samples_costs_memory_in_proportion_to_its_bytes_and_a_limit():
    """One result with 100,000 samples (2 MB) reads, and its verdict and JSON are made, in
    memory proportional to the file (20,000 took 1 GB and 28 s; 100,000 did not finish in
    two minutes); past 1,000,000 samples a result is refused in one line naming the field."""
    import tracemalloc

    from engine.results.reader import ResultsRejected
    from engine.results.run_result import RunResult
    from tests.factories import make_run

    rng = np.random.default_rng(0)
    run = make_run({"einsum": [0.002] * 4, "numpy": [0.003] * 4})
    data = json.loads(run.to_json())
    data["results"][0]["samples_s"] = (2e-3 * np.exp(rng.normal(0, 0.05, 100_000))).tolist()
    text = json.dumps(data)
    tracemalloc.start()
    try:
        read = RunResult.from_json(text)
        read.to_json()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert read.winner_dict()["variant"] == "einsum"
    assert peak < 40 * len(text)
    data["results"][0]["samples_s"] = [2e-3] * 1_000_001
    with pytest.raises(ResultsRejected, match=r"results\[0\]\.samples_s: must have at most"):
        RunResult.from_json(json.dumps(data))

import json

import pytest

from engine.validate import MAX_FILE_BYTES, ImportRejected, parse_results, read_results_file
from tests.factories import make_run


def good_text() -> str:
    return make_run().to_json()


def test_a_valid_file_parses():
    run = parse_results(good_text())
    assert run.results[0].variant == "einsum"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(schema_version=2), "schema_version 2 is not supported"),
        (lambda d: d.pop("schema_version"), "no schema_version"),
        (lambda d: d.pop("results"), "lacks required fields: results"),
        (lambda d: d["results"][0].pop("median_s"), "results[0] lacks required fields: median_s"),
        (lambda d: d["results"][0].update(status="great"), "results[0].status must be one of"),
        (lambda d: d["results"][0].update(samples_s="fast"), "samples_s must be a list"),
        (lambda d: d["results"][0].update(samples_s=[-1.0]), "non-negative numbers"),
        (lambda d: d["results"][0].update(correct="yes"), "correct must be true or false"),
        (lambda d: d.update(run_id=""), "run_id must be text"),
        (lambda d: d.update(config=[1]), "config must be an object"),
    ],
)
def test_malformed_files_are_rejected_with_a_reason(mutate, message):
    data = json.loads(good_text())
    mutate(data)
    with pytest.raises(ImportRejected) as caught:
        parse_results(json.dumps(data))
    assert message in str(caught.value)


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

"""A framework's process is sent its part of the run's plan as data (`peers/request.py`): it
reads back what was sent, and a request it cannot measure is refused naming the field, before
the framework is imported."""

from __future__ import annotations

import pytest

from engine.analysis.history_prior import Prior
from engine.execution.peers.process import spawn_peer
from engine.execution.peers.request import PeerRequest, RequestRefused
from engine.measure.uncertainty import NoiseFloor
from engine.run_settings.config import BenchConfig

# as a run sends it: a config read back from its dict (the columns spelled out)
CONFIG = BenchConfig.from_raw(
    BenchConfig(matrices=8, dim=4, strategies=("numpy",), repeats=3, warmup=0).to_dict()
)


def full_request() -> PeerRequest:
    prior = Prior("numpy", 12.5, "einsum", 2, "2026-12-04T10:00:00+00:00", 0.004)
    return PeerRequest(
        framework="numpy",
        config=CONFIG,
        variants=(("numpy", ""),),
        copies=2,
        threads=1,
        device_kind="GPU",
        ratio_log_sd=0.07,
        between_run_log_sd=0.11,
        probe_bytes=64 * 2**20,
        priors={"numpy": prior},
        elsewhere={"torch_bmm": (0.001, 0.0011)},
        prestart=True,
    )


def test_what_is_sent_is_what_the_process_reads():
    request = full_request()
    assert PeerRequest.from_dict(request.to_dict()) == request


def test_the_optional_fields_take_the_runs_defaults():
    raw = {
        "framework": "numpy",
        "config": CONFIG.to_dict(),
        "variants": [["numpy", ""]],
        "copies": 1,
        "threads": 2,
    }
    read = PeerRequest.from_dict(raw)
    assert read.device_kind == "CPU" and read.priors == {} and read.elsewhere == {}
    assert read.prestart is False
    assert read.probe_bytes == 256 * 2**20
    assert read.between_run_log_sd == NoiseFloor().between_run_log_sd


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"framework": ""}, "framework"),
        ({"config": {"matrices": -3}}, "config"),
        ({"variants": []}, "variants"),
        ({"variants": [["numpy"]]}, "variants[0]"),
        ({"copies": 0}, "copies"),
        ({"threads": True}, "threads"),
        ({"ratio_log_sd": "wide"}, "ratio_log_sd"),
        ({"between_run_log_sd": -0.1}, "between_run_log_sd"),
        ({"priors": {"numpy": {"ratio": 3.0}}}, "priors"),
        ({"priors": [1]}, "priors"),
        ({"elsewhere": {"numpy": ["slow"]}}, "elsewhere"),
        ({"prestart": "yes"}, "prestart"),
    ],
)
def test_a_bad_field_is_refused_by_name(change, field):
    raw = {**full_request().to_dict(), **change}
    with pytest.raises(RequestRefused) as refused:
        PeerRequest.from_dict(raw)
    assert str(refused.value).startswith(f"{field}: ")


def test_a_request_that_is_not_an_object_is_refused():
    with pytest.raises(RequestRefused) as refused:
        PeerRequest.from_dict(["numpy"])
    assert str(refused.value).startswith("request: ")


@pytest.mark.slow  # a real framework process
def test_the_process_says_which_field_it_refused_and_measures_nothing():
    raw = {**full_request().to_dict(), "copies": "many"}
    payload, problem = spawn_peer(raw, lambda event: None, timeout_s=120)
    assert problem == ""  # it ended as it should: with its reason, not a traceback
    assert payload == {"error": "request refused: copies: a whole number of at least 1, not 'many'"}

"""The same contract for every runtime that runs through the prepare -> sample -> check path
(TensorFlow, NumPy, JAX, PyTorch, CuPy), each in a process of its own: correct on random,
rectangular and degenerate shapes (B = 1, m = 1, n = 1) in every dtype it supports, a reason
for each dtype it refuses, errors classified, a bad build option refused as a ValueError, and
the inputs on its device bit for bit the engine's."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from engine.catalogue.catalog import framework_installed
from tests.conftest import ROOT

FAKE_CUPY = ROOT / "tests" / "fixtures" / "fake_cupy"


@pytest.fixture(scope="module", params=["tensorflow", "numpy", "jax", "torch", "cupy"])
def contract(request):
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    if request.param == "cupy" and not framework_installed("cupy"):
        # No GPU here: CuPy's runtime runs over a NumPy stand-in that says it is on a GPU.
        env["PYTHONPATH"] = os.pathsep.join([str(FAKE_CUPY), str(ROOT)])
    elif not framework_installed(request.param):
        pytest.skip(f"{request.param} is not installed here")
    done = subprocess.run(
        [sys.executable, "-m", "tests.engine.backends.runtime_probe", request.param],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_kernel_is_correct_on_every_shape_in_every_supported_dtype(contract):
    cases = contract["cases"]
    assert cases, contract
    wrong = [c for c in cases if not c["correct"]]
    assert not wrong, wrong[:3]
    shapes = {tuple(c["shape"]) for c in cases}
    assert {(1, 6, 6), (9, 1, 1), (4, 1, 5), (3, 8, 1), (1, 1, 1)} <= shapes
    assert "float32" in {c["dtype"] for c in cases}


def test_the_inputs_on_the_device_are_the_engines_bit_for_bit(contract):
    assert all(c["bits"] for c in contract["cases"])


def test_a_refused_dtype_says_why_and_a_bad_option_is_a_value_error(contract):
    assert all(isinstance(r, str) and r for r in contract["refused"].values())
    # A kernel that lacks a dtype the runtime has (np.einsum on bfloat16) is classified so.
    refusals = contract["kernel_refusals"]
    assert all(r["status"] == "unsupported" and r["dtype"] != "float32" for r in refusals)
    framework = contract["framework"]
    expected = {
        "tensorflow": "TensorFlow",
        "numpy": "NumPy",
        "jax": "JAX",
        "torch": "PyTorch",
        "cupy": "CuPy",
    }
    option = "no-such" if framework == "tensorflow" else "xla"
    assert contract["bad_option"].startswith(f"{expected[framework]} kernels have no '{option}'")


def test_device_memory_is_reported_where_the_framework_keeps_it(contract):
    memory = contract["memory"]
    if contract["device_kind"] == "CPU":
        assert memory is None  # the host keeps no device statistics
    else:
        assert memory["peak_bytes_in_use"] >= memory["bytes_in_use"] >= 0


def test_errors_are_classified_in_the_frameworks_words(contract):
    assert contract["classified"] == "unsupported"

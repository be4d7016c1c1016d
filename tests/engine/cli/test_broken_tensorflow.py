"""A TensorFlow that is installed but cannot be imported (it raises, exits or never finishes)
is treated as not installed, with the reason: the run measures every other framework, as it
does without TensorFlow."""

import json
import os

import pytest

from tests.cli import engine_process
from tests.conftest import ROOT


@pytest.mark.parametrize(
    ("fixture", "reason"),
    [
        ("raising_tensorflow", "RuntimeError: libtensorflow_framework.so.2: cannot open"),
        ("exiting_tensorflow", "SystemExit: 3"),
        ("hanging_tensorflow", "TensorFlow's import did not finish within 2 s"),
    ],
)
def test_a_tensorflow_that_fails_on_import_costs_only_its_own_strategies(fixture, reason, tmp_path):
    out = tmp_path / "run.json"
    broken = ROOT / "tests" / "fixtures" / fixture
    path = {
        "PYTHONPATH": os.pathsep.join([str(broken), str(ROOT)]),
        "MATVEC_TENSORFLOW_IMPORT_LIMIT_S": "2",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),  # this test's imports checked afresh
    }
    done = engine_process(
        *("run", "--matrices", "20", "--dim", "4", "--strategy", "numpy,einsum"),
        *("--repeats", "3", "--no-history", "--progress", "none", "--json", str(out)),
        env=path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = {r["variant"]: r for r in json.loads(out.read_text())["results"]}
    assert found["numpy"]["status"] == "ok" and found["numpy"]["correct"]
    assert found["einsum"]["status"] == "unsupported"
    assert reason in found["einsum"]["error"]
    devices = engine_process("devices", "--json", env=path, timeout=120)
    assert devices.returncode == 0, devices.stderr[-2000:]
    seen = json.loads(devices.stdout)
    assert seen["tensorflow"] is None and reason in seen["tensorflow_problem"]

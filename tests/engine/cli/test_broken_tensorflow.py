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


def test_sweep_and_calibrate_run_with_what_is_installed(tmp_path):
    """Without a usable TensorFlow a sweep stores a run per point, and calibration a floor
    from the frameworks that are here."""
    broken = ROOT / "tests" / "fixtures" / "raising_tensorflow"
    env = {
        "PYTHONPATH": os.pathsep.join([str(broken), str(ROOT)]),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "MATVEC_QUEUE_DIR": str(tmp_path / "queue"),
    }
    history = tmp_path / "h.sqlite3"
    quick = ("--repeats", "3", "--time-budget", "0.5", "--history", str(history))
    swept = engine_process(
        *("sweep", "--matrices", "20,40", "--dim", "4", "--strategy", "numpy,einsum"),
        *quick,
        *("--progress", "none"),
        env=env,
    )
    assert swept.returncode == 0, swept.stderr[-2000:]
    assert "2 points, ran 2" in swept.stdout and "fastest: numpy" in swept.stdout
    calibrated = engine_process(
        *("calibrate", "--matrices", "20", "--dim", "4", "--strategy", "numpy,numpy_einsum"),
        *("--runs", "3", *quick),
        env=env,
    )
    assert calibrated.returncode == 0, calibrated.stderr[-2000:]
    assert "between-run spread of log(median)" in calibrated.stdout
    assert "spread of within-run ratios" in calibrated.stdout
    assert "ceiling memory:" in calibrated.stdout and "over 3 runs" in calibrated.stdout

"""Sweeps: the grid, its validation, and a real sweep killed halfway then resumed."""

import json
import os
import signal
import subprocess
import sys

import pytest

from engine.config import ConfigError
from engine.history import History
from engine.sweep import SweepSpec, eta_s, point_key
from tests.conftest import ROOT

RAW = {"matrices": "10,100", "dim": "4,8,16", "strategies": ["einsum"], "repeats": 2}


def test_grid_has_every_point_and_a_stable_id():
    spec = SweepSpec.from_raw(RAW)
    keys = [point_key(p) for p in spec.points()]
    assert len(keys) == 6 == len(set(keys))
    assert "single:float32:100x16x16" in keys
    assert SweepSpec.from_raw(RAW).sweep_id == spec.sweep_id
    assert SweepSpec.from_raw({**RAW, "label": "other"}).sweep_id != spec.sweep_id


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"matrices": "10,abc"}, "matrices: must be an integer"),
        ({"dim": ""}, "dim: needs at least one value"),
        ({"dtype": "float32,int4"}, "dtype: must be one of"),
        ({"strategies": ["nope"]}, "strategy: unknown 'nope'"),
        ({"matrices": ",".join(str(i) for i in range(1, 5000))}, "at most 10,000"),
    ],
)
def test_bad_sweep_values(change, message):
    with pytest.raises(ConfigError, match=message):
        SweepSpec.from_raw({**RAW, **change})


def test_eta():
    assert eta_s(0.0, 0, 10) is None


def sweep_command(history_path, *extra):
    return [
        sys.executable,
        "-m",
        "engine",
        "sweep",
        "--matrices",
        "8,16,32,64,128,256",
        "--dim",
        "4",
        "--strategy",
        "python_loop",
        "--strategy",
        "einsum",
        "--repeats",
        "25",
        "--warmup",
        "0",
        "--history",
        str(history_path),
        *extra,
    ]


def test_a_killed_sweep_keeps_its_points_and_resumes(tmp_path):
    history_path = tmp_path / "h.sqlite3"
    worker = subprocess.Popen(
        sweep_command(history_path, "--progress", "jsonl"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
        start_new_session=True,
    )
    sweep_id = None
    for line in worker.stdout:
        event = json.loads(line)
        if event["event"] == "sweep":
            sweep_id = event["sweep_id"]
        if event["event"] == "sweep_point" and event["index"] == 3:
            break  # three points are stored
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()
    kept = History(history_path).done_points(sweep_id)
    assert 3 <= len(kept) < 6

    done = subprocess.run(
        sweep_command(history_path, "--progress", "none", "--json", str(tmp_path / "s.json")),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert done.returncode == 0, done.stderr
    assert f"ran {6 - len(kept)}, {len(kept)} already done" in done.stdout
    stored = History(history_path).list_runs()
    assert len(stored) == 6 and stored["sweep_id"].eq(sweep_id).all()
    payload = json.loads((tmp_path / "s.json").read_text())
    assert sorted(r["config"]["matrices"] for r in payload["runs"]) == [8, 16, 32, 64, 128, 256]


def test_import_command(tmp_path):
    from tests.factories import make_run

    good = tmp_path / "tpu.json"
    make_run(label="colab tpu", device_kind="TPU").write_json(good)
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "run_id": ')
    history_path = tmp_path / "h.sqlite3"

    def imports(*files):
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "engine",
                "import",
                *map(str, files),
                "--history",
                str(history_path),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )

    first = imports(good)
    assert first.returncode == 0 and "imported" in first.stdout
    second = imports(good, bad)
    assert second.returncode == 2
    assert "already stored" in second.stdout
    assert "not valid JSON (truncated?)" in second.stderr and "Traceback" not in second.stderr
    assert History(history_path).count() == 1

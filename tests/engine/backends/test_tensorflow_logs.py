"""TensorFlow's native start-up lines are filtered by the level asked for, once, and nothing
else written to stderr during the import is lost."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from engine.backends.tensorflow import loader
from engine.backends.tensorflow.loader import native_logs_filtered, shown_lines
from tests.conftest import ROOT

CAPTURED = (
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
    "I0000 00:00:1.0   17 port.cc:153] oneDNN custom operations are on.\n"
    "W0000 00:00:1.0   17 some.cc:1] a warning\n"
    "E0000 00:00:1.0   17 cuda_platform.cc:52] failed call to cuInit\n"
    "Traceback (most recent call last):\n"
    "I0000 is not a native line without its timestamp\n"
)


@pytest.mark.parametrize(
    ("level", "kept"),
    [
        (0, 6),  # everything, as TensorFlow prints it
        (1, 4),  # no preamble, no info
        (2, 3),  # errors and everything that is not a native log line
        (3, 2),
    ],
)
def test_native_lines_below_the_level_are_dropped_and_the_rest_kept(level, kept):
    lines = shown_lines(CAPTURED, level)
    assert len(lines) == kept
    assert "Traceback (most recent call last):\n" in lines
    assert "I0000 is not a native line without its timestamp\n" in lines


def test_the_filter_writes_back_what_it_keeps(capfd, monkeypatch):
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "2")
    monkeypatch.setattr(loader, "probe_kind", lambda: "GPU")
    with native_logs_filtered():
        os.write(2, CAPTURED.encode())
    err = capfd.readouterr().err
    assert "oneDNN" not in err and "a warning" not in err
    assert "failed call to cuInit" in err and "Traceback" in err


def test_without_a_gpu_cuda_failing_to_start_is_not_news(capfd, monkeypatch):
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "2")
    monkeypatch.setattr(loader, "probe_kind", lambda: "CPU")
    other_error = "E0000 00:00:1.0   17 some.cc:9] a real error\n"
    with native_logs_filtered():
        os.write(2, (CAPTURED + other_error).encode())
    err = capfd.readouterr().err
    assert "cuInit" not in err and "a real error" in err and "Traceback" in err


def test_devices_prints_no_native_info_lines_at_the_default_level():
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    done = subprocess.run(
        [sys.executable, "-m", "engine", "devices"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "failed call to cuInit" not in done.stderr  # no GPU here: CUDA's start is no news
    assert "device_kind" in done.stdout
    assert "absl::InitializeLog" not in done.stderr
    assert not [line for line in done.stderr.splitlines() if line.startswith("I0000")]

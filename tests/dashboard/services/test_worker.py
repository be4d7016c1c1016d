"""The worker process: a real run, a real refusal and a real sweep; the plumbing (a job's
directory, cancel, death, the queue) with a stand-in engine that speaks the same protocol."""

import gc
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from dashboard.services.job_status import JobStatus, apply_event, finish
from dashboard.services.worker import Job
from engine.cli.flags import cli_args
from engine.results.events import Phase, Queued, Sample, Started, VariantStarted, event_from_dict
from engine.run_settings.config import BenchConfig

TINY = {"matrices": 16, "dim": 4, "repeats": 2, "warmup": 0}
LONG = {"matrices": 3000, "dim": 100, "repeats": 1000, "time_budget_s": 600}


def wait(job: Job, timeout: float = 180, until=lambda s: s.finished) -> JobStatus:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = job.status()
        if until(status):
            return status
        time.sleep(0.1)
    job.cancel()
    pytest.fail(f"job did not reach the expected state: {job.status()}")


@pytest.fixture(autouse=True)
def private_queue(tmp_path, monkeypatch):
    monkeypatch.setenv("MATVEC_QUEUE_DIR", str(tmp_path / "queue"))


@pytest.fixture
def fake_python(tmp_path) -> str:
    """An executable that runs the stand-in engine (`fake_engine.py`) for `python -m engine`."""
    python = tmp_path / "fake-python"
    python.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -m tests.dashboard.services.fake_engine "$@"\n'
    )
    python.chmod(0o755)
    return str(python)


@pytest.fixture
def fake_job(fake_python):
    """`Job` with the stand-in engine as its worker."""

    def start(config: BenchConfig) -> Job:
        return Job("run", cli_args(config), python=fake_python, config=config)

    return start


@pytest.mark.slow  # a real engine process
def test_a_real_run_reports_progress_and_writes_results():
    job = Job.for_run(BenchConfig(**TINY, strategies=("einsum", "numpy")))
    status = wait(job)
    assert status.state == "done", status.message
    data = json.loads(Path(status.result_path).read_text())
    assert [r["variant"] for r in data["results"]] == ["einsum", "numpy"]
    kinds = {e.name for e in status.events}
    assert {"start", "variant_start", "sample", "variant_done", "result"} <= kinds
    assert status.variant_index == status.variant_count == 2


def test_a_finished_jobs_directory_goes_with_the_job(fake_job):
    job = fake_job(BenchConfig(**TINY, strategies=("numpy",)))
    status = wait(job)
    workdir = job.workdir
    assert Path(status.result_path).parent == workdir and workdir.is_dir()
    del job
    deadline = time.monotonic() + 10  # the follower thread lets go of it as it ends
    while workdir.exists() and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.05)
    assert not workdir.exists()


@pytest.mark.slow  # a real engine process
def test_a_preflight_refusal_is_a_message_not_a_traceback():
    job = Job.for_run(BenchConfig(matrices=100_000_000, dim=1000))
    status = wait(job, timeout=60)
    assert status.state == "refused"
    assert status.message.startswith("memory: this run needs an estimated")
    assert "Traceback" not in status.message


def test_cancel_ends_a_long_run_and_its_process_group(fake_job):
    job = fake_job(BenchConfig(**LONG, strategies=("python_loop",)))
    wait(job, until=lambda s: s.variant == "python_loop")
    job.cancel()
    status = wait(job, timeout=30)
    assert status.state == "cancelled"
    assert job.process.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.killpg(job.process.pid, 0)


def test_a_killed_worker_is_reported_as_died(fake_job):
    job = fake_job(BenchConfig(**LONG, strategies=("python_loop",)))
    wait(job, until=lambda s: s.state == "running")
    os.killpg(job.process.pid, signal.SIGKILL)
    status = wait(job, timeout=30)
    assert status.state == "died" and "SIGKILL" in status.message


def test_a_second_job_waits_in_the_queue_with_its_position(fake_job):
    first = fake_job(BenchConfig(**LONG, strategies=("python_loop",)))
    wait(first, until=lambda s: s.state == "running")
    second = fake_job(BenchConfig(**TINY))
    status = wait(second, until=lambda s: s.state == "queued")
    assert status.queue_position == 1
    time.sleep(1.0)
    assert second.status().state == "queued"  # never overlaps the running one
    first.cancel()
    assert wait(second).state == "done"


def test_events_fold_into_status():
    status = JobStatus()
    apply_event(status, Queued(2))
    assert (status.state, status.queue_position) == ("queued", 2)
    apply_event(status, Phase("inputs"))
    apply_event(status, Started(("a", "b")))
    apply_event(status, VariantStarted("a"))
    apply_event(status, Sample("a", 3, 5))
    assert (status.state, status.variant, status.sample, status.samples) == ("running", "a", 3, 5)
    assert status.variant_count == 2 and status.variant_index == 1


@pytest.mark.parametrize(
    ("code", "cancelled", "state"),
    [
        (0, False, "done"),
        (2, False, "refused"),
        (1, False, "failed"),
        (-9, False, "died"),
        (-15, True, "cancelled"),
    ],
)
def test_exit_codes_map_to_states(code, cancelled, state):
    status = JobStatus()
    finish(status, code, cancelled, ["noise", "error: dim: must be an integer"])
    assert status.state == state
    if state == "refused":
        assert status.message == "dim: must be an integer"


@pytest.mark.slow  # a real engine process
def test_a_sweep_job_reports_points_and_stores_them(tmp_path, monkeypatch):
    from engine.run_settings.sweep import SweepSpec
    from engine.storage.history import History

    monkeypatch.setenv("MATVEC_HISTORY", str(tmp_path / "h.sqlite3"))
    raw = {"matrices": "4,8", "dim": "3", "strategies": ["einsum"], "repeats": 2, "warmup": 0}
    job = Job.for_sweep(SweepSpec.from_raw(raw))
    status = wait(job)
    assert status.state == "done", status.message
    assert status.points_total == 2 and status.points_done == 2
    assert len(History(tmp_path / "h.sqlite3").sweep_runs(status.sweep_id)) == 2


def test_event_lines_parse_back_into_the_typed_events():
    for event in (Queued(2), Phase("check", "einsum"), Started(("a",)), Sample("a", 1, 2)):
        assert event_from_dict(json.loads(json.dumps(event.to_dict()))) == event
    assert event_from_dict({"event": "nonsense"}) is None
    assert event_from_dict({"event": "sample", "variant": "a"}) is None
    assert event_from_dict(["not", "a", "dict"]) is None


def test_samples_fold_in_as_they_come_until_the_variants_result_replaces_them():
    from engine.results.events import VariantResult

    status = JobStatus()
    apply_event(status, Started(("a", "b")))
    apply_event(status, Sample("a", 1, 3, 0.002))
    apply_event(status, Sample("a", 2, 3, 0.004))
    apply_event(status, Sample("b", 1, 3))  # from an older worker: no seconds, nothing drawn
    copy = status.snapshot()
    assert copy.running == {"a": [0.002, 0.004]} and copy.variants == ("a", "b")
    apply_event(status, VariantResult({"variant": "a", "status": "ok"}))
    apply_event(status, Sample("a", 3, 3, 0.003))  # late: the result is the record now
    assert status.running == {} and set(status.results) == {"a"}
    assert copy.running == {"a": [0.002, 0.004]}  # a snapshot is not changed by later events
    apply_event(status, VariantResult({"no": "variant"}))
    assert set(status.results) == {"a"}

"""Warm workers: `python -m engine serve` processes kept by a pool between runs. A repeated run
and a refusal go to real workers; the pool's plumbing (cancel, death, layouts, prewarm) to the
stand-in engine, which speaks the same protocol."""

import json
import os
import signal
import stat
import sys
import time
from pathlib import Path

import psutil
import pytest

from dashboard.services.first_look import FIRST_LOOK_NICENESS
from dashboard.services.worker import WORKER_ENDED, Job, WarmJob, WorkerPool, start_run
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig
from engine.storage.history import History
from tests.dashboard.services.test_worker import LONG, TINY, fake_python, wait

__all__ = ["fake_python"]  # a fixture of this module too


@pytest.fixture(autouse=True)
def private_queue(tmp_path, monkeypatch):
    monkeypatch.setenv("MATVEC_QUEUE_DIR", str(tmp_path / "queue"))
    monkeypatch.setenv("MATVEC_HISTORY", str(tmp_path / "history.sqlite3"))


@pytest.fixture
def pool():
    made = WorkerPool()
    yield made
    made.end_all()


@pytest.fixture
def fake_pool(fake_python):
    made = WorkerPool(python=fake_python)
    yield made
    made.end_all()


@pytest.mark.slow  # real engine processes
def test_a_repeated_run_goes_to_the_same_warm_worker_and_streams_its_results(pool):
    config = BenchConfig(**TINY, strategies=("einsum", "numpy"))
    first = wait(pool.run(config))
    assert first.state == "done", first.message
    job = pool.run(config)
    second = wait(job)
    assert second.state == "done", second.message
    assert (first.warm, second.warm) == (False, True)
    assert len(pool.workers) == 1 and job.worker is pool.workers[0]
    result = RunResult.from_dict(json.loads(Path(second.result_path).read_text()))
    assert result.sampling["worker"]["warm"] is True
    assert result.sampling["worker"]["inputs_reused"] is True
    assert set(second.results) == {"einsum", "numpy"}  # each came before the end
    assert second.variants == ("einsum", "numpy")


@pytest.mark.slow  # a real engine process
def test_a_prewarmed_worker_has_the_pages_inputs_ready_for_the_first_run(pool):
    """The worker a page starts is told the page's settings: the first run with them finds
    its inputs made (and still probes its peak and measures everything itself)."""
    config = BenchConfig(**TINY, strategies=("einsum", "numpy"))
    pool.prewarm(config)
    assert pool.workers[0].ready.wait(timeout=180)  # the page's user read it meanwhile
    job = pool.run(config)  # held: its files go with it
    assert job.first_look is None  # a ready worker: nothing to look at first
    status = wait(job)
    assert status.state == "done", status.message
    result = RunResult.from_dict(json.loads(Path(status.result_path).read_text()))
    assert result.sampling["worker"] == {"warm": False, "runs_before": 0, "inputs_reused": True}
    assert all(r.correct and r.samples_s for r in result.results)


@pytest.mark.slow  # a real engine process
def test_a_refused_run_leaves_the_worker_usable(pool):
    refused = wait(pool.run(BenchConfig(matrices=100_000_000, dim=1000)), timeout=120)
    assert refused.state == "refused"
    assert refused.message.startswith("memory: this run needs an estimated")
    done = wait(pool.run(BenchConfig(**TINY, strategies=("numpy",))))
    assert done.state == "done", done.message
    assert len(pool.workers) == 1


@pytest.fixture
def slow_start_pool(tmp_path):
    """A pool whose workers take 6 s more to start (as a loaded host's TensorFlow import may),
    its other engine processes none: what a first look has to fit in, made certain."""
    python = tmp_path / "slow-start-python"
    python.write_text(
        f'#!/bin/sh\ncase "$*" in *serve*) sleep 6;; esac\nexec "{sys.executable}" "$@"\n'
    )
    python.chmod(0o755)
    made = WorkerPool(python=str(python))
    yield made
    made.end_all()


@pytest.mark.slow  # real engine processes
def test_a_run_sent_while_its_worker_starts_shows_a_first_look_from_numpy_alone(slow_start_pool):
    """Clicked while the worker imports TensorFlow: NumPy's variant is looked at in a process
    of its own, which probes nothing and stores nothing; the run then measures every variant
    itself. A run sent to a worker that said it is ready gets no look."""
    pool = slow_start_pool
    config = BenchConfig(**TINY, strategies=("einsum", "numpy"))
    job = pool.run(config)
    assert job.first_look is not None and job.first_look.config.strategies == ("numpy",)
    look = wait(job.first_look)
    assert look.state == "done", look.message  # within the worker's start
    assert not job.worker.ready.is_set()
    assert set(look.results) == {"numpy"} and look.results["numpy"]["samples_s"]
    looked = RunResult.from_dict(json.loads(Path(look.result_path).read_text()))
    assert looked.peak.bandwidth_bytes_per_s is None  # `--no-ceiling`: a look probes nothing
    assert job.status().first_look is not None  # shown until the run has samples of its own
    status = wait(job)
    assert status.state == "done", status.message
    assert status.first_look is None  # the run's own results replaced it on the page
    result = RunResult.from_dict(json.loads(Path(status.result_path).read_text()))
    assert {r.variant for r in result.results} == {"einsum", "numpy"}
    assert all(r.correct and r.samples_s for r in result.results)
    assert len(History(Path(os.environ["MATVEC_HISTORY"])).list_runs()) == 1  # the run's only
    again = pool.run(config)
    assert job.worker.ready.is_set() and again.worker is job.worker
    assert again.first_look is None and wait(again).state == "done"


def test_a_first_look_ends_when_the_worker_is_ready_and_with_its_run(fake_pool, monkeypatch):
    """The worker's `ready` ends a look still going (the run would wait for it in the queue),
    and cancelling a run ends its look too."""
    monkeypatch.setenv("FAKE_ENGINE_READY_S", "1")
    job = fake_pool.run(BenchConfig(**LONG, strategies=("python_loop", "numpy")))
    assert job.first_look is not None
    assert wait(job.first_look, until=lambda s: s.running).state == "running"
    looking = psutil.Process(job.first_look.process.pid).environ()
    assert looking["MATVEC_NICENESS"] == str(FIRST_LOOK_NICENESS)  # below the worker's
    assert wait(job.first_look, timeout=30).state == "cancelled"  # at the worker's `ready`
    assert job.worker.ready.is_set() and job.first_look.process.poll() is not None
    wait(job, until=lambda s: s.variant == "python_loop")  # the run goes on at once
    job.cancel()
    assert wait(job, timeout=30).state == "cancelled"
    second = fake_pool.run(BenchConfig(**LONG, strategies=("python_loop", "numpy")))
    assert second.first_look is not None  # a new worker, not ready yet
    wait(second.first_look, until=lambda s: s.running)
    second.cancel()
    assert wait(second.first_look, timeout=30).state == "cancelled"
    assert wait(second, timeout=30).state == "cancelled"


def test_cancel_ends_the_worker_and_the_next_run_starts_a_new_one(fake_pool):
    pool = fake_pool
    job = pool.run(BenchConfig(**LONG, strategies=("python_loop",)))
    wait(job, until=lambda s: s.variant == "python_loop")
    job.cancel()
    assert wait(job, timeout=30).state == "cancelled"
    assert not job.worker.alive
    with pytest.raises(ProcessLookupError):
        os.killpg(job.worker.process.pid, 0)
    again = pool.run(BenchConfig(**TINY, strategies=("numpy",)))
    assert again.worker is not job.worker
    assert wait(again).state == "done"


def test_a_worker_killed_mid_run_is_reported_as_died(fake_pool):
    job = fake_pool.run(BenchConfig(**LONG, strategies=("python_loop",)))
    wait(job, until=lambda s: s.state == "running")
    os.killpg(job.worker.process.pid, signal.SIGKILL)
    status = wait(job, timeout=30)
    assert status.state == "died" and "SIGKILL" in status.message


def test_each_layout_gets_its_own_worker_and_a_stale_one_is_replaced(fake_pool):
    pool = fake_pool
    single = pool.run(BenchConfig(**TINY, strategies=("einsum",)))
    replicated = pool.run(
        BenchConfig(**TINY, strategies=("einsum",), mode="replicated", replicas=2)
    )
    assert single.worker is not replicated.worker
    assert wait(single).state == "done" and wait(replicated).state == "done"
    single.worker.last_used -= 10**6  # idle past its timeout: it may end under a request
    again = pool.run(BenchConfig(**TINY, strategies=("einsum",)))
    assert again.worker is not single.worker and not single.worker.alive
    assert replicated.worker.alive  # a CPU keeps the other layout's worker
    assert wait(again).state == "done"


def test_a_worker_that_ends_on_its_own_mid_request_fails_that_run_with_a_reason(tmp_path):
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import sys; sys.stdin.readline()'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    pool = WorkerPool(python=str(fake))
    status = wait(pool.run(BenchConfig(**TINY)), timeout=60)
    assert status.state == "failed" and status.message == WORKER_ENDED


def test_prewarm_starts_one_worker_per_layout_and_the_first_run_uses_it(fake_pool):
    pool = fake_pool
    config = BenchConfig(**TINY, strategies=("numpy",))
    pool.prewarm(config)
    pool.prewarm(config)
    assert len(pool.workers) == 1
    started = pool.workers[0]
    job = pool.run(config)
    assert job.worker is started and wait(job).state == "done"


def test_a_later_prewarm_starts_its_worker_after_the_delay_once_per_layout(fake_pool):
    pool = fake_pool
    config = BenchConfig(**TINY, strategies=("numpy",))
    pool.prewarm_later(config, delay_s=0.5)
    pool.prewarm_later(config, delay_s=0.5)  # the page's next rerun: no second timer
    assert pool.workers == []  # nothing competes with the page while it draws
    deadline = time.monotonic() + 30
    while not pool.workers and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.6)
    assert len(pool.workers) == 1
    pool.prewarm_later(config, delay_s=0.1)  # already warm: nothing scheduled
    time.sleep(0.3)
    assert len(pool.workers) == 1


def test_ending_the_pool_cancels_a_prewarm_not_started_yet(fake_pool):
    """A server that ends its workers never gets one more from a timer set before."""
    fake_pool.prewarm_later(BenchConfig(**TINY, strategies=("numpy",)), delay_s=0.3)
    fake_pool.end_all()
    time.sleep(0.6)
    assert fake_pool.workers == []


@pytest.mark.slow  # real engine processes
def test_repetitions_get_fresh_processes_and_single_runs_a_warm_worker(monkeypatch, pool):
    monkeypatch.setattr("dashboard.services.worker.POOL", pool)
    single = start_run(BenchConfig(**TINY, strategies=("numpy",)))
    group = start_run(BenchConfig(**TINY, strategies=("numpy",)), repetitions=2)
    assert isinstance(single, WarmJob) and isinstance(group, Job)
    peers_on_tpu = start_run(BenchConfig(**TINY, strategies=("jax_einsum",)), device_kind="TPU")
    assert isinstance(peers_on_tpu, Job)
    for job in (single, group, peers_on_tpu):
        job.cancel()


@pytest.mark.slow  # real engine processes
def test_on_an_accelerator_a_sweep_frees_the_device_first(monkeypatch, pool):
    from dashboard.services.worker import start_sweep
    from engine.run_settings.sweep import SweepSpec

    monkeypatch.setattr("dashboard.services.worker.POOL", pool)
    pool.prewarm(BenchConfig(**TINY), accelerator=True)
    (held,) = pool.workers
    spec = SweepSpec.from_raw({"matrices": "4", "dim": "3", "strategies": ["numpy"]})
    job = start_sweep(spec, device_kind="GPU")
    assert not held.alive and pool.workers == []
    job.cancel()


@pytest.mark.parametrize("raw", ["abc", "-5", "0", "inf", "", " "])
def test_a_bad_idle_timeout_setting_is_refused_naming_it(raw, monkeypatch):
    from dashboard.services.worker import idle_timeout_s
    from engine.run_settings.fields import ConfigError

    monkeypatch.setenv("MATVEC_WORKER_IDLE_S", raw)
    with pytest.raises(ConfigError, match="MATVEC_WORKER_IDLE_S"):
        idle_timeout_s()

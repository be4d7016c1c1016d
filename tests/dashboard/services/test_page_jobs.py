"""The server's page jobs: a reloaded page adopts its job; a job whose page has been gone for
the grace is cancelled once; one whose page is back in time is kept (the real path, with a
browser, is tests/e2e/test_dashboard.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dashboard.services.page_jobs import PageJobs, orphan_grace_s


@dataclass
class Status:
    finished: bool = False


class StandInJob:
    def __init__(self) -> None:
        self.cancels = 0
        self.done = False

    def status(self) -> Status:
        return Status(self.done)

    def cancel(self) -> None:
        self.cancels += 1


def test_a_reloaded_page_adopts_its_job_and_the_old_session_no_longer_owns_it():
    jobs, job = PageJobs(), StandInJob()
    token = jobs.own(job, "first")
    assert jobs.adopt(token, "second") is job
    active = {"second"}
    assert jobs.sweep(active.__contains__, grace_s=0.0, now=100.0) == []
    assert job.cancels == 0
    assert jobs.adopt("no-such-token", "third") is None


def test_a_job_whose_page_is_gone_for_the_grace_is_cancelled_once():
    jobs, job = PageJobs(), StandInJob()
    token = jobs.own(job, "gone")
    nobody = set().__contains__
    assert jobs.sweep(nobody, grace_s=30.0, now=0.0) == []  # first seen gone
    assert jobs.sweep(nobody, grace_s=30.0, now=29.0) == []
    assert jobs.sweep(nobody, grace_s=30.0, now=30.0) == [token]
    assert jobs.sweep(nobody, grace_s=30.0, now=60.0) == []
    assert job.cancels == 1 and jobs.adopt(token, "late") is None


def test_a_page_back_within_the_grace_keeps_its_job():
    jobs, job = PageJobs(), StandInJob()
    token = jobs.own(job, "tab")
    jobs.sweep(set().__contains__, grace_s=30.0, now=0.0)
    jobs.adopt(token, "reloaded")
    assert jobs.sweep({"reloaded"}.__contains__, grace_s=30.0, now=31.0) == []
    assert job.cancels == 0


def test_a_finished_job_nobody_collects_is_forgotten_not_cancelled():
    jobs, job = PageJobs(), StandInJob()
    token = jobs.own(job, "gone")
    job.done = True
    assert jobs.sweep(set().__contains__, grace_s=30.0, now=0.0) == []
    assert job.cancels == 0 and jobs.adopt(token, "x") is None


def test_the_grace_is_a_validated_setting(monkeypatch):
    from engine.run_settings.fields import ConfigError

    monkeypatch.delenv("MATVEC_ORPHAN_JOB_S", raising=False)
    assert orphan_grace_s() == 30.0
    monkeypatch.setenv("MATVEC_ORPHAN_JOB_S", "5")
    assert orphan_grace_s() == 5.0
    monkeypatch.setenv("MATVEC_ORPHAN_JOB_S", "soon")
    with pytest.raises(ConfigError, match="MATVEC_ORPHAN_JOB_S"):
        orphan_grace_s()

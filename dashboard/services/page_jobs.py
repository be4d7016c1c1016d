"""A run belongs to its page: the jobs the pages started, by a token kept in the page's URL.

A reload is a new Streamlit session: the page finds its job again by the token (`adopt`) and
goes on showing its progress, with no duplicate queued. A job whose page has gone (a closed
tab: its session disconnected, and no page adopted the job since) for longer than
`MATVEC_ORPHAN_JOB_S` seconds (default 30) is cancelled by a watchdog, releasing the worker
and the machine's queue turn. A CLI or API run never passes through here.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.machine.settings import seconds_from_environment

ORPHAN_VARIABLE = "MATVEC_ORPHAN_JOB_S"
DEFAULT_ORPHAN_S = 30.0
WATCH_EVERY_S = 1.0


def orphan_grace_s() -> float:
    """Seconds a job may outlive its page before it is cancelled."""
    return seconds_from_environment(ORPHAN_VARIABLE, DEFAULT_ORPHAN_S)


@dataclass
class PageJob:
    job: Any  # a Job or WarmJob: status(), cancel()
    owner: str  # the Streamlit session that shows it
    gone_since: float | None = None  # when its owner was first seen gone


class PageJobs:
    """The dashboard server's page jobs; `watch` starts the watchdog once."""

    def __init__(self) -> None:
        self._jobs: dict[str, PageJob] = {}
        self._lock = threading.Lock()
        self._watching = False

    def own(self, job: Any, owner: str) -> str:
        token = secrets.token_urlsafe(12)
        with self._lock:
            self._jobs[token] = PageJob(job, owner)
        return token

    def adopt(self, token: str, owner: str) -> Any | None:
        """The job under `token`, now shown by `owner` (a reloaded page); None if none."""
        with self._lock:
            entry = self._jobs.get(token)
            if entry is None:
                return None
            entry.owner, entry.gone_since = owner, None
            return entry.job

    def drop(self, token: str | None) -> None:
        with self._lock:
            self._jobs.pop(token or "", None)

    def sweep(self, is_active: Callable[[str], bool], grace_s: float, now: float) -> list[str]:
        """Cancel and forget each job whose owner has been gone for `grace_s`; finished jobs
        nobody collects are forgotten. Returns the tokens of the jobs cancelled."""
        cancelled = []
        with self._lock:
            for token, entry in list(self._jobs.items()):
                if entry.job.status().finished and not is_active(entry.owner):
                    del self._jobs[token]
                    continue
                if is_active(entry.owner):
                    entry.gone_since = None
                    continue
                if entry.gone_since is None:
                    entry.gone_since = now
                if now - entry.gone_since >= grace_s:
                    del self._jobs[token]
                    cancelled.append((token, entry.job))
        for _, job in cancelled:
            job.cancel()
        return [token for token, _ in cancelled]

    def watch(self, is_active: Callable[[str], bool]) -> None:
        """Start the watchdog (once per server)."""
        with self._lock:
            if self._watching:
                return
            self._watching = True
        grace_s = orphan_grace_s()

        def loop() -> None:
            while True:
                time.sleep(WATCH_EVERY_S)
                self.sweep(is_active, grace_s, time.monotonic())

        threading.Thread(target=loop, name="page-jobs-watchdog", daemon=True).start()


PAGE_JOBS = PageJobs()

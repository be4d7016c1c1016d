"""Each page test starts from a pool with no warm worker: a worker (or a prewarm timer) left
by a test that set its own environment (a broken history, say) would serve the next test's
runs with that environment."""

from __future__ import annotations

import pytest

from dashboard.services.worker import POOL


@pytest.fixture(autouse=True)
def no_warm_workers_between_tests():
    yield
    POOL.end_all()

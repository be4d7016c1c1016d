"""The engine processes the dashboard starts end when it ends, even killed: they are started
from a script thread, which gives them no parent-death signal (tests/engine/cli/test_serve.py
holds a worker so marked to ending once its parent has)."""

from __future__ import annotations

import pytest

from dashboard.components import devices
from dashboard.services import jobs
from engine.process.parent_watch import END_WITH_PARENT


class Started(Exception):
    """Raised by a fake Child: what the real one would have been started with."""


def fake_child(command, **options):
    raise Started(options["env"])


@pytest.mark.parametrize("start", [lambda: jobs.spawn_engine(["run"], stdin=-1), devices._probe])
def test_the_worker_and_the_device_probe_are_marked_to_end_with_the_page(monkeypatch, start):
    monkeypatch.setattr(jobs, "Child", fake_child)
    monkeypatch.setattr(devices, "Child", fake_child)
    with pytest.raises(Started) as started:
        start()
    assert started.value.args[0][END_WITH_PARENT] == "1"

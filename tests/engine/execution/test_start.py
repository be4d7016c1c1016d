"""The one start of a run (`run/start.py`): the run framework only for runs that need it and
only where it is usable, said as a phase; the host's process otherwise."""

from __future__ import annotations

from engine.execution.run import start
from engine.results.events import Phase


def test_a_run_without_the_run_frameworks_strategies_starts_the_host_and_says_nothing():
    said: list = []
    begun = start.start_run(("numpy",), "CPU", said.append)
    assert type(begun.own).__name__ == "HostProcess" and begun.start_s >= 0
    assert said == []


def test_the_run_framework_starts_for_its_strategies_and_says_so(monkeypatch):
    made: list = []
    monkeypatch.setattr(start, "run_framework_problem", lambda: None)
    monkeypatch.setattr(start, "own_process", lambda *args: made.append(args) or "own")
    said: list = []
    begun = start.start_run(("einsum", "numpy"), "CPU", said.append, replicas=2)
    assert begun.own == "own" and made == [(None, None, None, 2, ("einsum", "numpy"))]
    assert [e.phase for e in said if isinstance(e, Phase)] == ["starting TensorFlow"]


def test_an_unusable_run_framework_is_not_started_and_not_announced(monkeypatch):
    monkeypatch.setattr(start, "run_framework_problem", lambda: "TensorFlow is not installed")
    monkeypatch.setattr(start, "own_process", lambda *args: "host")
    said: list = []
    assert start.start_run(("einsum",), "CPU", said.append).own == "host"
    assert said == []

"""Where this machine has no history of a problem's kind, a team store's machines of its kind
predict it, said as theirs: the same processor on a CPU; never another processor's runs, nor a
report a file made (`execution/plan/history_reads.py`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from engine.execution.plan.history_reads import history_prediction
from engine.machine.host import cpu_model
from engine.measure.uncertainty import NoiseFloor
from engine.run_settings.config import BenchConfig
from engine.storage.history import REPORTED, History
from tests.factories import make_run

CONFIG = BenchConfig(matrices=1000, dim=32, strategies=("numpy", "numpy_einsum"))
FLOOR = NoiseFloor()


def stored_on(store: History, hostname: str, model: str, count: int = 3, source: str = "local"):
    rng = np.random.default_rng(len(hostname))
    for _ in range(count):
        samples = {
            "numpy": list(2e-4 * np.exp(rng.normal(0, 0.02, 8))),
            "numpy_einsum": list(5e-4 * np.exp(rng.normal(0, 0.02, 8))),
        }
        run = make_run(samples, matrices=1000, dim=32)
        run.environment = dataclasses.replace(run.environment, hostname=hostname, cpu_model=model)
        run.measured_here = True  # as the machine that measured it stored it
        store.add_run(run, source=source)


def test_a_machine_without_history_is_predicted_from_its_kind_and_says_whose(tmp_path):
    store = History(tmp_path / "team.sqlite3")
    stored_on(store, "box-a", cpu_model())
    stored_on(store, "box-b", cpu_model())
    found = history_prediction(store, CONFIG, "CPU", FLOOR)
    assert found is not None and found["winner"] == "numpy"
    assert found["whose"] == "the history of 2 other machines of this kind"


def test_another_processor_or_a_report_predicts_nothing_here(tmp_path):
    store = History(tmp_path / "team.sqlite3")
    stored_on(store, "box-c", "Another Processor 9000")
    stored_on(store, "box-d", cpu_model(), source=REPORTED)
    found = history_prediction(store, CONFIG, "CPU", FLOOR)
    assert found is not None and "winner" not in found
    assert "no run of this kind" in found["none"]

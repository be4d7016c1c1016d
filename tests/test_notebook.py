"""The seed problem as a notebook, executed headless on the CPU like a user would run it; and
the notebook helpers building the dashboard's figures without Streamlit."""

from __future__ import annotations

import json
import os
import re

import pytest

from engine import notebook
from engine.results.run_result import RunResult
from tests.conftest import ROOT
from tests.factories import make_run

NOTEBOOK = ROOT / "examples" / "seed_problem.ipynb"


def test_show_builds_the_dashboards_figures_without_streamlit():
    from dashboard.run_view import build

    run = make_run({"einsum": [0.002] * 4, "numpy": [0.003] * 4, "jax_vmap": [0.0021] * 4})
    view = build(run)
    charts = {"latency", "throughput", "ceilings", "speedup", "first_call", "dispatch", "replicas"}
    assert set(view.figures) == charts
    assert all(type(f).__name__ == "Figure" for f in view.figures.values())
    assert "einsum" in view.answer and view.code.startswith("@tf.function")
    assert list(view.table["strategy"]) == ["einsum", "numpy", "jax_vmap"]
    assert "<h1>" in notebook.report_html(run)


def test_show_has_an_answer_when_nothing_was_correct():
    from dashboard.run_view import build

    run = make_run({"einsum": [0.002] * 4})
    run.results[0].correct = False
    view = build(run)
    assert "No strategy produced a correct result" in view.answer and view.code is None
    assert any("einsum" in line for line in view.failures)


@pytest.mark.slow
def test_the_seed_notebook_executes_headless(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    for name, value in {
        "MATVEC_NOTEBOOK_MATRICES": "48",
        "MATVEC_NOTEBOOK_DIM": "8",
        "MATVEC_NOTEBOOK_REPEATS": "3",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "PLOTLY_RENDERER": "json",  # no browser to open in CI
    }.items():
        monkeypatch.setenv(name, value)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute()  # raises CellExecutionError naming the cell if any cell fails
    saved = RunResult.from_json((tmp_path / "matvec-run.json").read_text())
    assert saved.config.matrices == 48 and len(saved.results) >= 9
    assert any(r.correct for r in saved.results)
    sharded = json.loads((tmp_path / "matvec-run-sharded.json").read_text())
    assert sharded["config"]["mode"] == "sharded" and sharded["config"]["replicas"] == 2
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    text = " ".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "PerReplica" in text
    assert re.search(r"replica 1: ran on \S+:1,", text), text  # as the engine names it
    assert "IProgress not found" not in text  # the notebook extra brings ipywidgets


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: notebook.run("batched_matvec"), "config: pass a BenchConfig"),
        (lambda: notebook.show(None), "result: notebook.show takes the RunResult"),
        (lambda: notebook.save(5, "run.json"), "result: notebook.save takes the RunResult"),
        (lambda: notebook.report_html({}), "result: notebook.report_html takes"),
    ],
)
def test_wrong_arguments_say_what_to_pass(call, fragment):
    with pytest.raises(TypeError, match=fragment):
        call()


def test_save_needs_a_file_name(tmp_path):
    from engine.run_settings.fields import ConfigError

    run = make_run()
    for bad in ("", "   ", tmp_path):
        with pytest.raises(ConfigError, match=r"^path: "):
            notebook.save(run, bad)
    saved = notebook.save(run, tmp_path / "run.json")
    assert RunResult.from_json(saved.read_text()).run_id == run.run_id

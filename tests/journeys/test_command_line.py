"""Journeys through the command line and the notebook: the console command typed from another
folder, in each documented environment, to the lines a user reads."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.journeys.conftest import EVERY_ENVIRONMENT, Environment, environments

pytestmark = pytest.mark.journey

# What a run that names no strategy measures in each environment (docs/cli.md).
DEFAULT_STRATEGIES = {
    "full": ["batched_matvec"],
    "no-tensorflow": ["numpy", "numpy_einsum", "jax_vmap", "torch_bmm"],
    "numpy-only": ["numpy", "numpy_einsum"],
}
SMALL = ("--matrices", "200", "--dim", "16", "--repeats", "5", "--time-budget", "2")


def typed(environment: Environment, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The console command with `args`, from `cwd`, as a terminal runs it."""
    return subprocess.run(
        environment.command(*args), cwd=cwd, capture_output=True, text=True, timeout=600
    )


def elsewhere(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.mark.journey("matvec-profiler run (no --strategy)")
@pytest.mark.parametrize("environment", EVERY_ENVIRONMENT, indirect=True)
def test_run_with_no_strategy_measures_what_is_installed_and_answers(environment, tmp_path):
    here = elsewhere(tmp_path)
    history = str(tmp_path / "history.sqlite3")
    done = typed(environment, "run", *SMALL, "--history", history, "--json", "run.json", cwd=here)
    assert done.returncode == 0, f"{environment.name}: {done.stderr[-3000:]}"
    data = json.loads((here / "run.json").read_text())
    measured = [r["variant"] for r in data["results"]]
    assert sorted(measured) == sorted(DEFAULT_STRATEGIES[environment.name])
    assert all(r["status"] == "ok" and r["correct"] for r in data["results"]), data["results"]
    answer = re.search(r"^(fastest|tied): (\S+?)[ ,]", done.stdout, flags=re.M)
    assert answer and answer.group(2) in measured, done.stdout
    # the ceiling every fraction is placed against says which reading it is
    assert re.search(r"peak read bandwidth [\d.]+ GB/s.*read by this run's own probes", done.stdout)
    said = "note: no --strategy given and TensorFlow is not installed here"
    assert (said in done.stderr) != environment.has_tensorflow, done.stderr


@pytest.mark.journey("matvec-profiler sweep (no --strategy)")
@pytest.mark.parametrize("environment", environments("no-tensorflow", "numpy-only"), indirect=True)
def test_sweep_with_no_strategy_runs_every_point(environment, tmp_path):
    history = str(tmp_path / "history.sqlite3")
    grid = ("--matrices", "50,100", "--dim", "8", "--repeats", "3", "--time-budget", "1")
    done = typed(environment, "sweep", *grid, "--history", history, cwd=elsewhere(tmp_path))
    assert done.returncode == 0, f"{environment.name}: {done.stderr[-3000:]}"
    assert re.search(r"sweep \S+: 2 points, ran 2", done.stdout), done.stdout


@pytest.mark.journey("matvec-profiler devices, history, compare, import, history publish")
@pytest.mark.parametrize("environment", environments("numpy-only"), indirect=True)
def test_devices_history_compare_import_and_publish(environment, tmp_path):
    """The read-only doors after two runs: what the machine shows, the history, a
    comparison of the two files, an import, and a published site a web server can read."""
    here = elsewhere(tmp_path)
    history = ("--history", str(tmp_path / "history.sqlite3"))
    devices = typed(environment, "devices", cwd=here)
    assert devices.returncode == 0, devices.stderr
    assert re.search(r"device_kind: (CPU|GPU|TPU)", devices.stdout), devices.stdout
    assert "tensorflow: none" in devices.stdout
    for name in ("a.json", "b.json"):
        done = typed(
            environment, "run", *SMALL, "--strategy", "numpy", *history, "--json", name, cwd=here
        )
        assert done.returncode == 0, done.stderr[-3000:]
    listed = typed(environment, "history", *history, cwd=here)
    assert listed.returncode == 0 and listed.stdout.count("numpy") >= 2, listed.stdout
    compared = typed(environment, "compare", "a.json", "b.json", cwd=here)
    assert compared.returncode == 0, compared.stderr
    assert re.search(r"numpy .*(same|faster|slower|inconclusive)", compared.stdout), compared.stdout
    other = ("--history", str(tmp_path / "other.sqlite3"))
    imported = typed(environment, "import", "a.json", *other, cwd=here)
    assert imported.returncode == 0, imported.stderr
    site = here / "site"
    published = typed(environment, "history", "publish", str(site), *history, cwd=here)
    assert published.returncode == 0, published.stderr
    index = site / "index.html"
    assert "numpy" in index.read_text()
    mask = os.umask(0o022)
    os.umask(mask)
    for page in site.iterdir():  # the umask's modes, so a web server of another user serves it
        assert stat.S_IMODE(page.stat().st_mode) == 0o666 & ~mask, page


NOTEBOOK = ROOT / "examples" / "seed_problem.ipynb"
EXECUTE = """
import sys, nbclient, nbformat
notebook = nbformat.read(sys.argv[1], as_version=4)
nbclient.NotebookClient(
    notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}
).execute()
outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
print("".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream"))
"""


@pytest.mark.journey("the notebook API: examples/seed_problem.ipynb in a kernel")
@pytest.mark.parametrize("environment", environments("no-tensorflow"), indirect=True)
def test_the_seed_notebook_runs_what_is_here_and_says_what_it_skipped(environment, tmp_path):
    """Colab's TPU runtime or a GPU box: JAX, PyTorch and NumPy, no TensorFlow; the example
    notebook run in a kernel of that environment (the full one is tests/test_notebook.py)."""
    small = {"MATVEC_NOTEBOOK_MATRICES": "48", "MATVEC_NOTEBOOK_DIM": "8"}
    env = {**os.environ, **small, "MATVEC_NOTEBOOK_REPEATS": "3", "PLOTLY_RENDERER": "json"}
    env.pop("PYTHONPATH", None)  # the installed package, not this checkout
    done = subprocess.run(
        [environment.python, "-c", EXECUTE, str(NOTEBOOK), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "frameworks found: NumPy, JAX, PyTorch" in done.stdout, done.stdout
    assert "skipped: a sharded run distributes with tf.distribute" in done.stdout
    saved = json.loads((tmp_path / "matvec-run.json").read_text())
    frameworks = {r["framework"] for r in saved["results"] if r["status"] == "ok" and r["correct"]}
    assert {"numpy", "jax", "torch"} <= frameworks, saved["results"]

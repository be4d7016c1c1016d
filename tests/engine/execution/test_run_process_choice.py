"""Which process runs a run: TensorFlow's only when one of the run's strategies is TensorFlow's;
a NumPy, JAX or PyTorch run on a machine with TensorFlow never pays its import."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.backends.tensorflow.availability import tensorflow_problem
from engine.execution.run.host_process import HostProcess
from engine.execution.run.own_process import needs_run_framework, own_process
from tests.conftest import ROOT


def test_only_a_strategy_of_the_run_framework_needs_its_process():
    assert needs_run_framework(["numpy", "einsum"]) and needs_run_framework(["batched_matvec+xla"])
    assert not needs_run_framework(["numpy", "jax_einsum", "torch_bmm", "numpy_einsum+1thread"])
    assert not needs_run_framework([]) and not needs_run_framework(["not_registered"])


def test_a_run_without_a_tensorflow_strategy_gets_the_hosts_process():
    host = own_process(strategies=("numpy", "jax_einsum"))
    assert isinstance(host, HostProcess) and not host.framework_here
    assert host.absent == "tensorflow"  # its variants would run nowhere: none was asked for


@pytest.mark.skipif(tensorflow_problem() is not None, reason="needs a usable TensorFlow")
def test_a_warm_worker_keeps_tensorflows_process_for_any_run():
    from engine.execution.run.own_process import warm_state

    assert own_process(state=warm_state(), strategies=("numpy",)).framework_here


@pytest.mark.skipif(tensorflow_problem() is not None, reason="needs a usable TensorFlow")
def test_a_run_with_a_tensorflow_strategy_gets_tensorflows_process():
    assert own_process(strategies=("numpy", "einsum")).framework_here


PROBE = """
import json, sys
from engine import notebook
small = dict(matrices=40, dim=6, repeats=3, warmup=1, progress=False)
found = []
for strategies in (["numpy"], ["einsum"], ["numpy"]):
    result = notebook.run(strategies=strategies, **small)
    (entry,) = result.results
    found.append({"tensorflow_imported": "tensorflow" in sys.modules, "status": entry.status,
                  "correct": entry.correct, "recorded": result.environment.tensorflow})
print(json.dumps(found))
"""


@pytest.mark.skipif(tensorflow_problem() is not None, reason="needs a usable TensorFlow")
def test_a_numpy_run_measures_without_importing_tensorflow_until_one_needs_it():
    """In a fresh interpreter, as a notebook or the CLI starts: the NumPy run is correct and
    TensorFlow never loaded (its import is most of a small run's time where it is installed);
    once a TensorFlow run started it, a NumPy run keeps its process (warm inputs, probes)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    first, tensorflow, again = json.loads(done.stdout.strip().splitlines()[-1])
    assert first == dict(tensorflow_imported=False, status="ok", correct=True, recorded=None)
    for later in (tensorflow, again):
        assert later["tensorflow_imported"] and later["status"] == "ok" and later["correct"]
        assert later["recorded"]  # the version of the TensorFlow whose process measured it

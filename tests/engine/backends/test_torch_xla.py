"""PyTorch/XLA as a framework folder: lazy tensors, each call its own step, the device waited
for at the end of a timed block.

Its release must match its PyTorch's (2.9), so it does not share the dev environment (2.13):
the runtime's contract is tested here with a stand-in `torch_xla` over the CPU, and a real
run is made in an environment of its own when `MATVEC_TORCH_XLA_PYTHON` names its interpreter
(requirements-torch-xla.txt says how to make it); without it that test is skipped.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from engine.catalogue.catalog import code_to_copy, strategy_info
from engine.execution.replicas.host import why_not
from tests.conftest import ROOT

FAKE = ROOT / "tests" / "fixtures" / "fake_torch_xla"
RUNTIME = "engine.backends.torch_xla.runtime"
REAL_PYTHON = os.environ.get("MATVEC_TORCH_XLA_PYTHON", "")


@pytest.fixture
def fake_xla(monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.syspath_prepend(str(FAKE))
    before = {n: m for n, m in sys.modules.items() if n.startswith(("torch_xla", RUNTIME))}
    for name in before:
        del sys.modules[name]
    fake = importlib.import_module("torch_xla")
    fake.STEPS.clear()
    try:
        yield fake, importlib.import_module(RUNTIME)
    finally:
        for name in [n for n in sys.modules if n.startswith(("torch_xla", RUNTIME))]:
            del sys.modules[name]
        sys.modules.update(before)


def inputs(batch: int = 6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal((batch, 3, 4), np.float32), rng.standard_normal(
        (batch, 4), np.float32
    )


def test_every_timed_call_is_its_own_step_and_a_block_waits_for_the_device(fake_xla):
    fake, runtime_module = fake_xla
    from engine.backends.torch_xla.kernels import torch_xla_bmm

    runtime = runtime_module.make_runtime("float32", 1)
    placed = runtime.put(inputs())
    assert fake.STEPS == ["step", "wait"]  # the inputs are on the device before any timing
    fake.STEPS.clear()
    call = runtime.build(torch_xla_bmm, "")
    outputs = [call(*placed) for _ in range(3)]
    # A block synced once would run the last call alone: each call launched its own step.
    assert fake.STEPS == ["step", "step", "step"]
    runtime.sync(outputs[-1])
    assert fake.STEPS[-2:] == ["step", "wait"]
    A, x = inputs()
    np.testing.assert_allclose(
        runtime.to_host(outputs[0]), np.einsum("bij,bj->bi", A, x), rtol=1e-5
    )


def test_the_device_and_its_memory_are_pjrts(fake_xla, monkeypatch):
    _, runtime_module = fake_xla
    fake_runtime = importlib.import_module("torch_xla.runtime")
    cpu = runtime_module.make_runtime("float32", 1)
    assert cpu.device_kind == "CPU" and cpu.memory_stats() is None
    monkeypatch.setitem(fake_runtime.DEVICE, "type", "TPU")
    tpu = runtime_module.make_runtime("bfloat16", 1)
    assert tpu.device_kind == "TPU"
    assert tpu.memory_stats() == {"bytes_in_use": 1024, "peak_bytes_in_use": 4096}
    assert tpu.environment()["pjrt_device"] == "TPU"
    with pytest.raises(ValueError, match="no 'xla' variant"):
        tpu.build(lambda A, x: A, "xla")


def test_its_folder_declares_a_process_of_its_own_and_mode_single():
    info = strategy_info("torch_xla_bmm")
    assert info.in_own_process and info.process == "torch_xla"
    assert not info.distributable
    assert why_not("torch_xla_bmm") == (
        "PyTorch/XLA runs in mode single only: its replicas are not built"
    )
    assert "torch_xla.sync()" in code_to_copy("torch_xla_bmm")
    assert "torch.bmm" in code_to_copy("torch_xla_bmm")


@pytest.mark.skipif(not REAL_PYTHON, reason="MATVEC_TORCH_XLA_PYTHON names no PyTorch/XLA venv")
def test_a_real_run_with_pytorch_xla_and_jax_at_once(tmp_path):
    """Colab's TPU runtime: JAX and PyTorch/XLA and NumPy, no TensorFlow, in one run."""
    out = tmp_path / "run.json"
    done = subprocess.run(
        [
            REAL_PYTHON,
            "-m",
            "engine",
            "run",
            "--matrices",
            "64",
            "--dim",
            "8",
            "--strategy",
            "torch_xla_bmm,torch_xla_einsum,jax_vmap,numpy",
            "--no-history",
            "--progress",
            "none",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        env={**os.environ, "PJRT_DEVICE": os.environ.get("PJRT_DEVICE", "CPU")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(out.read_text())
    results = {r["strategy"]: r for r in record["results"]}
    for name in ("torch_xla_bmm", "torch_xla_einsum", "jax_vmap", "numpy"):
        assert results[name]["status"] == "ok", (name, results[name].get("error"))
        assert results[name]["correct"] is True
    xla = record["environment"]["frameworks"]["torch_xla"]
    assert xla["device"].startswith("xla") and xla["pjrt_device"] == "CPU"
    assert record["environment"]["tensorflow"] is None

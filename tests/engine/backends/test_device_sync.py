"""A GPU kernel is timed whole, whichever stream it ran on: the PyTorch and CuPy runtimes end
every timed block with a sync of the whole device (every stream), never of the current stream
alone. No GPU here, so the device is faked: CUDA said available, its sync calls recorded."""

from __future__ import annotations

import importlib
import sys

import pytest

from tests.conftest import ROOT

FAKE_CUPY = ROOT / "tests" / "fixtures" / "fake_cupy"
CUPY_RUNTIME = "engine.backends.cupy"


def test_pytorch_on_a_gpu_syncs_the_whole_device(monkeypatch):
    torch = pytest.importorskip("torch")
    from engine.backends.torch.runtime import TorchRuntime

    synced, streams = [], []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: synced.append(device))
    monkeypatch.setattr(torch.cuda, "current_stream", lambda *a, **k: streams.append(a))
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)
    runtime = TorchRuntime("float32", 1)
    runtime.sync(object())  # an output made on a side stream: nothing of it is asked
    assert synced == [torch.device("cuda:0")] and streams == []


def cupy_modules() -> dict[str, object]:
    return {n: m for n, m in sys.modules.items() if n == "cupy" or n.startswith(CUPY_RUNTIME)}


def test_cupy_on_a_gpu_syncs_the_whole_device(monkeypatch):
    monkeypatch.syspath_prepend(str(FAKE_CUPY))
    before = cupy_modules()  # the real CuPy's, if any: put back for later tests
    for name in before:
        del sys.modules[name]
    try:
        runtime = importlib.import_module(f"{CUPY_RUNTIME}.runtime").CupyRuntime("float32", 1)
        synced = []
        monkeypatch.setattr(runtime.device, "synchronize", lambda: synced.append("device"))
        runtime.sync(object())
        assert synced == ["device"]  # cupy.cuda.Device(0).synchronize: every stream on it
    finally:
        for name in cupy_modules():
            del sys.modules[name]
        sys.modules.update(before)
        package = sys.modules["engine.backends"]
        if CUPY_RUNTIME in before:
            package.cupy = before[CUPY_RUNTIME]
        else:
            vars(package).pop("cupy", None)


def test_pytorch_offers_one_gpu_per_replica_where_there_are_enough(monkeypatch):
    torch = pytest.importorskip("torch")
    from engine.backends.torch.runtime import TorchRuntime

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)
    runtime = TorchRuntime("float32", 1)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert runtime.replica_gpus(2) == [torch.device("cuda:0"), torch.device("cuda:1")]
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert runtime.replica_gpus(2) is None  # the split then says how many it needs
    synced = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: synced.append(device))
    runtime.sync_device(torch.device("cuda:1"))
    assert synced == [torch.device("cuda:1")]  # that replica's device alone


def test_pytorch_on_the_cpu_splits_over_threads_not_gpus():
    pytest.importorskip("torch")
    from engine.backends.torch.runtime import TorchRuntime

    runtime = TorchRuntime("float32", 1)
    if runtime.cuda:
        pytest.skip("a GPU is here")
    assert runtime.replica_gpus(2) is None

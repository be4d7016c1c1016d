"""TPU and GPU detection with the environments of Colab, Cloud TPU VMs and GPU boxes faked."""

from __future__ import annotations

import fnmatch

import pytest

from engine.machine import accelerators
from engine.machine.accelerators import probe_kind, tpu_hint, tpu_resolver_argument


@pytest.fixture
def machine(monkeypatch):
    """A machine with no accelerator; tests add device files and variables."""
    files: set[str] = set()
    for name in ("COLAB_TPU_ADDR", "TPU_NAME"):
        monkeypatch.delenv(name, raising=False)

    def fake_glob(pattern: str) -> list[str]:
        return sorted(f for f in files if fnmatch.fnmatch(f, pattern))

    monkeypatch.setattr(accelerators.glob, "glob", fake_glob)
    monkeypatch.setattr(accelerators.shutil, "which", lambda name: None)
    return files


def test_a_plain_machine_is_a_cpu(machine):
    assert tpu_hint() is None and probe_kind() == "CPU"


@pytest.mark.parametrize("device", ["/dev/accel0", "/dev/vfio/0"])
def test_a_tpu_vm_or_a_current_colab_tpu_runtime_resolves_locally(machine, device):
    machine.add(device)  # v2-v4 TPU VMs: /dev/accel*; v5e and later: VFIO groups
    assert tpu_hint() == "local" and probe_kind() == "TPU"
    assert tpu_resolver_argument("local") == "local"


def test_vfio_without_a_group_number_is_not_a_tpu(machine):
    machine.add("/dev/vfio/vfio")  # the VFIO control device exists on many hosts
    assert tpu_hint() is None


def test_the_legacy_colab_tpu_node_connects_over_grpc(machine, monkeypatch):
    monkeypatch.setenv("COLAB_TPU_ADDR", "10.0.0.2:8470")
    assert tpu_hint() == "colab" and probe_kind() == "TPU"
    assert tpu_resolver_argument("colab") == "grpc://10.0.0.2:8470"


def test_a_named_tpu_node_is_resolved_by_name(machine, monkeypatch):
    monkeypatch.setenv("TPU_NAME", "my-v4-pod")
    assert tpu_hint() == "my-v4-pod" and tpu_resolver_argument("my-v4-pod") == "my-v4-pod"


def test_a_local_tpu_wins_over_a_tpu_name_the_vm_image_also_sets(machine, monkeypatch):
    monkeypatch.setenv("TPU_NAME", "this-vm")
    machine.add("/dev/accel0")
    assert tpu_hint() == "local"


def test_a_gpu_box_is_seen_from_its_device_files_or_nvidia_smi(machine, monkeypatch):
    machine.add("/dev/nvidia0")
    assert probe_kind() == "GPU"
    machine.clear()
    monkeypatch.setattr(accelerators.shutil, "which", lambda name: "/usr/bin/nvidia-smi")
    assert probe_kind() == "GPU"

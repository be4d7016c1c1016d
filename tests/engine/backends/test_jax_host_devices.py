"""The replica count reaches JAX as data: the peer worker calls the hook JAX's declaration
names (`lay_out_replicas`) before the runtime loads, and XLA then shows one host device per
replica; after JAX has started the hook refuses, so a run never claims devices it lacks."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engine.catalogue.strategy_info import declared_call, framework_info
from tests.conftest import ROOT

pytest.importorskip("jax")

SHOWN = """
import os, sys
os.environ.pop("XLA_FLAGS", None)
from engine.catalogue.strategy_info import declared_call, framework_info
declared_call(framework_info("jax").lay_out_replicas, 3)
import jax
print(len(jax.devices("cpu")))
"""


def test_the_declared_hook_shows_one_host_device_per_replica():
    found = subprocess.run(
        [sys.executable, "-c", SHOWN], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert found.returncode == 0, found.stderr[-2000:]
    assert found.stdout.strip().splitlines()[-1] == "3"


def test_after_jax_started_the_hook_refuses():
    import jax  # noqa: F401 - started in this process

    with pytest.raises(RuntimeError, match="before JAX"):
        declared_call(framework_info("jax").lay_out_replicas, 2)

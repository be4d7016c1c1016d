"""Every process kind goes through a measurement's phases in one order (`plan/phase_order.py`):
the rule itself, and a real run whose own process and framework processes kept to it."""

from __future__ import annotations

import json

import pytest

from engine.execution.plan.phase_order import PHASE_NAMES, PhaseOrder, PhaseOrderError
from tests.cli import run_cli


def test_phases_are_entered_forward_and_may_be_skipped():
    order = PhaseOrder()
    for phase in ("start", "probe", "place", "prepare", "sample", "finish", "release", "record"):
        order.enter(phase)  # no profile asked: skipped
    assert order.to_list()[-1] == "record" and "profile" not in order.to_list()


@pytest.mark.parametrize("again", ["probe", "place", "record"])
def test_a_phase_never_comes_back(again):
    order = PhaseOrder()
    for phase in ("start", "probe", "place", "record"):
        order.enter(phase)
    with pytest.raises(PhaseOrderError, match=f"'{again}' entered after 'record'"):
        order.enter(again)


def test_an_unknown_phase_is_refused():
    with pytest.raises(PhaseOrderError, match="'warm up' is not a phase"):
        PhaseOrder().enter("warm up")


def in_order(phases):
    return [PHASE_NAMES.index(p) for p in phases] == sorted(PHASE_NAMES.index(p) for p in phases)


@pytest.mark.slow  # real TensorFlow and a JAX process
def test_a_runs_own_process_and_its_peers_keep_the_one_order(tmp_path):
    pytest.importorskip("jax")
    out = tmp_path / "run.json"
    args = ("run", "--matrices", "30", "--dim", "5", "--repeats", "3", "--warmup", "1")
    args += ("--strategy", "einsum,jax_einsum", "--no-history", "--progress", "none")
    outcome = run_cli(*args, "--no-queue", "--json", str(out))
    assert outcome.returncode == 0, outcome.stderr
    sampling = json.loads(out.read_text())["sampling"]
    own, peer = sampling["phases"], sampling["peers"]["jax"]["phases"]
    full = ["start", "probe", "place", "prepare", "sample", "finish", "release"]
    assert own == [*full, "probe again", "record"] and in_order(own)
    assert peer == [*full, "probe again", "record"] and in_order(peer)

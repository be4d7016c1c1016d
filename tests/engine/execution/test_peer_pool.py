"""Framework processes kept between runs (`peers/pool.py`, `peers/worker.py --keep`): one real
JAX process serves several runs with its functions kept and says so; one that dies, hangs or
is asked for a user's kernel costs only that request; nothing is kept outside `kept_peers()`,
for a user's kernel, a replicated run or a machine with an accelerator; every kept process
ends with the block."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from engine.catalogue.catalog import strategy_info
from engine.execution.peers.kept import KEPT_FUNCTION
from engine.execution.peers.parent import run_peers
from engine.execution.peers.pool import PeerPool, kept_peers, pool_for
from engine.execution.peers.process import WORKER_COMMAND
from engine.execution.peers.request import PeerRequest
from engine.execution.peers.worker import KEEP_FLAG, RESULT_KEY, TOKEN_KEY
from engine.run_settings.config import BenchConfig
from tests.conftest import ROOT

SMALL = {"matrices": 30, "dim": 5, "cols": 4, "warmup": 1, "repeats": 3, "time_budget_s": 5}


def needs_jax() -> None:
    if not strategy_info("jax_einsum").installed:
        pytest.skip("jax is not installed (requirements-peers.txt)")


def jax_run(config: BenchConfig, machine_kind: str | None = "CPU"):
    variants = [(name, "") for name in config.strategies]
    return run_peers(
        config,
        variants,
        copies=1,
        device_kind="CPU",
        emit=lambda e: None,
        machine_kind=machine_kind,
    )


def kept_child(pool: PeerPool):
    (child,) = pool.children.values()
    return child


@pytest.mark.slow  # real framework processes
def test_one_kept_process_serves_several_runs_and_their_results_say_so():
    needs_jax()
    config = BenchConfig(**SMALL, strategies=("jax_einsum", "jax_vmap"))
    with kept_peers() as pool:
        first = jax_run(config)
        child = kept_child(pool)
        second = jax_run(config)
        assert kept_child(pool) is child and child.poll() is None  # the same process
        bigger = jax_run(BenchConfig(**{**SMALL, "matrices": 40}, strategies=config.strategies))
    assert child.poll() is not None  # ended with the block
    for outcome, before, reused in ((first, 0, False), (second, 1, True), (bigger, 2, False)):
        assert outcome.environments["jax"]["process"]["runs_before"] == before
        assert outcome.environments["jax"]["process"]["inputs_reused"] is reused
        for result in outcome.results.values():
            assert result.status == "ok" and result.correct, result.error
            assert len(result.samples_s) == 3
    assert not any(KEPT_FUNCTION in r.notes for r in first.results.values())
    assert all(KEPT_FUNCTION in r.notes for r in second.results.values())
    # another shape builds its functions again: its first call is a first call
    assert not any(KEPT_FUNCTION in r.notes for r in bigger.results.values())


@pytest.mark.slow
def test_a_kept_process_that_died_is_replaced_and_costs_nothing():
    needs_jax()
    config = BenchConfig(**SMALL, strategies=("jax_einsum",))
    with kept_peers() as pool:
        jax_run(config)
        dead = kept_child(pool)
        os.killpg(dead.process.pid, signal.SIGKILL)
        dead.process.wait()
        outcome = jax_run(config)
        assert kept_child(pool) is not dead
    (result,) = outcome.results.values()
    assert result.status == "ok" and result.correct
    assert outcome.environments["jax"]["process"]["runs_before"] == 0


@pytest.mark.slow
def test_a_run_of_another_dtype_gets_a_process_of_its_own():
    """JAX's x64 switch is the whole process's: a float64 run replaces the float32 process."""
    needs_jax()
    config = BenchConfig(**SMALL, strategies=("jax_einsum",))
    with kept_peers() as pool:
        jax_run(config)
        single = kept_child(pool)
        outcome = jax_run(BenchConfig(**{**SMALL, "dtype": "float64"}, strategies=("jax_einsum",)))
        assert kept_child(pool) is not single and single.poll() is not None
    (result,) = outcome.results.values()
    assert result.status == "ok" and result.correct
    assert outcome.environments["jax"]["process"]["runs_before"] == 0
    assert outcome.environments["jax"]["x64"] is True


@pytest.mark.slow
def test_outside_the_block_every_run_has_fresh_processes():
    needs_jax()
    config = BenchConfig(**SMALL, strategies=("jax_einsum",))
    for _ in range(2):
        outcome = jax_run(config)
        assert outcome.environments["jax"]["process"]["runs_before"] == 0


def test_what_is_never_kept():
    assert pool_for("jax", "single", "CPU") is None  # no block: nothing is kept
    with kept_peers() as pool:
        assert pool_for("jax", "single", "CPU") is pool
        assert pool_for("torch@1thread", "single", "CPU") is pool
        assert pool_for("numpy:mine", "single", "CPU") is None  # a user's kernel
        assert pool_for("jax", "replicated", "CPU") is None
        assert pool_for("jax", "single", "GPU") is None  # it would hold the device's memory
        assert pool_for("jax", "single", "") is None
        with kept_peers() as inner:
            assert inner is pool  # nested: the outer block's
    assert pool_for("jax", "single", "CPU") is None


def test_a_hanging_kept_process_is_ended_at_its_timeout_and_dropped():
    pool = PeerPool(command=(sys.executable, "-c", "import time; time.sleep(60)"))
    payload, problem = pool.ask(("jax", 1), {"framework": "jax"}, lambda e: None, timeout_s=0.5)
    assert payload is None and "timed out after" in problem
    assert pool.children == {}


def test_a_kept_process_that_ends_without_answering_says_how_it_ended():
    pool = PeerPool(command=(sys.executable, "-c", "import sys; sys.stdin.readline(); sys.exit(3)"))
    payload, problem = pool.ask(("jax", 1), {"framework": "jax"}, lambda e: None, timeout_s=30)
    assert payload is None and problem.startswith("ended with exit code 3")
    assert pool.children == {}


@pytest.mark.slow
def test_a_kept_process_refuses_a_users_kernel_and_answers_the_next_request():
    spec = f"{ROOT / 'tests' / 'fixtures' / 'user_kernels' / 'numpy_kernels.py'}:mine"
    config = BenchConfig.from_raw({**SMALL, "kernels": [spec], "strategies": "numpy"})
    plain = BenchConfig(**SMALL, strategies=("numpy",))
    refused, fine = (
        PeerRequest(framework="numpy", config=c, variants=((n, ""),), copies=1, threads=1)
        for c, n in ((config, "mine"), (plain, "numpy"))
    )
    child = subprocess.Popen(
        [*WORKER_COMMAND, KEEP_FLAG], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        answers = []
        for request in (refused, fine):
            child.stdin.write(json.dumps({**request.to_dict(), TOKEN_KEY: "t"}) + "\n")
            child.stdin.flush()
            for line in child.stdout:
                if RESULT_KEY in json.loads(line):
                    answers.append(json.loads(line)[RESULT_KEY])
                    break
    finally:
        child.stdin.close()
        assert child.wait(timeout=60) == 0  # its loop ends with its input
    assert answers[0] == {
        "error": "request refused: variants: a user's kernel runs in a process of its own"
    }
    assert [r["status"] for r in answers[1]["results"]] == ["ok"]
    assert answers[1]["runs_before"] == 0  # the refused request measured nothing

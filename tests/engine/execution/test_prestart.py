"""A run's peer processes started early (`peers/early_start.py`, `peers/preparing.py`,
`PeerPool.prestart`): a kept JAX process loads and draws before the run measures and then
serves it, its inputs reused and their placement not reported as a timing; a fresh CLI run is
served so; nothing is prestarted where nothing may be kept; a prestart that fails costs only
itself; a process that serves one request refuses to prestart."""

from __future__ import annotations

import io
import json
import sys

import pytest

from engine.execution.peers.early_start import prestart_peers
from engine.execution.peers.pool import PeerPool, kept_peers
from engine.execution.peers.request import PeerRequest
from engine.execution.peers.worker import RESULT_KEY, answer
from engine.run_settings.config import BenchConfig
from tests.cli import run_cli
from tests.engine.execution.test_peer_pool import SMALL, jax_run, kept_child, needs_jax


@pytest.mark.slow  # a real JAX process
def test_a_prestarted_process_serves_the_run_with_the_inputs_it_drew():
    needs_jax()
    config = BenchConfig(**SMALL, strategies=("jax_einsum", "numpy"))
    with kept_peers() as pool:
        assert prestart_peers(config, "CPU") == ["jax"]  # NumPy's variant stays here
        pool.settle()
        child = kept_child(pool)
        assert child.poll() is None
        outcome = jax_run(BenchConfig(**SMALL, strategies=("jax_einsum",)))
        assert kept_child(pool) is child  # the prestarted process measured it
    process = outcome.environments["jax"]["process"]
    assert process["runs_before"] == 0 and process["inputs_reused"] is True
    (result,) = outcome.results.values()
    assert result.status == "ok" and result.correct and len(result.samples_s) == 3
    assert result.transfer_s is None  # placed beside other starts: not a timing


def test_nothing_is_prestarted_where_nothing_may_be_kept():
    config = BenchConfig(**SMALL, strategies=("jax_einsum",))
    assert prestart_peers(config, "CPU") == []  # no kept_peers() block
    with kept_peers() as pool:
        assert prestart_peers(config, "GPU") == []
        replicated = BenchConfig(**{**SMALL, "mode": "replicated"}, strategies=config.strategies)
        assert prestart_peers(replicated, "CPU") == []
        assert prestart_peers(BenchConfig(**SMALL, strategies=("numpy",)), "CPU") == []
        assert pool.children == {} and pool.starting == []


def test_a_prestart_whose_process_ends_costs_only_itself():
    pool = PeerPool(command=(sys.executable, "-c", "import sys; sys.stdin.readline(); sys.exit(3)"))
    pool.prestart(("jax", 1), {"framework": "jax"}, timeout_s=30, dtype="float32")
    pool.settle()  # answered by its end, in its own thread: nothing raised here
    assert pool.children == {} and pool.starting == []


def test_a_process_that_serves_one_request_refuses_to_prestart():
    config = BenchConfig(**SMALL, strategies=("numpy",))
    request = PeerRequest(
        framework="numpy", config=config, variants=(("numpy", ""),), copies=1, threads=1
    )
    out = io.StringIO()
    answer({**request.to_dict(), "prestart": True, "token": "t"}, out)
    (line,) = out.getvalue().splitlines()
    assert json.loads(line)[RESULT_KEY] == {
        "error": "request refused: prestart: only a kept process of a single-mode run starts early"
    }


@pytest.mark.slow
def test_a_fresh_cli_run_is_served_by_its_prestarted_process(tmp_path):
    needs_jax()
    out = tmp_path / "run.json"
    found = run_cli(
        "run", "--strategy", "jax_einsum", "--matrices", "30", "--dim", "5", "--cols", "4",
        "--repeats", "3", "--warmup", "1", "--no-history", "--no-queue", "--progress", "none",
        "--json", str(out),
    )  # fmt: skip
    assert found.returncode == 0, found.stderr
    run = json.loads(out.read_text())
    process = run["environment"]["frameworks"]["jax"]["process"]
    assert process["runs_before"] == 0 and process["inputs_reused"] is True
    assert [r["status"] for r in run["results"]] == ["ok"]

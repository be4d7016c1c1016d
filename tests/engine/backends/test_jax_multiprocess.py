"""JAX's multi-process path: two real `engine run` processes on localhost, each with one CPU
device, joined by `jax.distributed` (gloo), the batch sharded over both; and the door that
names a malformed cluster before any work."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from benchmarks.server import free_port
from engine.machine.jax_cluster import (
    Cluster,
    ClusterError,
    cluster_from_environment,
    jax_processes,
)
from tests.cli import run_cli
from tests.conftest import ROOT

pytest.importorskip("jax")

SMALL = ["--matrices", "64", "--dim", "8", "--repeats", "5", "--warmup", "1"]


def test_the_environment_names_the_cluster_or_the_variable_that_is_wrong():
    env = {
        "JAX_COORDINATOR_ADDRESS": "127.0.0.1:29871",
        "MATVEC_JAX_PROCESSES": "2",
        "MATVEC_JAX_PROCESS_ID": "1",
    }
    assert cluster_from_environment(env) == Cluster("127.0.0.1:29871", 2, 1)
    assert cluster_from_environment({}) is None
    for name, bad in (
        ("JAX_COORDINATOR_ADDRESS", "localhost"),
        ("MATVEC_JAX_PROCESSES", "two"),
        ("MATVEC_JAX_PROCESS_ID", "2"),  # ids are 0 and 1
    ):
        with pytest.raises(ClusterError) as error:
            cluster_from_environment({**env, name: bad})
        assert error.value.field == name and repr(bad) in str(error.value)


def test_the_door_refuses_a_layout_the_processes_cannot_share(monkeypatch):
    monkeypatch.setenv("JAX_COORDINATOR_ADDRESS", "127.0.0.1:29871")
    monkeypatch.setenv("MATVEC_JAX_PROCESSES", "2")
    monkeypatch.setenv("MATVEC_JAX_PROCESS_ID", "0")
    assert jax_processes() == 2
    single = run_cli("run", *SMALL, "--strategy", "jax_einsum", "--no-history")
    assert single.returncode == 2 and "mode: 2 JAX processes share a batch" in single.stderr
    odd = run_cli("run", *SMALL, "--strategy", "jax_einsum", "--mode", "sharded", "--replicas", "3")
    assert odd.returncode == 2 and "replicas: 3 replicas do not share out" in odd.stderr
    monkeypatch.setenv("MATVEC_JAX_PROCESS_ID", "-1")
    bad = run_cli("run", *SMALL, "--strategy", "jax_einsum", "--mode", "sharded")
    assert bad.returncode == 2 and bad.stderr.startswith("error: MATVEC_JAX_PROCESS_ID:")


@pytest.mark.slow  # four processes: two engine runs, each with its JAX process
def test_two_processes_share_one_sharded_batch_and_both_hold_the_whole_record(tmp_path):
    port = free_port()
    runs = []
    for process in (0, 1):
        env = {
            **os.environ,
            "TF_CPP_MIN_LOG_LEVEL": "3",
            "JAX_COORDINATOR_ADDRESS": f"127.0.0.1:{port}",
            "MATVEC_JAX_PROCESSES": "2",
            "MATVEC_JAX_PROCESS_ID": str(process),
        }
        command = [
            sys.executable,
            "-m",
            "engine",
            "run",
            *SMALL,
            "--strategy",
            "jax_einsum",
            "--mode",
            "sharded",
            "--replicas",
            "2",
            "--no-history",
            "--progress",
            "none",
            "--json",
            str(tmp_path / f"process{process}.json"),
        ]
        runs.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True))
    for run in runs:
        out, _ = run.communicate(timeout=300)
        assert run.returncode == 0, out
    records = [json.loads((tmp_path / f"process{p}.json").read_text()) for p in (0, 1)]
    entries = [next(r for r in d["results"] if r["variant"] == "jax_einsum") for d in records]
    for entry in entries:
        assert entry["status"] == "ok" and entry["correct"] is True  # the gathered output
        assert entry["distribution"]["replicas_in_sync"] == 2
        assert "in 2 processes" in entry["distribution"]["strategy"]
        assert [r["matrices"] for r in entry["replicas"]] == [32, 32]
        assert all(r["median_s"] for r in entry["replicas"])  # each timed by its own process
        assert len(entry["samples_s"]) == 5  # fixed sampling: the same calls in each
    # One record: both processes hold every block's slowest time and every replica's.
    assert entries[0]["samples_s"] == entries[1]["samples_s"]
    assert entries[0]["replicas"] == entries[1]["replicas"]
    devices = {r["device"] for r in entries[0]["replicas"]}
    assert len(devices) == 2
    for process, record in enumerate(records):
        jax_env = record["environment"]["frameworks"]["jax"]
        assert (jax_env["processes"], jax_env["process_id"]) == (2, process)


@pytest.mark.slow  # two engine runs, each with its JAX process
def test_processes_given_different_counts_each_say_so_in_one_line(tmp_path):
    """It once ended with "cannot reshape array of size 5 into shape (2,3)"."""
    port = free_port()
    runs = []
    for process, count in ((0, 2), (1, 3)):
        env = {
            **os.environ,
            "TF_CPP_MIN_LOG_LEVEL": "3",
            "JAX_COORDINATOR_ADDRESS": f"127.0.0.1:{port}",
            "MATVEC_JAX_PROCESSES": str(count),
            "MATVEC_JAX_PROCESS_ID": str(process),
        }
        out = tmp_path / f"process{process}.json"
        command = [sys.executable, "-m", "engine", "run", "--matrices", "60", *SMALL[2:],
                   "--strategy", "jax_einsum", "--mode", "sharded", "--replicas", "6",
                   "--no-history", "--progress", "none", "--json", str(out)]  # fmt: skip
        runs.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True))
    for run in runs:
        run.communicate(timeout=300)
    errors = [
        json.loads((tmp_path / f"process{p}.json").read_text())["results"][0]["error"]
        for p in (0, 1)
    ]
    assert "show 5 devices in all" in errors[0] and "give every process the same" in errors[0]
    # Process 1 says its count, unless process 0 (the coordinator) ended first and JAX aborted
    # it: then its parent names where it was joined (seen under a loaded suite).
    assert (
        "MATVEC_JAX_PROCESSES is 3 in process 1" in errors[1]
        or "it was process 1 of 3 of the JAX run coordinated at" in errors[1]
        or "process 1 of 3 could not start with the JAX processes coordinated at" in errors[1]
    )
    assert not any("reshape" in error or "0x7f" in error for error in errors)


@pytest.mark.slow  # an engine run whose JAX process waits for a process that never comes
def test_a_process_whose_others_never_come_says_where_and_what_to_check(tmp_path):
    """It once waited about 130 s, then said only a native stack address."""
    out = tmp_path / "lonely.json"
    env = {
        **os.environ,
        "JAX_COORDINATOR_ADDRESS": f"127.0.0.1:{free_port()}",  # nobody there
        "MATVEC_JAX_PROCESSES": "2",
        "MATVEC_JAX_PROCESS_ID": "1",
        "MATVEC_JAX_JOIN_S": "3",
    }
    command = [sys.executable, "-m", "engine", "run", *SMALL, "--strategy=jax_einsum,numpy",
               "--mode=sharded", "--replicas=2", "--no-history", "--progress=none",
               f"--json={out}"]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    results = {r["variant"]: r for r in json.loads(out.read_text())["results"]}
    assert results["numpy"]["status"] == "ok"  # the other frameworks' results are kept
    error = results["jax_einsum"]["error"]
    assert "process 1 of 2 of the JAX run coordinated at 127.0.0.1:" in error
    assert "MATVEC_JAX_JOIN_S" in error and "0x7f" not in error

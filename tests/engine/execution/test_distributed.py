"""Replicated and sharded runs on 2, 3 and 4 simulated CPU replicas, one fresh process per
layout (each layout's modes share it)."""

import json
import os
import socket
import subprocess
import sys

import pytest

from engine.backends.tensorflow.devices import DeviceError, _pick
from tests.conftest import ROOT

pytestmark = pytest.mark.slow
# B % N != 0 and B < N on every layout, B % N == 0 on one; 403 also leaves a remainder in the
# dataset global batch. Each layout's process runs its other modes too.
SHARDED_CASES = {2: "sharded:10,7,1", 3: "sharded:10,2", 4: "sharded:403,3"}
OTHER_CASES = {2: ("replicated:7",), 3: ("padded:7",), 4: ()}


def probe(replicas: int, *cases: str) -> dict[str, list[dict]]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.engine.execution.distributed_probe", str(replicas), *cases],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def layouts():
    """Each layout's runs, probed once, the first time a test asks for that layout."""
    probed: dict[int, dict[str, list[dict]]] = {}

    def runs(replicas: int) -> dict[str, list[dict]]:
        if replicas not in probed:
            cases = (SHARDED_CASES[replicas], *OTHER_CASES[replicas])
            probed[replicas] = probe(replicas, *cases)
        return probed[replicas]

    return runs


@pytest.fixture(params=sorted(SHARDED_CASES))
def sharded(request, layouts):
    return request.param, layouts(request.param)[SHARDED_CASES[request.param]]


def test_sharded_results_equal_the_reference(sharded):
    replicas, runs = sharded
    for index, run in enumerate(runs):
        matrices = run["config"]["matrices"]
        assert run["environment"]["replicas"] == replicas
        variants = {r["variant"] for r in run["results"]}
        assert {"batched_matvec", "dataset", "dataset+from_function"} <= variants
        if index == 0 and replicas == 2:  # every strategy, and +xla, on one layout
            assert {"einsum", "map_fn", "while_loop", "batched_matmul"} <= variants
            assert "batched_matvec+xla" in variants
        for result in run["results"]:
            assert result["status"] == "ok", (matrices, result["variant"], result["error"])
            assert result["correct"], (matrices, result["variant"], result["warnings"])


def test_sharded_replicas_split_b_and_are_complete(sharded):
    replicas, runs = sharded
    for run in runs:
        matrices = run["config"]["matrices"]
        for result in run["results"]:
            rows = result["replicas"]
            assert [r["replica"] for r in rows] == list(range(replicas))
            assert sum(r["matrices"] for r in rows) == matrices
            assert all(set(r) >= {"replica", "device", "matrices", "median_s"} for r in rows)
            assert len({r["device"] for r in rows}) == replicas
            if result["strategy"] != "dataset":
                sizes = [r["matrices"] for r in rows]
                assert max(sizes) - min(sizes) <= 1
                # An empty shard (B < N) launches nothing and so has no time of its own.
                assert all((r["median_s"] is not None) == (r["matrices"] > 0) for r in rows)
                info = result["distribution"]
                assert info["load_imbalance"] >= 1.0
                assert info["speedup_over_replicated"] > 0
                assert result["work_multiplier"] == 1


def test_replicated_every_replica_holds_b_and_is_checked(layouts):
    (run,) = layouts(2)["replicated:7"]
    for result in run["results"]:
        if result["strategy"] == "dataset":
            assert result["status"] == "skipped" and "sharded" in result["error"]
            continue
        assert result["status"] == "ok" and result["correct"], result
        assert [r["matrices"] for r in result["replicas"]] == [7, 7]
        assert result["work_multiplier"] == 2
        assert any("2x the necessary work" in note for note in result["notes"])


def test_padded_equal_shards_as_on_tpu_are_masked_and_correct(layouts):
    (run,) = layouts(3)["padded:7"]
    for result in run["results"]:
        assert result["correct"], result["variant"]
        if result["strategy"] != "dataset":
            assert result["distribution"]["padded"] is True
            assert result["distribution"]["padding_rows"] == 2
            assert any("zero rows padded" in note for note in result["notes"])


def test_non_distributable_strategies_are_skipped_and_numpy_is_split(tmp_path):
    out = tmp_path / "r.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "run",
            "--matrices",
            "6",
            "--dim",
            "3",
            "--mode",
            "sharded",
            "--replicas",
            "2",
            "--strategy",
            "python_loop,numpy,einsum",
            "--repeats",
            "2",
            "--progress",
            "none",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results = {r["variant"]: r for r in json.loads(out.read_text())["results"]}
    assert results["python_loop"]["status"] == "skipped"
    assert "mode single" in results["python_loop"]["error"]
    assert results["einsum"]["correct"]
    # NumPy beside TensorFlow: split over two threads in its own process, its record the same
    numpy_result = results["numpy"]
    assert numpy_result["correct"] and numpy_result["distribution"]["strategy"] == "host threads"
    assert [r["matrices"] for r in numpy_result["replicas"]] == [3, 3]


def test_too_many_replicas_on_an_accelerator_is_a_clear_error():
    with pytest.raises(DeviceError, match="replicas: 4 requested but this machine has 2 GPU"):
        _pick("GPU", ("/device:GPU:0", "/device:GPU:1"), 4, None)


def test_too_many_replicas_cli_message():
    done = subprocess.run(
        [sys.executable, "-m", "engine", "run", "--mode", "sharded", "--replicas", "5000"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "error: replicas: must be an integer from 1 to 1,024, got 5,000"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_two_workers_on_localhost_gather_correct_results(tmp_path):
    ports = [free_port(), free_port()]
    cluster = {"worker": [f"localhost:{p}" for p in ports]}
    workers = []
    for index in range(2):
        tf_config = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}})
        workers.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "engine",
                    "run",
                    "--matrices",
                    "101",
                    "--dim",
                    "5",
                    "--cols",
                    "4",
                    "--mode",
                    "sharded",
                    "--strategy",
                    "batched_matvec",
                    "--strategy",
                    "einsum",
                    "--xla",
                    "--repeats",
                    "3",
                    "--progress",
                    "none",
                    "--json",
                    str(tmp_path / f"worker{index}.json"),
                ],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, "TF_CONFIG": tf_config, "TF_CPP_MIN_LOG_LEVEL": "3"},
            )
        )
    for worker in workers:
        _, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err[-2000:]
    for index in range(2):
        run = json.loads((tmp_path / f"worker{index}.json").read_text())
        for result in run["results"]:
            assert result["status"] == "ok" and result["correct"], result
            info = result["distribution"]
            assert info["workers"] == 2 and info["replicas_in_sync"] == 2
            assert info["shard_sizes"] == [51, 50]
            assert [r["replica"] for r in result["replicas"]] == [index]

"""The CLI contract: exit codes, one-line errors, the JSON file. Each check runs in this
process; one per kind (bad input, a run, devices) also through a real `python -m engine`."""

import json
import subprocess
import sys

import pytest

from engine.cli.run import NOT_PROBED
from tests.cli import engine_process, run_cli
from tests.conftest import ROOT


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--matrices", "0"], "error: matrices: must be an integer from 1 to"),
        (["--matrices", "-3"], "error: matrices: must be an integer from 1 to"),
        (["--dim", "2.5"], "error: dim: must be an integer"),
        (["--cols", "nan"], "error: cols: must be an integer"),
        (["--dtype", "int8"], "error: dtype: must be one of float16, bfloat16, float32, float64"),
        (["--strategy", "turbo"], "error: strategy: unknown 'turbo'; allowed: all, python_loop"),
        (["--cache", "lukewarm"], "error: cache: must be one of warm, cold"),
        (["--repeats", "0"], "error: repeats: must be an integer from 1"),
        (["--warmup", "-1"], "error: warmup: must be an integer from 0"),
        (["--seed", "abc"], "error: seed: must be an integer"),
        (["--time-budget", "-4"], "error: time_budget_s: must be a number of seconds"),
        (["--mode", "mirrored"], "error: mode: must be one of single, replicated, sharded"),
        (["--replicas", "2"], "error: replicas: must be 1 in mode single"),
        (["--no-such-flag"], "error: unrecognized arguments: --no-such-flag"),
        (["--json", "/no/such/dir/out.json"], "error: json: directory"),
        (["--matrices", "100000000", "--dim", "1000"], "error: memory: this run needs"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_traceback(args, message):
    done = run_cli("run", *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(message)
    assert "Traceback" not in done.stderr


def test_no_command_is_a_usage_error():
    done = run_cli()
    assert done.returncode == 2 and done.stderr.startswith("error:")


def test_a_real_process_exits_2_with_one_line_on_bad_input():
    done = engine_process("run", "--matrices", "0", timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: matrices: must be an integer from 1 to")


def test_run_writes_json_and_prints_a_table(tmp_path):
    out = tmp_path / "out.json"
    done = engine_process(
        "run",
        "--matrices",
        "30",
        "--dim",
        "8",
        "--cols",
        "5",
        "--strategy",
        "einsum",
        "--strategy",
        "numpy",
        "--xla",
        "--repeats",
        "3",
        "--warmup",
        "1",
        "--label",
        "ci <run>",
        "--json",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    for column in ("strategy", "median", "IQR", "GB/s", "GFLOP/s", "roofline", "max rel err"):
        assert column in done.stdout
    assert "einsum+xla" in done.stdout
    data = json.loads(out.read_text())
    about = done.stdout.split("about this run:\n", 1)[1]  # every run warning, said once
    moved = [w for w in data["warnings"] if "ceiling moved:" in w]  # said under the ceilings
    assert all(w in about for w in data["warnings"] if w not in moved)
    assert all(w in done.stdout.split("about this run:")[0] for w in moved)
    assert data["schema_version"] == 1
    assert [r["variant"] for r in data["results"]] == ["einsum", "einsum+xla", "numpy"]
    assert data["config"]["label"] == "ci <run>" and data["config"]["cols"] == 5
    assert all(r["correct"] for r in data["results"])


def test_no_ceiling_measures_every_variant_and_probes_nothing(tmp_path):
    """`--no-ceiling` (the dashboard's first look): the results hold no probe, no ceiling and
    no roofline, and say why where the ceiling would be; the variants are measured as ever."""
    out = tmp_path / "out.json"
    done = run_cli(
        "run", "--matrices", "30", "--dim", "8", "--strategy", "numpy", "--repeats", "3",
        "--no-history", "--no-ceiling", "--json", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["peak"] == {"bandwidth_bytes_per_s": None, "method": NOT_PROBED}  # no probes
    (numpy,) = data["results"]
    assert numpy["correct"] and len(numpy["samples_s"]) >= 1
    assert numpy["roofline_fraction"] is None and numpy["ceiling_level"] is None


def test_jsonl_progress_is_machine_readable(tmp_path, monkeypatch):
    from engine.measure import memory

    checked = []
    preflight = memory.preflight
    monkeypatch.setattr(
        memory, "preflight", lambda *a, **k: checked.append(a) or preflight(*a, **k)
    )
    out = tmp_path / "r.json"
    done = run_cli(
        "run",
        "--matrices",
        "10",
        "--dim",
        "4",
        "--repeats",
        "2",
        "--warmup",
        "0",
        "--progress",
        "jsonl",
        "--json",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "phase" and "start" in kinds and kinds[-1] == "result"
    assert "sample" in kinds and all("elapsed_s" in e for e in events)
    assert events[-1]["json_path"] == str(out)
    assert len(checked) == 1  # the memory preflight runs once, before TensorFlow's import


def test_strategies_lists_every_name_as_json():
    done = run_cli("strategies", "--json")
    assert done.returncode == 0
    rows = json.loads(done.stdout)
    catalogue = [row["name"] for row in rows if not row["search_only"]]
    assert catalogue == [
        "python_loop",
        "while_loop",
        "map_fn",
        "vectorized_map",
        "batched_matvec",
        "batched_matmul",
        "einsum",
        "dataset",
        "numpy",
        "jax_vmap",
        "jax_einsum",
        "torch_bmm",
        "torch_einsum",
        "torch_xla_bmm",
        "torch_xla_einsum",
        "cupy_matmul",
        "cupy_einsum",
    ]
    frameworks = {row["name"]: row["framework"] for row in rows}
    assert frameworks["numpy"] == "numpy" and frameworks["einsum"] == "tensorflow"
    assert frameworks["jax_vmap"] == "jax" and frameworks["torch_bmm"] == "torch"
    assert all(isinstance(row["installed"], bool) for row in rows)
    assert {row["name"] for row in rows if row["own_process"]} == {
        row["name"] for row in rows if row["framework"] in ("jax", "torch", "torch_xla", "cupy")
    }
    searched = {row["name"]: row for row in rows if row["search_only"]}
    assert {"broadcast_reduce", "numpy_split2", "torch_bmm_compiled"} <= set(searched)
    assert searched["numpy_split2"]["chunks"] == 2
    assert searched["torch_bmm_compiled"]["compiler"] == "torch.compile"


def test_strategies_lists_the_catalogue_not_kernels_an_earlier_request_registered(tmp_path):
    """`serve` reads many configs in one process: a run's kernel is not in the catalogue."""
    from engine.catalogue.catalog import unregister
    from engine.run_settings.config import BenchConfig

    kernel = tmp_path / "mine.py"
    kernel.write_text("import numpy as np\n\ndef mine_here(A, x):\n    return A @ x\n")
    BenchConfig.from_raw({"strategies": ["numpy"], "kernels": [f"{kernel}:mine_here"]})
    try:
        listed = json.loads(run_cli("strategies", "--json").stdout)
        table = run_cli("strategies").stdout.splitlines()
    finally:
        unregister("mine_here")
    assert "mine_here" not in {row["name"] for row in listed}
    assert not any(line.startswith("mine_here") for line in table)
    # The columns line up whatever the longest name: each row's framework starts in one place.
    starts = {line.index(row["framework"], len(row["name"])) for line, row in zip(table, listed)}
    assert len(starts) == 1


def test_a_reader_that_goes_away_ends_the_command_quietly():
    done = subprocess.run(
        f"{sys.executable} -m engine strategies | head -n 1",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.startswith("python_loop") and done.stderr == ""


def test_devices_reports_the_cpu():
    done = engine_process("devices", "--json", timeout=120)
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["device_kind"] == "CPU" and info["default_device"].endswith("CPU:0")


def test_devices_speaks_words_not_python_reprs():
    """`devices` printed "['/device:CPU:0']", "{'CPU': [...], 'GPU': []}" and "None"."""
    from engine.cli.listing import in_words

    assert in_words(["/device:CPU:0"]) == "/device:CPU:0"
    physical = {"CPU": ["/physical_device:CPU:0"], "GPU": [], "TPU": []}
    assert in_words(physical) == "CPU: /physical_device:CPU:0; GPU: none; TPU: none"
    assert in_words(None) == "none" and in_words([]) == "none"
    done = run_cli("devices")
    assert done.returncode == 0
    assert not any(mark in done.stdout for mark in ("['", "{'", ": None", ": []"))

"""The package: `pip install .` into a fresh environment, the console command from another
directory, an existing TensorFlow left as it is, and the TensorFlow check's one line."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

import pytest
import tomllib

from engine.backends.tensorflow import availability as frameworks
from engine.cli.dashboard import SETTINGS, streamlit_flags
from engine.cli.main import main
from tests.conftest import ROOT
from tests.engine.cli.test_entry import INTERRUPTED_AT_MAIN, STARTING_LINE
from tests.environments import console, make_venv, pip_install, source_copy

TENSORFLOW_STRATEGIES = (
    "python_loop,while_loop,map_fn,vectorized_map,batched_matvec,batched_matmul,einsum,dataset"
)
MINIMUM_TENSORFLOW = "tensorflow-cpu==2.16.2"  # the documented minimum, 2.16 (frameworks.py)


@pytest.mark.slow
def test_a_fresh_machine_gets_a_console_command_then_runs_on_the_minimum_tensorflow(tmp_path):
    """One fresh venv, as a new user's machine goes: `pip install .` alone (NumPy and the small
    scientific stack, no TensorFlow) gives a console command that works from any directory and
    says what to install; then, with the oldest supported TensorFlow (and the NumPy 1.x it
    needs) added, every TensorFlow strategy, with +xla, runs correct and the version is
    recorded. Without xprof there, `--profile` says what to install instead of failing. A
    Ctrl-C while the command's modules import ends it in one line."""
    bin_dir = make_venv(tmp_path / "env")
    source = source_copy(tmp_path)
    pip_install(bin_dir, str(source))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = console(bin_dir, "strategies", "--json", cwd=elsewhere)
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert "batched_matvec" in rows
    # Ctrl-C while the CLI imports, through the very wrapper pip wrote: one line, exit 130
    wrapper = (bin_dir / "matvec-profiler").read_text(encoding="utf-8")
    stopped = subprocess.run(
        [str(bin_dir / "python"), "-c", INTERRUPTED_AT_MAIN + wrapper],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        timeout=300,
    )
    assert (stopped.returncode, stopped.stderr) == (130, STARTING_LINE), stopped.stderr[-2000:]
    # The engine installs with the small scientific stack only: no TensorFlow came with it.
    assert rows["numpy"]["installed"] and not rows["batched_matvec"]["installed"]
    out = elsewhere / "run.json"
    small = ("run", "--matrices", "40", "--dim", "6", "--no-history", "--progress", "none")
    run = console(
        bin_dir, *small, "--strategy", "numpy,batched_matvec", "--json", str(out), cwd=elsewhere
    )
    assert run.returncode == 0, run.stderr[-2000:]
    data = json.loads(out.read_text())
    found = {r["variant"]: r for r in data["results"]}
    numpy_result, tf_result = found["numpy"], found["batched_matvec"]
    assert numpy_result["status"] == "ok" and numpy_result["correct"]
    assert tf_result["status"] == "unsupported"
    assert "pip install tensorflow==" in tf_result["error"]
    assert data["peak"]["bandwidth_bytes_per_s"] > 0 and data["environment"]["tensorflow"] is None
    everything = console(bin_dir, *small, "--strategy", "all", "--json", str(out), cwd=elsewhere)
    assert everything.returncode == 0, everything.stderr[-2000:]
    assert [r["variant"] for r in json.loads(out.read_text())["results"]] == ["numpy"]
    devices = console(bin_dir, "devices", "--json", cwd=elsewhere)
    assert devices.returncode == 0 and json.loads(devices.stdout)["tensorflow"] is None
    board = console(bin_dir, "dashboard", cwd=elsewhere)
    assert board.returncode == 2 and "Streamlit is not installed" in board.stderr

    # With the package again: pip then re-resolves what depends on NumPy (pandas) for 1.x.
    pip_install(bin_dir, MINIMUM_TENSORFLOW, "numpy<2", str(source))
    oldest = console(
        bin_dir,
        *small,
        "--repeats",
        "2",
        "--warmup",
        "0",
        "--strategy",
        f"{TENSORFLOW_STRATEGIES},numpy",
        "--xla",
        "--profile",
        "--json",
        str(out),
        cwd=elsewhere,
    )
    assert oldest.returncode == 0, oldest.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data["environment"]["tensorflow"].startswith("2.16.")
    for entry in data["results"]:
        assert entry["status"] == "ok" and entry["correct"], (entry["variant"], entry["error"])
        if entry["strategy"] != "numpy":
            assert entry["profile"]["status"] == "unsupported"
            assert "install xprof" in entry["profile"]["error"]


@pytest.mark.slow
def test_installing_beside_an_existing_tensorflow_leaves_it_unchanged(tmp_path):
    """What `pip install .` would do to the environment running these tests, which has
    TensorFlow: pip's own resolution (a dry run, with its report), so nothing is changed."""
    report = tmp_path / "report.json"
    dry_run = ["install", "--dry-run", "--quiet", "--report", str(report)]
    done = subprocess.run(
        [sys.executable, "-m", "pip", *dry_run, str(source_copy(tmp_path))],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    planned = {
        item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]
    }
    assert planned <= {"batched-matvec-profiler"}, planned  # nothing beside it changes
    assert metadata.version("tensorflow")  # there was a TensorFlow to leave alone


def test_too_old_a_tensorflow_is_refused_for_its_own_strategies(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(frameworks, "tensorflow_version", lambda: "2.12.1")
    assert main(["devices", "--json"]) == 0
    seen = json.loads(capsys.readouterr().out)
    assert seen["tensorflow"] is None
    assert seen["tensorflow_problem"] == "TensorFlow 2.12.1 is older than the minimum 2.16"
    out = tmp_path / "run.json"
    argv = ["run", "--matrices", "8", "--dim", "4", "--strategy", "numpy,einsum", "--json"]
    assert main([*argv, str(out), "--no-history", "--progress", "none"]) == 0
    found = {r["variant"]: r for r in json.loads(out.read_text())["results"]}
    assert found["einsum"]["error"].startswith("TensorFlow 2.12.1 is older than the minimum")
    assert found["numpy"]["status"] == "ok"


def hide_tensorflow(monkeypatch) -> None:
    real = frameworks.importlib.util.find_spec
    monkeypatch.setattr(
        frameworks.importlib.util,
        "find_spec",
        lambda name, *a: None if name.split(".")[0] == "tensorflow" else real(name, *a),
    )


def test_without_tensorflow_a_run_measures_the_rest_and_says_what_to_install(
    monkeypatch, capsys, tmp_path
):
    hide_tensorflow(monkeypatch)
    out = tmp_path / "run.json"
    argv = ["run", "--matrices", "8", "--dim", "4", "--strategy", "numpy,einsum"]
    assert main([*argv, "--no-history", "--progress", "none", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    found = {r["variant"]: r for r in data["results"]}
    numpy_result, einsum = found["numpy"], found["einsum"]
    assert numpy_result["status"] == "ok" and numpy_result["correct"]
    assert einsum["error"].startswith("TensorFlow is not installed here; `pip install")
    assert "pip install tensorflow==" in einsum["error"]
    assert data["environment"]["frameworks"]["numpy"]["device_kind"] == "CPU"


def test_without_tensorflow_a_distributed_mode_splits_every_other_framework(
    monkeypatch, capsys, tmp_path
):
    hide_tensorflow(monkeypatch)
    out = tmp_path / "run.json"
    argv = ["run", "--matrices", "9", "--dim", "4", "--mode", "sharded", "--replicas", "2"]
    argv += ["--strategy", "numpy,einsum,jax_vmap", "--repeats", "3", "--time-budget", "1"]
    assert main([*argv, "--no-history", "--progress", "none", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    found = {r["variant"]: r for r in data["results"]}
    assert found["einsum"]["status"] == "unsupported"
    assert data["environment"]["replicas"] == 2
    for name in ("numpy", "jax_vmap"):
        entry = found[name]
        if entry["status"] == "unsupported" and "not installed" in entry["error"]:
            continue  # JAX is optional
        assert entry["status"] == "ok" and entry["correct"], entry
        assert entry["distribution"]["shard_sizes"] == [5, 4]
        assert [r["matrices"] for r in entry["replicas"]] == [5, 4]
        assert any("do not split evenly over 2" in n for n in entry["notes"])
    assert found["numpy"]["distribution"]["strategy"] == "host threads"
    if found["jax_vmap"]["status"] == "ok":  # JAX lays the batch over two XLA host devices
        assert found["jax_vmap"]["distribution"]["strategy"].startswith("NamedSharding")
        assert found["jax_vmap"]["distribution"]["padding_rows"] == 1
        assert [r["device"] for r in found["jax_vmap"]["replicas"]] == ["cpu:0", "cpu:1"]


@pytest.mark.parametrize(
    ("kind", "colab", "expected"),
    [
        ("CPU", False, "pip install tensorflow==2.21.0"),
        ("GPU", False, 'pip install "tensorflow[and-cuda]==2.21.0"'),
        ("TPU", False, "pip install tensorflow-tpu -f "),
        ("TPU", True, "this Colab TPU runtime ships JAX, not TensorFlow"),
    ],
)
def test_the_install_hint_fits_the_hardware(kind, colab, expected):
    hint = frameworks.tensorflow_install_hint(kind, colab)
    assert expected in hint
    assert ("libtpu" in hint) == (kind == "TPU")


def test_colab_is_recognised_from_its_environment(monkeypatch):
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab-20261201")
    assert frameworks.on_colab()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2.21.0", (2, 21, 0)), ("2.16.0rc1", (2, 16, 0)), ("2.19.0+cpu", (2, 19, 0))],
)
def test_versions_compare_by_their_numbers(text, expected):
    assert frameworks.version_tuple(text) == expected


def test_the_dashboard_command_carries_the_apps_safe_settings():
    settings = tomllib.loads(SETTINGS.read_text(encoding="utf-8"))
    flags = streamlit_flags(settings)
    pairs = list(zip(flags[::2], flags[1::2]))
    assert ("--server.address", "localhost") in pairs
    assert [v for k, v in pairs if k == "--server.allowedHosts"] == [
        "localhost",
        "127.0.0.1",
        "[::1]",
    ]
    assert ("--client.showErrorDetails", "none") in pairs
    assert ("--server.headless", "true") in pairs
    # `streamlit run dashboard/app.py` reads the same file, beside the app, from any folder.
    assert SETTINGS == ROOT / "dashboard" / ".streamlit" / "config.toml"
    assert sys.version_info >= (3, 10)

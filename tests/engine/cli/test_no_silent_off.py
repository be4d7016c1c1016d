"""No silent off switch: an empty value for a flag that takes one is refused in one line
naming the flag (a CI line whose variable is unset once ran the gate as if it were absent)."""

from __future__ import annotations

import pytest

from tests.cli import engine_process, run_cli
from tests.factories import make_run


@pytest.mark.parametrize(
    ("flag", "named"),
    [
        ("--fail-if-slower", "--fail-if-slower"),
        ("--rerun", "--rerun"),
        ("--baseline", "--baseline"),
        ("--json", "--json"),
        ("--history", "--history"),
        ("--kernel", "--kernel"),
    ],
)
def test_an_empty_compare_flag_is_refused_naming_it(tmp_path, flag, named):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    make_run().write_json(a)
    make_run().write_json(b)
    done = run_cli("compare", str(a), str(b), flag, "")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"error: {named}: is empty; give it a value or leave it out\n"


@pytest.mark.parametrize("flag", ["--matrices", "--strategy", "--label", "--json", "--cols"])
def test_an_empty_run_flag_is_refused_before_any_work(flag):
    done = run_cli("run", flag, "", "--no-history")
    assert done.returncode == 2 and flag in done.stderr and "is empty" in done.stderr


def test_a_coordinator_port_out_of_range_is_refused():
    from engine.machine.jax_cluster import ClusterError, cluster_from_environment

    env = {"JAX_COORDINATOR_ADDRESS": "127.0.0.1:99999", "MATVEC_JAX_PROCESSES": "2"}
    with pytest.raises(ClusterError, match="port 1 to 65535"):
        cluster_from_environment({**env, "MATVEC_JAX_PROCESS_ID": "0"})


def test_tensorflows_import_limit_is_spent_once_per_process(monkeypatch):
    """A run asks twice (is it usable, then the run's own process): a failure seen once is the
    answer the second time, so a limit of 10 s no longer costs 20 s."""
    from engine.backends.tensorflow import import_guard

    checks = []
    monkeypatch.setattr(import_guard, "_FAILED", {})
    monkeypatch.setattr(import_guard, "install_key", lambda: "an-install")
    monkeypatch.setattr(import_guard, "remembered", lambda: [])
    monkeypatch.setattr(import_guard, "_check_import", lambda: checks.append(1) or "it hangs")
    monkeypatch.delitem(__import__("sys").modules, "tensorflow", raising=False)
    assert import_guard.import_problem() == "it hangs"
    assert import_guard.import_problem() == "it hangs"
    assert checks == [1]


def test_a_run_where_no_variant_is_correct_exits_3_saying_why(tmp_path):
    """It exited 0: a CI step could not tell a run that measured nothing from a good one."""
    out, kernel = tmp_path / "run.json", tmp_path / "zeros.py"
    kernel.write_text(
        "import numpy as np\n\ndef zeros(A, x):\n    return np.zeros(A.shape[:2], A.dtype)\n"
    )
    done = engine_process(
        "run", f"--kernel={kernel}:zeros", "--strategy=zeros", "--matrices=8", "--dim=4",
        "--repeats=3", "--no-history", "--progress=none", f"--json={out}",
    )  # fmt: skip
    assert done.returncode == 3, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: no variant produced a correct result (1 wrong)")
    assert out.exists()  # measured and saved, and said


def test_a_run_with_one_correct_variant_exits_0(tmp_path):
    done = run_cli(
        "run", "--strategy=numpy", "--matrices=8", "--dim=4", "--no-history",
        "--progress=none", "--repeats=3",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr

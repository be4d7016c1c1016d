"""Documented environment variables are fields like flags: an empty, malformed or out-of-range
value is refused in one line naming it (exit 2, before any work), never replaced."""

from __future__ import annotations

import pytest

from engine.machine.settings import VARIABLES, check_environment, read
from engine.run_settings.fields import ConfigError
from tests.cli import engine_process, run_cli

BAD = [
    ("MATVEC_PROBE_BUFFER_BYTES", "abc"),
    ("MATVEC_PROBE_BUFFER_BYTES", "12"),
    ("MATVEC_KERNEL_CALL_LIMIT_S", "-1"),
    ("MATVEC_KERNEL_CALL_LIMIT_S", "nan"),
    ("MATVEC_WORKER_IDLE_S", "abc"),
    ("MATVEC_TENSORFLOW_IMPORT_LIMIT_S", "0"),
    ("MATVEC_NICENESS", "100"),
    ("MATVEC_JAX_PROCESSES", "²"),
    ("MATVEC_JAX_PROCESS_ID", "-1"),
    ("MATVEC_END_WITH_PARENT", "yes"),
    ("MATVEC_HISTORY", ""),
    ("MATVEC_QUEUE_DIR", "  "),
]


@pytest.mark.parametrize(("name", "value"), BAD)
def test_a_bad_value_is_refused_naming_the_variable_and_the_value(name, value):
    with pytest.raises(ConfigError) as refused:
        check_environment({name: value})
    assert str(refused.value).startswith(f"{name}: ")
    assert "empty" in str(refused.value) or repr(value) in str(refused.value)


@pytest.mark.parametrize(("name", "value"), BAD[:8])
def test_the_command_line_refuses_it_in_one_line_before_any_work(name, value, monkeypatch):
    monkeypatch.setenv(name, value)
    done = run_cli("strategies")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {name}: ")


def test_good_values_are_read_as_numbers():
    assert read("MATVEC_PROBE_BUFFER_BYTES", {"MATVEC_PROBE_BUFFER_BYTES": "1048576"}) == 1 << 20
    assert read("MATVEC_KERNEL_CALL_LIMIT_S", {"MATVEC_KERNEL_CALL_LIMIT_S": "2.5"}) == 2.5
    assert read("MATVEC_JAX_PROCESSES", {}) is None
    check_environment({name: "" for name in ()})  # nothing set: nothing to refuse


def test_every_documented_variable_has_a_row():
    """The docs' variables are the table's (the tool's children's are marked internal)."""
    from tests.conftest import ROOT

    documented = set()
    for page in [*(ROOT / "docs").glob("*.md"), ROOT / "README.md"]:
        documented |= {w.strip("`$,.();:") for w in page.read_text().split() if "MATVEC_" in w}
    documented = {w[w.index("MATVEC_") :] for w in documented}
    documented = {w.split("=")[0].rstrip("`'\"") for w in documented}
    testing_only = {"MATVEC_TORCH_XLA_PYTHON"}
    assert documented - testing_only <= set(VARIABLES)


def test_a_parent_pid_from_a_users_shell_is_named_not_obeyed():
    """`MATVEC_PARENT_PID=1` once ended every run at once with exit 143 and no word."""
    done = engine_process("strategies", env={"MATVEC_PARENT_PID": "1"})
    assert done.returncode == 2
    assert "MATVEC_PARENT_PID: names process 1" in done.stderr and "unset it" in done.stderr

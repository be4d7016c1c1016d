"""A kernel that leaves a process behind (a double fork, `setsid()`, its descriptors kept):
the run no longer waits on it (603 s for a 600 s sleep, reported `ok` without a word); the
process is ended once the kernel's own process has, and the result says so."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.cli import engine_process
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "user_kernels"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:  # a zombie (ended, not yet reaped) is gone
        return handle.read().split(") ")[-1][:1] != "Z"


@pytest.mark.slow  # a real engine process and the kernel's own
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds pipe holders through /proc")
@pytest.mark.parametrize("kernel", ["escapes", "escapes_closed"])
def test_a_kernel_that_leaves_a_process_behind_does_not_hold_the_run(kernel, tmp_path):
    """`escapes_closed`'s grandchild also closes every descriptor: only its kernel's process,
    its subreaper, can still find it (it outlived the run, unreported)."""
    out, pid_file = tmp_path / "run.json", tmp_path / "escaped.pid"
    done = engine_process(
        "run", "--strategy=numpy", f"--kernel={FIXTURES / 'numpy_kernels.py'}:{kernel}",
        "--matrices=40", "--dim=6", "--repeats=3", "--time-budget=2", f"--json={out}",
        "--no-history", "--progress=none",
        timeout=300,  # the guard against a hang; the grandchild would sleep 600 s
        env={"ESCAPED_PID_FILE": str(pid_file)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result = next(r for r in json.loads(out.read_text())["results"] if r["variant"] == kernel)
    assert result["status"] == "ok" and result["correct"], result
    pid = int(pid_file.read_text())
    said = [w for w in result["warnings"] if "left 1 process(es) running" in w]
    assert said and f"pid {pid}" in said[0] and "they were ended" in said[0]
    for _ in range(50):  # SIGKILL was sent; it is reaped by init
        if not alive(pid):
            break
        time.sleep(0.1)
    assert not alive(pid)

"""How busy the machine was: the run's own work, its finished framework processes included, is
never counted as another process's, and a process that is not the run's is."""

from __future__ import annotations

import subprocess
import sys
import time

from engine.machine import load

BURN = "import time\nend = time.process_time() + {seconds}\nwhile time.process_time() < end: pass\n"


def test_a_child_that_ended_before_the_stop_is_the_runs_own_work():
    before = load._own_cpu_s()
    subprocess.run([sys.executable, "-c", BURN.format(seconds=1.5)], check=True, timeout=120)
    # The child used 1.5 CPU-s and was waited for: ours (it read as another process's before).
    assert load._own_cpu_s() - before >= 1.4


def test_a_process_that_is_not_ours_is_not_counted_as_ours(tmp_path):
    done = tmp_path / "done"
    burn = BURN.format(seconds=1.0) + f"open({str(done)!r}, 'w').close()\n"
    before = load._own_cpu_s()
    # Started through a shell that exits at once: the burner is orphaned, no child of ours.
    subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -c "$0" >/dev/null 2>&1 &', burn], check=True, timeout=60
    )
    deadline = time.monotonic() + 120
    while not done.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert done.exists()
    assert load._own_cpu_s() - before < 0.5

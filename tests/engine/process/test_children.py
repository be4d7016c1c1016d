"""Child processes: a whole group ended, the tail of stderr kept, the parent's stop signals
passed on, a child that dies with a parent killed outright, and nothing left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from engine.process.children import (
    Child,
    end_children,
    engine_command,
    engine_environment,
    live_children,
    run_to_end,
)
from tests.conftest import ROOT


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(predicate, timeout_s: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


GRANDPARENT = textwrap.dedent(
    """
    import subprocess, sys, time
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print(grandchild.pid, flush=True)
    print("last words", file=sys.stderr, flush=True)
    time.sleep(600)
    """
)


def test_ending_a_child_ends_everything_it_started_and_keeps_its_last_line():
    child = Child([sys.executable, "-c", GRANDPARENT])
    grandchild = int(child.process.stdout.readline())
    assert wait_until(lambda: child.last_line() == "last words")
    assert child in live_children()
    child.end(grace_s=5)
    assert wait_until(lambda: not alive(grandchild))
    assert child.poll() is not None and child not in live_children()


def test_end_children_ends_every_live_child():
    children = [Child([sys.executable, "-c", "import time; time.sleep(600)"]) for _ in range(2)]
    end_children()
    assert all(c.poll() is not None for c in children)


PARENT = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {root!r})
    from engine.process.children import Child, end_children_on_signals
    from engine.process.parent_watch import die_with_parent
    end_children_on_signals()
    child = Child([sys.executable, "-c", {child!r}])
    print(child.pid, flush=True)
    time.sleep(600)
    """
)
SLEEPER = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {root!r})
    from engine.process.parent_watch import die_with_parent
    die_with_parent()
    time.sleep(600)
    """
).format(root=str(ROOT))


def start_parent() -> tuple[subprocess.Popen, int]:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT.format(root=str(ROOT), child=SLEEPER)],
        stdout=subprocess.PIPE,
        text=True,
    )
    child_pid = int(parent.stdout.readline())
    return parent, child_pid


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_stop_signal_to_the_parent_ends_its_children(signum):
    parent, child = start_parent()
    assert alive(child)
    parent.send_signal(signum)
    parent.wait(timeout=30)
    assert wait_until(lambda: not alive(child))


def test_a_child_dies_with_a_parent_killed_outright():
    parent, child = start_parent()
    time.sleep(0.5)  # the child has asked for its parent-death signal
    parent.kill()
    parent.wait(timeout=30)
    assert wait_until(lambda: not alive(child))


def test_a_child_started_off_the_main_thread_is_not_tied_to_that_thread():
    import threading

    made: list[Child] = []
    thread = threading.Thread(
        target=lambda: made.append(Child([sys.executable, "-c", SLEEPER])), daemon=True
    )
    thread.start()
    thread.join()
    time.sleep(1.0)  # the starting thread is gone: the child must still run
    assert made[0].poll() is None
    made[0].end()


def test_a_niceness_asked_for_is_applied_in_the_child():
    script = (
        f"import sys, os; sys.path.insert(0, {str(ROOT)!r}); "
        "from engine.process.parent_watch import die_with_parent; die_with_parent(); "
        "print(os.nice(0))"
    )
    child = Child([sys.executable, "-c", script], niceness=5)
    out, _ = child.process.communicate(timeout=30)
    assert int(out) == os.nice(0) + 5


def test_wait_or_end_ends_the_whole_group_past_its_time():
    child = Child([sys.executable, "-c", GRANDPARENT])
    grandchild = int(child.process.stdout.readline())
    ended = child.wait_or_end(0.5)
    assert ended.timed_out and ended.code < 0
    assert wait_until(lambda: not alive(grandchild))
    assert child.wait_or_end(5) == type(ended)(ended.code)  # ended: no time to wait out


def test_run_to_end_reads_everything_a_child_wrote_and_its_exit_code():
    script = "import sys; print('a'); print('b'); print('why', file=sys.stderr); sys.exit(3)"
    done = run_to_end(Child([sys.executable, "-c", script]), timeout_s=60)
    assert (done.code, done.stdout, done.stderr_tail) == (3, "a\nb\n", ("why",))
    assert not done.ended.timed_out


def test_an_engine_child_imports_the_engine_from_anywhere_with_quiet_tensorflow(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    code = "import engine, os; print(os.environ['TF_CPP_MIN_LOG_LEVEL'])"
    done = run_to_end(Child([sys.executable, "-c", code], env=engine_environment(), cwd=tmp_path))
    assert (done.code, done.stdout.strip()) == (0, "2"), done.stderr_tail
    assert engine_environment(TF_CPP_MIN_LOG_LEVEL="3")["TF_CPP_MIN_LOG_LEVEL"] == "3"
    assert engine_command("devices") == [sys.executable, "-m", "engine", "devices"]


SWALLOWS_AN_INTERRUPT = textwrap.dedent(
    """
    import contextlib, os, signal, sys
    sys.path.insert(0, {root!r})
    from engine.process.children import end_children_on_signals
    from engine.process.interrupts import interrupt_ends_at_once
    end_children_on_signals()
    window = interrupt_ends_at_once("error: ended at once")
    with window if sys.argv[1] == "starting" else contextlib.nullcontext():
        try:  # what an import's callback does with a KeyboardInterrupt raised inside it
            os.kill(os.getpid(), signal.SIGINT)
            sum(range(100_000))
        except BaseException:
            pass
    print("went on", flush=True)
    """
).format(root=str(ROOT))


@pytest.mark.parametrize("where", ["starting", "measuring"])
def test_sigint_while_starting_ends_at_once_where_a_swallowed_interrupt_would_go_on(where):
    """Inside `interrupt_ends_at_once`, SIGINT ends the process (its line, exit 130) before
    any `except` can swallow it; outside, it is a KeyboardInterrupt like any other."""
    done = subprocess.run(
        [sys.executable, "-c", SWALLOWS_AN_INTERRUPT, where],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if where == "starting":
        assert (done.returncode, done.stdout) == (130, ""), done.stderr[-2000:]
        assert done.stderr.strip().splitlines()[-1] == "error: ended at once"
    else:
        assert (done.returncode, done.stdout) == (0, "went on\n"), done.stderr[-2000:]

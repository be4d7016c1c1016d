"""The machine-wide queue with real processes: one run at a time, first come first served."""

import multiprocessing
import time

from engine.storage.run_queue import RunQueue


def hold(directory, log_path, name, seconds):
    queue = RunQueue(directory)
    with queue.turn():
        with open(log_path, "a") as log:
            log.write(f"start {name} {time.monotonic()}\n")
        time.sleep(seconds)
        with open(log_path, "a") as log:
            log.write(f"end {name} {time.monotonic()}\n")


def wait_for(condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def tickets(directory):
    return list(directory.glob("*.ticket")) if directory.exists() else []


def arrived(directory, log):
    """Processes that have taken a ticket: those waiting or running, plus those finished."""
    finished = log.read_text().count("end ") if log.exists() else 0
    return len(tickets(directory)) + finished


def test_runs_never_overlap_and_keep_arrival_order(tmp_path):
    log = tmp_path / "log"
    ctx = multiprocessing.get_context("spawn")
    procs = []
    for count, name in enumerate(("a", "b", "c"), start=1):
        proc = ctx.Process(target=hold, args=(tmp_path / "q", log, name, 1.0))
        proc.start()
        procs.append(proc)
        wait_for(lambda c=count: arrived(tmp_path / "q", log) >= c)  # arrival order a, b, c
    for proc in procs:
        proc.join(30)
        assert proc.exitcode == 0
    events = [line.split() for line in log.read_text().splitlines()]
    assert [e[:2] for e in events] == [
        ["start", "a"],
        ["end", "a"],
        ["start", "b"],
        ["end", "b"],
        ["start", "c"],
        ["end", "c"],
    ]


def test_a_killed_holder_does_not_block_the_queue(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    holder = ctx.Process(target=hold, args=(tmp_path / "q", tmp_path / "log", "x", 60))
    holder.start()
    wait_for(lambda: (tmp_path / "log").exists())
    holder.kill()
    holder.join()
    positions = []
    with RunQueue(tmp_path / "q").turn(on_wait=positions.append):
        pass
    assert not list((tmp_path / "q").glob("*.ticket"))


def test_waiters_see_their_position(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    holder = ctx.Process(target=hold, args=(tmp_path / "q", tmp_path / "log", "x", 1.5))
    holder.start()
    wait_for(lambda: (tmp_path / "log").exists())
    positions = []
    with RunQueue(tmp_path / "q").turn(on_wait=positions.append):
        pass
    holder.join()
    assert positions[0] == 1

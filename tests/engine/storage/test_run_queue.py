"""The machine-wide queue with real processes: one run at a time, first come first served."""

import multiprocessing
import os
import time
from pathlib import Path

import pytest

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


def test_a_reused_pid_in_a_ticket_blocks_nothing(tmp_path):
    """A ticket left by a dead process, named with a PID that now belongs to a live one."""
    queue_dir = tmp_path / "q"
    queue = RunQueue(queue_dir)
    import os

    stale = queue_dir / f"{1:020d}-{os.getppid()}-deadbeef.ticket"  # a live PID: ours' parent
    stale.touch()
    with queue.turn():
        pass  # would wait forever if liveness were the PID
    assert not stale.exists()


def test_files_that_are_not_tickets_are_ignored(tmp_path):
    queue_dir = tmp_path / "q"
    queue = RunQueue(queue_dir)
    for name in ("garbage.ticket", "x-y.ticket", "notes.txt", "1-2-3.ticket"):
        (queue_dir / name).write_text("planted")
    with queue.turn():
        pass
    assert (queue_dir / "garbage.ticket").exists()  # not ours to judge, never deleted


def test_a_queue_directory_others_can_write_is_refused(tmp_path):
    import pytest

    from engine.run_settings.fields import ConfigError

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(ConfigError, match=r"MATVEC_QUEUE_DIR: .* writable by other users"):
        RunQueue(shared)
    created = RunQueue(tmp_path / "fresh").directory
    assert created.stat().st_mode & 0o777 == 0o700


def test_an_unusable_queue_directory_is_a_one_line_refusal(tmp_path):
    import pytest

    from engine.run_settings.fields import ConfigError

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="MATVEC_QUEUE_DIR"):
        RunQueue(blocker / "q")


@pytest.mark.timeout(120)  # a hang is the failure this guards against
def test_anything_in_the_queue_that_is_not_a_ticket_file_is_ignored(tmp_path):
    """A FIFO once made every run wait forever; a socket or a directory with a ticket's name
    crashed it. None of them is a ticket: the run takes its turn at once."""
    import socket
    import tempfile

    directory = Path(tempfile.mkdtemp(prefix="q", dir="/tmp"))  # a socket's path is short
    directory.chmod(0o700)
    queue = RunQueue(directory)
    name = "00000000000000000001-1-0123abcd.ticket"
    os.mkfifo(directory / name)
    (directory / name.replace("1-", "2-", 1)).mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(directory / name.replace("1-", "3-", 1)))
    (directory / name.replace("1-", "4-", 1)).symlink_to("/dev/zero")
    try:
        with queue.turn():  # a FIFO opened for reading would block here forever
            assert queue.position(next(directory.glob("*.ticket"))) >= 0
    finally:
        server.close()
    assert (directory / name).exists()  # not ours: left where it is


def test_a_queue_directory_is_made_one_level_deep_only(tmp_path):
    from engine.run_settings.fields import ConfigError

    with pytest.raises(ConfigError, match=r"its parent .* is not an existing directory"):
        RunQueue(tmp_path / "missing" / "queue")
    assert not (tmp_path / "missing").exists()
    assert RunQueue(tmp_path / "queue").directory.is_dir()

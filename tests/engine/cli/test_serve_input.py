"""The warm worker's input, without a worker: every complete line is served however the lines
arrive, a bad request is one line and never a crash, and the idle timeout is checked."""

import contextlib
import json
import os
import threading

import pytest

from engine.cli.main import main
from engine.cli.serve import MAX_IDLE_TIMEOUT_S, REQUEST_SHAPE, LineReader, handle, run_arguments


@pytest.fixture
def pipe():
    read, write = os.pipe()
    yield LineReader(read), write
    for fd in (read, write):
        with contextlib.suppress(OSError):
            os.close(fd)


def test_two_requests_in_one_write_are_both_served_while_the_input_stays_open(pipe):
    reader, write = pipe
    os.write(write, b'{"run": ["--help"]}\n{"run": ["--version"]}\n')
    assert reader.next_line(5) == '{"run": ["--help"]}'
    # From the buffer: waiting on the descriptor instead would time out and return None.
    assert reader.next_line(1.0) == '{"run": ["--version"]}'
    assert reader.next_line(0.05) is None  # nothing more: the timeout, not the end


def test_a_line_split_over_writes_is_one_request_and_the_end_of_input_is_seen(pipe):
    reader, write = pipe
    os.write(write, b'{"run": [')
    os.write(write, b'"--help"]}\n')
    assert reader.next_line(5) == '{"run": ["--help"]}'
    os.write(write, b"tail without newline")
    os.close(write)
    assert reader.next_line(5) == "tail without newline"
    assert reader.next_line(5) == ""


def test_blank_lines_are_not_the_end_of_input(pipe):
    reader, write = pipe
    os.write(write, b"\n\n")
    assert reader.next_line(5).strip() == "" and reader.next_line(5) != ""


def test_a_request_nested_very_deep_is_the_request_shape_error_not_a_crash(capsys):
    line = "[" * 100_000 + "]" * 100_000
    assert run_arguments(line) is None
    deep_object = '{"run": ' + "[" * 100_000 + "]" * 100_000 + "}"
    outcome = handle(deep_object, None, main)
    assert outcome.code == 2 and outcome.message == REQUEST_SHAPE
    assert "Traceback" not in capsys.readouterr().err


def test_undecodable_bytes_in_a_request_are_refused_naming_the_label(capsys):
    line = json.dumps({"run": ["--label", "bad\udcff", "--strategy", "numpy"]})
    outcome = handle(line, None, main)
    assert outcome.code == 2 and outcome.message.startswith("label: must be valid UTF-8")


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "-inf", "soon"])
def test_a_bad_idle_timeout_is_one_line_naming_the_flag(value, capsys):
    assert main(["serve", "--idle-timeout", value]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--idle-timeout" in error


def test_a_huge_idle_timeout_is_capped():
    from engine.cli.serve import idle_timeout

    assert idle_timeout("1e10") == MAX_IDLE_TIMEOUT_S
    assert idle_timeout("2.5") == 2.5


def test_the_dashboards_idle_setting_is_read_as_the_variable_says(monkeypatch):
    from dashboard.services.worker import DEFAULT_IDLE_TIMEOUT_S, idle_timeout_s

    monkeypatch.delenv("MATVEC_WORKER_IDLE_S", raising=False)
    assert idle_timeout_s() == DEFAULT_IDLE_TIMEOUT_S
    monkeypatch.setenv("MATVEC_WORKER_IDLE_S", "30")
    assert idle_timeout_s() == 30.0


def lines_read(payload: bytes) -> list[str]:
    """Every line a LineReader serves of `payload`, written into a pipe by another thread."""
    read_end, write_end = os.pipe()
    reader = LineReader(read_end)
    writer = threading.Thread(target=lambda: (os.write(write_end, payload), os.close(write_end)))
    writer.start()
    lines = []
    while (line := reader.next_line(10)) not in ("", None):
        lines.append(line)
    writer.join()
    os.close(read_end)
    return lines


def test_one_over_long_line_is_one_request_answered_once():
    """A 3 MiB line (three times the limit) gets one answer, and the next request its own."""
    payload = b"x" * (3 * (1 << 20)) + b'\n{"run": ["--help"]}\n'
    assert lines_read(payload) == ["{}", '{"run": ["--help"]}']


def test_an_over_long_last_line_without_its_newline_is_one_request():
    assert lines_read(b"y" * (2 * (1 << 20) + 5)) == ["{}"]

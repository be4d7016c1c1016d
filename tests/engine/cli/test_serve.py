"""`python -m engine serve`, the warm worker, through a real process: the request protocol,
reuse between runs, refusals that leave it usable, and how it ends."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.process.parent_watch import END_WITH_PARENT
from engine.results.run_result import RunResult
from tests.conftest import ROOT

SMALL = ["--matrices", "40", "--dim", "6", "--cols", "5", "--repeats", "3", "--warmup", "1"]


def serve(lines: list[str], *flags: str, timeout: float = 300) -> tuple[list[dict], str, int]:
    """Feed `lines` to one worker; returns its JSON events, its stderr and its exit code."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-m", "engine", "serve", *flags],
        cwd=ROOT,
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return events, done.stderr, done.returncode


# `backends.tensorflow.process.KEPT_FUNCTION`'s words (this module imports no TensorFlow).
KEPT_WORDS = "its function was traced and compiled earlier in this warm worker"


def start_worker(*flags: str, stderr: int = subprocess.PIPE) -> subprocess.Popen:
    """A `serve` process with pipes to drive it by hand."""
    return subprocess.Popen(
        [sys.executable, "-m", "engine", "serve", *flags],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )


def serve_after_ready(lines: list[str], *flags: str) -> tuple[list[dict], str, int]:
    """As `serve`, with `lines` sent only once the worker has said it is ready (its prewarm
    done): a page clicked after its worker started."""
    worker = start_worker(*flags)
    try:
        ready = worker.stdout.readline()
        out, err = worker.communicate("".join(line + "\n" for line in lines), timeout=300)
    finally:
        worker.kill()
        worker.wait()
    events = [json.loads(line) for line in (ready + out).splitlines() if line.strip()]
    return events, err, worker.returncode


def request(*args: str) -> str:
    return json.dumps({"run": [*SMALL, "--no-history", "--progress", "jsonl", *args]})


def exits(events: list[dict]) -> list[dict]:
    return [e for e in events if e["event"] == "exit"]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    out = tmp_path_factory.mktemp("serve")
    lines = [
        request("--strategy", "einsum,numpy", "--json", str(out / "first.json")),
        "not json",
        json.dumps({"run": "--strategy numpy"}),
        request("--matrices", "0"),
        request("--mode", "replicated", "--replicas", "2", "--strategy", "einsum"),
        json.dumps({"run": ["--help"]}),
        request("--strategy", "einsum,numpy", "--json", str(out / "second.json")),
        json.dumps({"run": [*SMALL, "--no-history", "--progress", "none", "--strategy=numpy"]}),
    ]
    events, stderr, code = serve(lines)
    return events, stderr, code, out


def test_every_request_ends_with_its_exit_line(session):
    events, _, code, _ = session
    assert code == 0
    assert [e["code"] for e in exits(events)] == [0, 2, 2, 2, 2, 0, 0, 0]  # --help: exit 0


def test_stdout_carries_only_protocol_lines(session):
    """Help text and a request's summary table (no `--progress jsonl`) go to stderr: every
    line on stdout is a JSON event (`serve` above reads each one as JSON)."""
    events, stderr, _, _ = session
    assert all("event" in e for e in events)
    assert "usage:" in stderr and "strategy" in stderr and "median" in stderr


def test_bad_requests_get_one_line_and_the_worker_stays_usable(session):
    events, stderr, _, _ = session
    messages = [e["message"] for e in exits(events)]
    assert messages[1].startswith("request: expected one JSON object per line")
    assert messages[2] == messages[1]
    assert messages[3].startswith("matrices: must be an integer from 1 to")
    assert messages[4].startswith("replicas: this worker's devices are laid out for 1 replica")
    assert "Traceback" not in stderr


def test_the_second_run_is_warm_and_reuses_the_inputs(session):
    *_, out = session
    first = RunResult.from_dict(json.loads((out / "first.json").read_text()))
    second = RunResult.from_dict(json.loads((out / "second.json").read_text()))
    assert first.sampling["worker"]["warm"] is False
    assert second.sampling["worker"] == {"warm": True, "runs_before": 1, "inputs_reused": True}
    assert all(r.status == "ok" and r.correct for r in second.results)
    assert second.timings["startup_s"] >= 0 and second.timings["total_s"] > 0


def test_the_peer_frameworks_process_is_kept_for_the_next_run(tmp_path):
    """A second run with a JAX variant is served by the first run's JAX process, its function
    kept (and said so); the process ends with the worker."""
    from engine.catalogue.catalog import strategy_info
    from engine.execution.peers.kept import KEPT_FUNCTION

    if not strategy_info("jax_einsum").installed:
        pytest.skip("jax is not installed (requirements-peers.txt)")
    paths = [tmp_path / "first.json", tmp_path / "second.json"]
    lines = [request("--strategy", "jax_einsum,numpy", "--json", str(path)) for path in paths]
    events, _, code = serve(lines)
    assert code == 0 and [e["code"] for e in exits(events)] == [0, 0]
    first, second = (RunResult.from_dict(json.loads(path.read_text())) for path in paths)
    for run, before in ((first, 0), (second, 1)):
        assert run.environment.frameworks["jax"]["process"]["runs_before"] == before
        jax = next(r for r in run.results if r.variant == "jax_einsum")
        assert jax.status == "ok" and jax.correct
        assert (KEPT_FUNCTION in jax.notes) is (before == 1)


def test_results_stream_before_the_run_is_over(session):
    events, *_ = session
    first_run = events[: events.index(exits(events)[0])]
    names = [e["event"] for e in first_run]
    streamed = [e["result"]["variant"] for e in first_run if e["event"] == "variant_result"]
    assert sorted(streamed) == ["einsum", "numpy"]
    assert names.index("variant_result") < names.index("done") < names.index("result")


def test_the_worker_ends_when_idle_with_its_input_still_open():
    worker = start_worker("--idle-timeout", "0.5")  # its input never closed: only idle ends it
    try:
        code = worker.wait(timeout=120)
        assert code == 0 and worker.stdout.read() == '{"event": "ready"}\n'  # and nothing more
    finally:
        worker.kill()
        worker.wait()
        worker.stdin.close()


def test_end_of_input_ends_the_worker():
    events, stderr, code = serve([], timeout=120)
    assert code == 0 and events == [{"event": "ready"}] and "Traceback" not in stderr


@pytest.mark.parametrize("waiting", [False, True], ids=["sent when ready", "waiting at start"])
def test_a_prewarmed_workers_first_run_probes_briefly_unless_it_was_waiting(tmp_path, waiting):
    """Sent once the worker said it is ready, the first run finds the prewarm's full round of
    probes done (its readings dropped) and takes the short round: one kernel, the fastest of
    that round, before and after. Already waiting when TensorFlow came up (a page clicked at
    once), it is not kept waiting for that round, and probes in full itself."""
    out = tmp_path / "first.json"
    lines = [request("--strategy", "numpy", "--json", str(out))]
    send = serve if waiting else serve_after_ready
    events, stderr, code = send(lines, "--prewarm", "--replicas", "1")
    assert code == 0 and [e["code"] for e in exits(events)] == [0]
    assert events[0] == {"event": "ready"} and "prewarm skipped" not in stderr
    result = RunResult.from_dict(json.loads(out.read_text()))
    memory = result.peak.probes
    assert {p.when for p in memory} == {"before", "after"}  # nothing of the prewarm's is kept
    assert result.sampling["worker"]["warm"] is False  # no run had finished in it
    if waiting:
        before = [p for p in memory if p.when == "before"]
        assert len(before) == 3 and all(len(p.samples_s) == 15 for p in before)
        return
    assert len({p.kernel for p in memory}) == 1  # the short round: the fastest kernel only
    assert all(len(p.samples_s) < 15 for p in memory)  # not the full round's 15 samples
    for level in result.peak.levels or ():
        assert all(len(p.samples_s) < 15 for p in level.probes), level


def test_a_worker_told_what_to_expect_has_its_inputs_ready_for_that_run_only(tmp_path):
    """`--expect` (the dashboard's settings as its page opened): the first run with those
    settings finds its inputs made and its graph strategies' functions traced; another shape
    makes its own."""
    expected = [*SMALL, "--strategy=numpy,einsum"]
    first, other = tmp_path / "first.json", tmp_path / "other.json"
    lines = [
        request("--strategy", "numpy,einsum", "--json", str(first)),
        request("--strategy", "numpy", "--matrices", "41", "--json", str(other)),
    ]
    events, stderr, code = serve_after_ready(lines, "--prewarm", "--expect", json.dumps(expected))
    assert code == 0 and [e["code"] for e in exits(events)] == [0, 0]
    assert "prewarm skipped" not in stderr
    found = RunResult.from_dict(json.loads(first.read_text()))
    assert found.worker["inputs_reused"] is True and found.worker["warm"] is False
    kept = {r.variant for r in found.results if any(KEPT_WORDS in n for n in r.notes)}
    assert kept == {"einsum"}  # traced by the prewarm; NumPy has nothing to trace
    assert all(r.correct for r in found.results)
    assert RunResult.from_dict(json.loads(other.read_text())).worker["inputs_reused"] is False


def test_an_expected_run_that_cannot_be_made_skips_only_the_prewarm():
    events, stderr, code = serve_after_ready(
        [request("--strategy", "numpy")], "--prewarm", "--expect", '["--matrices=0"]'
    )
    assert code == 0 and [e["code"] for e in exits(events)] == [0]
    assert "warning: prewarm skipped" in stderr and "Traceback" not in stderr


def test_expect_that_is_not_a_list_of_flags_is_refused_in_one_line():
    _, stderr, code = serve([], "--prewarm", "--expect", '{"matrices": 3}')
    assert code == 2 and "--expect" in stderr and "Traceback" not in stderr


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 128 + 15), (signal.SIGINT, 130)])
def test_a_stop_signal_mid_request_ends_the_worker_not_only_the_request(signum, code):
    """The signal, taken in the middle of a long run, ends the worker itself (and any children
    of the run), which does not go on to the next request waiting on its input."""
    long_run = request(
        "--strategy", "numpy", "--sampling", "fixed", "--repeats", "100000", "--time-budget", "600"
    )
    worker = start_worker(stderr=subprocess.DEVNULL)
    try:
        worker.stdin.write(long_run + "\n" + request("--strategy", "numpy") + "\n")
        worker.stdin.flush()  # left open: only the signal can end it
        for line in worker.stdout:
            if json.loads(line)["event"] == "sample":
                break  # the run is measuring
        worker.send_signal(signum)
        assert worker.wait(timeout=60) == code
        rest = [json.loads(line) for line in worker.stdout.read().splitlines() if line.strip()]
        # One request, one exit line, even when a signal cuts it short; never the next one's.
        assert len(exits(rest)) == 1 and exits(rest)[0]["code"] == code
    finally:
        worker.kill()
        worker.wait()


def test_a_stop_signal_while_prewarming_ends_the_worker(monkeypatch):
    """A refused `--expect` (argparse's SystemExit) skips the prewarm; a stop signal taken
    while prewarming (also a SystemExit) is never mistaken for one: the worker ends."""
    from engine.cli import serve as serve_module
    from engine.process.children import StopRequested

    class Stopped:
        def prewarm(self, replicas, threads):
            raise StopRequested(143)

    monkeypatch.setattr(serve_module, "probe_kind", lambda: "CPU")
    with pytest.raises(StopRequested):
        serve_module.prewarm(Stopped(), 1, None)

    class Refused:
        def prewarm_probes(self):
            raise AssertionError("not reached: the expected run is read first")

    def bad_flags():
        raise SystemExit(2)

    serve_module.prewarm_queued(Refused(), bad_flags)  # skipped, said on stderr

    class StoppedInQueue:
        def prewarm_probes(self):
            raise StopRequested(143)

    with pytest.raises(StopRequested):
        serve_module.prewarm_queued(StoppedInQueue())


LAUNCHER = """
import os, subprocess, sys, threading, time
def start():  # from a thread that is not the main one, as a Streamlit script starts it
    worker = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--prewarm"],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, cwd=sys.argv[1])
    print(worker.pid, flush=True)
thread = threading.Thread(target=start)
thread.start()
thread.join()
time.sleep(5)  # the parent lives on a while after starting it, as a dashboard does
os._exit(0)  # then ends; the worker's stdin stays open in no one
"""


def alive(pid: int) -> bool:
    """Running (an ended process not yet reaped by whoever adopted it is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_a_worker_whose_parent_ended_ends_even_while_it_is_still_starting():
    """A TensorFlow whose import hangs keeps the worker starting for its whole limit (300 s
    here), reading no end of input; its parent's end still ends it, and its import check."""
    hanging = ROOT / "tests" / "fixtures" / "hanging_tensorflow"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(hanging)]),
        "MATVEC_TENSORFLOW_IMPORT_LIMIT_S": "300",
        END_WITH_PARENT: "1",  # as the dashboard starts it (`spawn_engine`)
    }
    env.pop("MATVEC_PARENT_PID", None)
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, str(ROOT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    worker = int(done.stdout.split()[0])
    try:
        for _ in range(300):  # up to 30 s: a second's poll, the SIGTERM, the children's end
            if not alive(worker):
                break
            time.sleep(0.1)
        assert not alive(worker), "the worker outlived its parent"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker, signal.SIGKILL)

"""One framework's process, spoken with: its request in, its token-marked lines out, and how
it ended in words (`spawn_peer`). The limits it runs under (the whole process's, each call's)
and the words for an end without a result (a signal, a native abort, a JAX cluster that never
formed) live here; `peers/parent.py` orchestrates the processes and merges their results.
"""

from __future__ import annotations

import json
import re
import secrets
import signal
import subprocess
import sys
from typing import Any

from engine.execution.peers.worker import RESULT_KEY, TOKEN_KEY
from engine.machine.jax_cluster import cluster_from_environment
from engine.measure.memory import input_set_bytes
from engine.process.children import Child, Exchanged, engine_environment, exchange
from engine.results.events import Progress, VariantDone, VariantStarted, event_from_dict
from engine.run_settings.config import BenchConfig
from engine.run_settings.user_kernels import call_limit_s

STARTUP_ALLOWANCE_S = 180.0  # importing a framework and compiling, on a slow shared machine
# A user kernel's process that says nothing for its call limit and this much more is ended
# from outside: its own limit (a signal in the process) can be caught by the kernel.
SILENCE_GRACE_S = 30.0


# A built-in call that does not return (a deadlocked device, a stuck compile) is stopped like
# a user kernel's: its process says nothing for the call limit and the grace, and is ended.
# The limit grows with the problem: a thousand times the time its inputs take to read at a
# slow 1 GB/s, at least the kernels' limit (which covers a first call's compile).
CALL_LIMIT_READS = 1000
SLOW_READ_BYTES_PER_S = 1e9


def call_limit_for(config: BenchConfig) -> float:
    """Seconds any call of a variant in a framework's process may take, scaled to the problem:
    at least `$MATVEC_KERNEL_CALL_LIMIT_S` (120 by default)."""
    scaled = CALL_LIMIT_READS * input_set_bytes(config) / SLOW_READ_BYTES_PER_S
    return max(call_limit_s(), scaled)


def process_timeout_s(config: BenchConfig, variants: int) -> float:
    """Generous: each variant's budget covers sampling only; first calls and checks add."""
    return STARTUP_ALLOWANCE_S + variants * (2 * config.time_budget_s + 60.0)


WORKER_COMMAND = (sys.executable, "-m", "engine.execution.peers.worker")


def starts_a_variant(line: str) -> bool:
    """A peer's line that says a variant's first calls begin (its import and inputs are done)."""
    try:
        data = json.loads(line)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("event") == VariantStarted.name


def spawn_peer(
    request: dict[str, Any],
    emit: Progress,
    timeout_s: float,
    command: list[str] | None = None,
    call_limit_s: float | None = None,
) -> tuple[Any, str]:
    """Run one peer process; returns its `peer_result` (None if it never said one) and, when
    it did not end cleanly, why (exit code and the last line it wrote to stderr). With
    `call_limit_s`: end it, from outside, once a variant's calls have begun and it writes
    nothing for that long and SILENCE_GRACE_S more (a call that does not return: a deadlocked
    device, a stuck compile, a user kernel that catches the signals of its own limit)."""
    child = Child(command or list(WORKER_COMMAND), stdin=subprocess.PIPE, env=engine_environment())
    lines = PeerLines(emit)
    try:
        ended = exchange(
            child,
            lines.request_text(request),
            lines,
            timeout_s=timeout_s,
            silence_s=silence_for(call_limit_s),
            silence_from=starts_a_variant,  # the kernel's calls begin: its silence is watched
        )
    finally:
        child.end(grace_s=0.5)  # nothing of it (or anything it started) outlives the run
    return lines.outcome(ended, child, timeout_s, call_limit_s)


def silence_for(call_limit_s: float | None) -> float | None:
    """How long a process whose variant's calls have begun may say nothing."""
    return None if call_limit_s is None else call_limit_s + SILENCE_GRACE_S


class PeerLines:
    """One request's lines from a framework's process: each must carry the request's token (a
    line without it was written by something else in that process, a kernel that found the
    channel, and is refused); its events are passed on, its result kept."""

    def __init__(self, emit: Progress) -> None:
        self.emit = emit
        self.token = secrets.token_hex(16)
        self.payload: Any = None
        self.answered = False
        self.forged = 0

    def request_text(self, request: dict[str, Any]) -> str:
        return json.dumps({**request, TOKEN_KEY: self.token})

    def __call__(self, line: str) -> None:
        try:
            data = json.loads(line)
        except ValueError:
            return
        if not isinstance(data, dict) or data.pop(TOKEN_KEY, None) != self.token:
            self.forged += 1
            return
        if RESULT_KEY in data:
            self.payload, self.answered = data[RESULT_KEY], True
            return
        event = event_from_dict(data)
        if event is not None and not isinstance(event, VariantDone):
            self.emit(event)

    def outcome(
        self, ended: Exchanged, child: Child, timeout_s: float, call_limit_s: float | None
    ) -> tuple[Any, str]:
        """Its result (None if it said none) and, when it did not end or answer cleanly, why."""
        payload = self.payload
        if self.forged and payload is None:
            return None, (
                f"wrote {self.forged} line(s) on the harness's channel that the harness did not "
                "write (refused) and reported no result of its own"
            )
        if self.forged and isinstance(payload, dict):  # refused, and said on its results
            payload[FORGED_KEY] = self.forged
        if ended.leftovers and isinstance(payload, dict):
            payload[LEFTOVER_KEY] = list(ended.leftovers)
        if ended.timed_out:
            return payload, f"timed out after {timeout_s:.0f} s and was stopped"
        if ended.silent:
            return payload, (
                f"did not return from a call within {call_limit_s:g} s "
                "and was ended from outside (the call limit for this problem; "
                "MATVEC_KERNEL_CALL_LIMIT_S sets its floor)"
            )
        if ended.code != 0:
            how = (
                f"by {signal.Signals(-ended.code).name}"
                if ended.code < 0 and -ended.code in signal.valid_signals()
                else f"with exit code {ended.code}"
            )
            words = last_words(child.last_line())
            return payload, f"{ENDED_PREFIX} {how}: {words}{cluster_hint()}"
        return payload, ""


NATIVE_FRAME = re.compile(r"^\s*(@\s+)?0x[0-9a-f]+\b|PyObject_|\(unknown\)\s*$")


def last_words(line: str) -> str:
    """A process's last line as its reason; a native stack frame is no reason ("@ 0x7f48…
    PyObject_Vectorcall", what an abort prints last): then none is given."""
    line = line.strip()
    return "no message" if not line or NATIVE_FRAME.search(line) else line[:500]


def cluster_hint() -> str:
    """For a process of a multi-process run (`machine/jax_cluster.py`) that ended without its
    result: where it was joined and what to check, in words instead of a stack address."""
    try:
        cluster = cluster_from_environment()
    except ValueError:
        return ""
    if cluster is None or cluster.processes < 2:
        return ""
    return (
        f" (it was process {cluster.process_id} of {cluster.processes} of the JAX run "
        f"coordinated at {cluster.coordinator}: another process ended first or never came "
        f"within MATVEC_JAX_JOIN_S; check that process 0 runs at that address and every "
        "process was started with the same MATVEC_JAX_PROCESSES and --replicas)"
    )


ENDED_PREFIX = "ended"  # "ended with exit code 7: ..." / "ended by SIGSEGV: ..."
FORGED_KEY = "forged_lines"  # set on a payload when lines without the token were refused
LEFTOVER_KEY = "leftover_processes"  # pids that held its output after it ended, ended

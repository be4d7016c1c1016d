"""The peer frameworks' variants (JAX, PyTorch), each framework in a process of its own.

The run starts one `peer_worker` process per framework *before* TensorFlow takes the device
(a TPU is held by one process at a time; JAX would preallocate a GPU), forwards its progress
events, and merges its results, validated by the same parser as any imported file, into the
one run. Every framework gets the same thread count. A framework that is not installed gives
`unsupported` with the install hint; a process that crashes, hangs or says something
unreadable fails only its own variants.
"""

from __future__ import annotations

import json
import re
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.execution.peer_worker import RESULT_KEY, TOKEN_KEY
from engine.execution.processes import runs_in_own_process
from engine.harness.recording import NOT_STARTED, blank_result
from engine.machine.host import last_level_cache_bytes, usable_cores
from engine.machine.jax_cluster import cluster_from_environment
from engine.measure.memory import bandwidth_buffer_bytes, input_set_bytes
from engine.measure.peak import Probe
from engine.measure.uncertainty import NoiseFloor
from engine.process.children import Child, engine_environment, exchange
from engine.results.decode import result_from_dict
from engine.results.events import (
    Phase,
    Progress,
    VariantDone,
    VariantStarted,
    event_from_dict,
)
from engine.results.model import StrategyResult
from engine.results.parts import read_probe
from engine.results.reader import ResultsRejected
from engine.spec.catalog import (
    ONE_THREAD,
    install_hint,
    own_process,
    strategy_info,
    variant_name,
)
from engine.spec.config import BenchConfig
from engine.spec.user_kernels import call_limit_s

STARTUP_ALLOWANCE_S = 180.0  # importing a framework and compiling, on a slow shared machine
# A user kernel's process that says nothing for its call limit and this much more is ended
# from outside: its own limit (a signal in the process) can be caught by the kernel.
SILENCE_GRACE_S = 30.0

Variant = tuple[str, str]


@dataclass
class PeerOutcome:
    results: dict[Variant, StrategyResult] = field(default_factory=dict)
    environments: dict[str, dict[str, Any]] = field(default_factory=dict)
    sampling: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Each accelerator peer's read probes of its own device, by framework.
    probes: dict[str, list[Probe]] = field(default_factory=dict)
    # SIGINT while a peer process measured: what finished before is kept, the rest skipped.
    interrupted: bool = False

    def device_probes(self) -> tuple[Probe, ...]:
        return tuple(p for found in self.probes.values() for p in found)


def peer_threads(config: BenchConfig) -> int:
    """The thread count every peer framework gets: the config's, else one per usable core
    (what TensorFlow and NumPy's BLAS pick by default)."""
    return config.threads or usable_cores()


def group_by_framework(
    variants: Iterable[Variant], run_framework_here: bool = True, mode: str = "single"
) -> dict[str, list[Variant]]:
    """The variants that run in processes of their own (`processes.py`), by process: a
    framework's together, each user kernel alone ("numpy:mine"), so one that hangs fails
    only itself, and a framework's one-thread points together ("torch@1thread")."""
    groups: dict[str, list[Variant]] = {}
    for strategy, option in variants:
        info = strategy_info(strategy)
        process = own_process(variant_name(strategy, option))
        if process or runs_in_own_process(info.framework, run_framework_here, mode):
            groups.setdefault(process or info.process, []).append((strategy, option))
    return groups


def _ended(config: BenchConfig, wanted: list[Variant], status: str, error: str) -> dict:
    ended = {}
    for strategy, option in wanted:
        result = blank_result(config, strategy, option, status)  # type: ignore[arg-type]
        result.error = error
        ended[(strategy, option)] = result
    return ended


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


WORKER_COMMAND = (sys.executable, "-m", "engine.execution.peer_worker")


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
    silence_s: float | None = None,
) -> tuple[Any, str]:
    """Run one peer process; returns its `peer_result` (None if it never said one) and, when
    it did not end cleanly, why (exit code and the last line it wrote to stderr). `silence_s`:
    end it, from outside, when it writes nothing for that long (a user kernel's call that does
    not return, even one that catches the signals of its own call limit)."""
    child = Child(command or list(WORKER_COMMAND), stdin=subprocess.PIPE, env=engine_environment())
    payload: list[Any] = [None]
    # Every line the worker writes carries this run's token; a line without it was written by
    # something else in that process (a kernel that found the channel) and is refused.
    token = secrets.token_hex(16)
    forged = [0]

    def on_line(line: str) -> None:
        try:
            data = json.loads(line)
        except ValueError:
            return
        if not isinstance(data, dict) or data.pop(TOKEN_KEY, None) != token:
            forged[0] += 1
            return
        if RESULT_KEY in data:
            payload[0] = data[RESULT_KEY]
            return
        event = event_from_dict(data)
        if event is not None and not isinstance(event, VariantDone):
            emit(event)

    try:
        ended = exchange(
            child,
            json.dumps({**request, TOKEN_KEY: token}),
            on_line,
            timeout_s=timeout_s,
            silence_s=silence_s,
            silence_from=starts_a_variant,  # the kernel's calls begin: its silence is watched
        )
    finally:
        child.end(grace_s=0.5)  # nothing of it (or anything it started) outlives the run
    if forged[0] and payload[0] is None:
        return None, (
            f"wrote {forged[0]} line(s) on the harness's channel that the harness did not "
            "write (refused) and reported no result of its own"
        )
    if forged[0] and isinstance(payload[0], dict):  # refused, and said on its results
        payload[0][FORGED_KEY] = forged[0]
    if ended.leftovers and isinstance(payload[0], dict):
        payload[0][LEFTOVER_KEY] = list(ended.leftovers)
    if ended.timed_out:
        return payload[0], f"timed out after {timeout_s:.0f} s and was stopped"
    if ended.silent:
        return payload[0], (
            f"did not return from a call within {silence_s - SILENCE_GRACE_S:g} s "
            "and was ended from outside (the call limit for this problem; "
            "MATVEC_KERNEL_CALL_LIMIT_S sets its floor)"
        )
    if ended.code != 0:
        how = (
            f"by {signal.Signals(-ended.code).name}"
            if ended.code < 0 and -ended.code in signal.valid_signals()
            else f"with exit code {ended.code}"
        )
        return payload[0], f"{ENDED_PREFIX} {how}: {last_words(child.last_line())}{cluster_hint()}"
    return payload[0], ""


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


def process_words(process: str) -> str:
    """Who a process's failure is told about: a user kernel's own process ("numpy:mine") is
    the kernel's, not its framework's (a kernel that exits ends it)."""
    framework, _, kernel = process.partition(":")
    if kernel:
        return f"the process of kernel {kernel}"
    return f"the {framework.partition('@')[0]} process"


def _results_from(
    config: BenchConfig, process: str, wanted: list[Variant], payload: Any, problem: str
) -> dict[Variant, StrategyResult]:
    framework = process.partition(":")[0].partition("@")[0]
    who = process_words(process)
    hint = f"{framework} could not be imported"
    if isinstance(payload, dict) and "import_error" in payload:
        return _ended(
            config,
            wanted,
            "unsupported",
            f"{hint}: {payload['import_error']}; {install_hint(framework)}",
        )
    if isinstance(payload, dict) and "error" in payload:
        return _ended(config, wanted, "failed", f"{who} failed: {payload['error']}")
    found: dict[Variant, StrategyResult] = {}
    entries = payload.get("results") if isinstance(payload, dict) else None
    if isinstance(entries, list):
        try:
            for index, entry in enumerate(entries):
                result = result_from_dict(entry, f"peers.{framework}.results[{index}]", config)
                found[(result.strategy, result.variant.partition("+")[2])] = result
        except ResultsRejected as error:
            return _ended(config, wanted, "failed", f"{who} said: {error}")
    forged = payload.get(FORGED_KEY) if isinstance(payload, dict) else None
    for result in found.values() if forged else ():
        result.warnings.append(
            f"its process wrote {forged} line(s) on the harness's channel that the harness "
            "did not write: refused, and only the harness's own lines were read"
        )
    left = payload.get(LEFTOVER_KEY) if isinstance(payload, dict) else None
    for result in found.values() if left else ():
        result.warnings.append(
            f"{who} left {len(left)} process(es) running that held its output after it ended "
            f"(pid {', '.join(map(str, left))}): they were ended; work they did is not in the "
            "timed calls"
        )
    missing = [v for v in wanted if v not in found]
    if problem.startswith(ENDED_PREFIX + " ") and ":" in process:  # a kernel's own process
        problem = f"ended: the kernel ended the process ({problem.partition(' ')[2]})"
    why = problem or "ended without reporting this variant"
    found.update(_ended(config, missing, "failed", f"{who} {why}"))
    return {v: found[v] for v in wanted}


def _probes_from(payload: Any, framework: str) -> list[Probe]:
    """The peer's device probes, validated like any imported file (none on a CPU peer)."""
    entries = payload.get("probes") if isinstance(payload, dict) else None
    if not isinstance(entries, list):
        return []
    try:
        return [
            read_probe(entry, f"peers.{framework}.probes[{index}]")
            for index, entry in enumerate(entries)
        ]
    except ResultsRejected:
        return []


def run_peers(
    config: BenchConfig,
    variants: Iterable[Variant],
    *,
    copies: int,
    device_kind: str,
    emit: Progress,
    floor: NoiseFloor | None = None,
    run_framework_here: bool = True,
) -> PeerOutcome:
    """Every peer variant of the run, measured framework by framework; `floor`: the machine's
    noise floor, for each peer process's own race."""
    outcome = PeerOutcome()
    groups = group_by_framework(variants, run_framework_here, config.mode)
    for process, wanted in groups.items():
        if outcome.interrupted:
            outcome.results.update(_ended(config, wanted, "skipped", NOT_STARTED))
            continue
        # "numpy:mine": a user kernel's own process; "torch@1thread": held to one core
        framework = process.partition(":")[0].partition("@")[0]
        one_thread = process.endswith(f"@{ONE_THREAD}")
        threads = 1 if one_thread else peer_threads(config)
        if not strategy_info(wanted[0][0]).installed:
            error = f"{framework} is not installed here; {install_hint(framework)}"
            outcome.results.update(_ended(config, wanted, "unsupported", error))
            continue
        emit(Phase(f"peers: {framework}" + (" on one thread" if one_thread else "")))
        request = {
            "framework": framework,
            "config": config.to_dict(),
            "variants": [list(v) for v in wanted],
            "copies": copies,
            "threads": threads,
            "device_kind": device_kind,
            "ratio_log_sd": (floor or NoiseFloor()).ratio_log_sd,
            "probe_bytes": bandwidth_buffer_bytes(last_level_cache_bytes()[0]),
        }
        silence = call_limit_for(config) + SILENCE_GRACE_S
        try:
            payload, problem = spawn_peer(
                request, emit, process_timeout_s(config, len(wanted)), silence_s=silence
            )
        except KeyboardInterrupt:  # its process is ended; what finished before is kept
            outcome.interrupted = True
            error = f"the run was interrupted while the {framework} process measured it"
            outcome.results.update(_ended(config, wanted, "skipped", error))
            continue
        found = _results_from(config, process, wanted, payload, problem)
        probes = _probes_from(payload, framework)
        if probes:
            outcome.probes[process] = probes
            ceiling = max(p.bandwidth_bytes_per_s for p in probes)
            for result in found.values():
                result.ceiling_bytes_per_s = ceiling
                result.notes.append(
                    f"placed against its own device's read bandwidth: {ceiling / 1e9:.1f} GB/s, "
                    f"measured by {framework} in its process before and after"
                )
        outcome.results.update(found)
        if isinstance(payload, dict) and isinstance(payload.get("environment"), dict):
            timing = {k: payload.get(k) for k in ("startup_s", "wall_s")}
            outcome.environments[process] = {**payload["environment"], "process": timing}
        if isinstance(payload, dict) and isinstance(payload.get("sampling"), dict):
            outcome.sampling[process] = payload["sampling"]
    return outcome

"""The peer frameworks' variants (JAX, PyTorch), each framework in a process of its own.

The run starts one `peers/worker.py` process per framework *before* TensorFlow takes the device
(a TPU is held by one process at a time; JAX would preallocate a GPU), forwards its progress
events, and merges its results, validated by the same parser as any imported file, into the
one run. Every framework gets the same thread count. A framework that is not installed gives
`unsupported` with the install hint; a process that crashes, hangs or says something
unreadable fails only its own variants.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.analysis.history_prior import Prior
from engine.catalogue.catalog import (
    ONE_THREAD,
    install_hint,
    sampling_process,
    strategy_info,
    variant_name,
)
from engine.execution.peers.pool import pool_for
from engine.execution.peers.process import (
    ENDED_PREFIX,
    FORGED_KEY,
    LEFTOVER_KEY,
    call_limit_for,
    process_timeout_s,
    spawn_peer,
)
from engine.execution.peers.request import PeerRequest
from engine.execution.plan.processes import runs_in_own_process
from engine.execution.sampling.confirmation import samples_of
from engine.harness.recording import NOT_STARTED, blank_result
from engine.machine.caches import CacheLevel
from engine.machine.host import last_level_cache_bytes, usable_cores
from engine.measure.cache_ceilings import level_ceilings
from engine.measure.memory import bandwidth_buffer_bytes
from engine.measure.peak import LevelCeiling, Probe
from engine.measure.uncertainty import NoiseFloor
from engine.results.decode import result_from_dict
from engine.results.events import (
    Phase,
    Progress,
)
from engine.results.model import StrategyResult
from engine.results.parts import read_probe
from engine.results.reader import ResultsRejected
from engine.run_settings.config import BenchConfig

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


def process_framework(process: str, config: BenchConfig) -> tuple[str, int]:
    """A peer process's framework and thread count: "numpy:mine" is a user kernel's own
    process (NumPy's), "torch@1thread" PyTorch's held to one core."""
    framework = process.partition(":")[0].partition("@")[0]
    return framework, 1 if process.endswith(f"@{ONE_THREAD}") else peer_threads(config)


def peer_request(
    process: str, config: BenchConfig, wanted: list[Variant], copies: int, **more: Any
) -> PeerRequest:
    """What `process` is asked: its framework and threads (`process_framework`), the run's
    config, its variants and the cold-cache input sets; `more`, a prestart's or a run's own
    fields (`PeerRequest`)."""
    framework, threads = process_framework(process, config)
    return PeerRequest(
        framework=framework,
        config=config,
        variants=tuple(wanted),
        copies=copies,
        threads=threads,
        **more,
    )


def group_by_framework(
    variants: Iterable[Variant], run_framework_here: bool = True, mode: str = "single"
) -> dict[str, list[Variant]]:
    """The variants that run in processes of their own (`plan/processes.py`), by process: a
    framework's together, each user kernel alone ("numpy:mine"), so one that hangs fails
    only itself, and a framework's one-thread points together ("torch@1thread")."""
    groups: dict[str, list[Variant]] = {}
    for strategy, option in variants:
        info = strategy_info(strategy)
        process = sampling_process(variant_name(strategy, option))
        if process or runs_in_own_process(info.framework, run_framework_here, mode):
            groups.setdefault(process or info.process, []).append((strategy, option))
    return groups


def confirming_last(
    groups: dict[str, list[Variant]], priors: Mapping[str, Prior] | None
) -> dict[str, list[Variant]]:
    """The processes in their order, except that one whose every variant the history says to
    confirm goes after the rest: its one block is judged against the best measured before it
    (`elsewhere`), and first in line it would have none and be measured in full (on a GPU
    machine NumPy's process, 140x the GPUs', came first)."""
    if not priors:
        return groups
    only_priors = {
        process: all(variant_name(*v) in priors for v in wanted)
        for process, wanted in groups.items()
    }
    return dict(sorted(groups.items(), key=lambda item: only_priors[item[0]]))


def _ended(config: BenchConfig, wanted: list[Variant], status: str, error: str) -> dict:
    ended = {}
    for strategy, option in wanted:
        result = blank_result(config, strategy, option, status)  # type: ignore[arg-type]
        result.error = error
        ended[(strategy, option)] = result
    return ended


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


def device_levels(probes: list[Probe], memory_bytes_per_s: float) -> tuple[LevelCeiling, ...]:
    """An accelerator's cache ceilings from its peer's level probes (its L2), by the host's
    rule (`level_ceilings`): each its best probe, kept only where it beats what lies above."""
    sizes = {
        str(p.extra["level"]): p.extra.get("level_bytes")
        for p in probes
        if "level" in p.extra and isinstance(p.extra.get("level_bytes"), int)
    }
    levels = tuple(
        CacheLevel(name, size, 1) for name, size in sorted(sizes.items(), key=lambda i: i[1])
    )
    return level_ceilings(levels, probes, memory_bytes_per_s)[0]


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
    priors: Mapping[str, Prior] | None = None,
    machine_kind: str | None = None,
) -> PeerOutcome:
    """Every peer variant of the run, measured framework by framework; `floor`: the machine's
    noise floor, for each peer process's own race; `priors`: what the history says of the
    variants to confirm with one block (`execution/sampling/confirmation.py`); `machine_kind`: the
    machine's device kind, whether a process may be kept for the next run (`peers/pool.py`)."""
    outcome = PeerOutcome()
    groups = confirming_last(group_by_framework(variants, run_framework_here, config.mode), priors)
    for process, wanted in groups.items():
        if outcome.interrupted:
            outcome.results.update(_ended(config, wanted, "skipped", NOT_STARTED))
            continue
        framework, threads = process_framework(process, config)
        one_thread = process.endswith(f"@{ONE_THREAD}")
        if not strategy_info(wanted[0][0]).installed:
            error = f"{framework} is not installed here; {install_hint(framework)}"
            outcome.results.update(_ended(config, wanted, "unsupported", error))
            continue
        emit(Phase(f"peers: {framework}" + (" on one thread" if one_thread else "")))
        names = {variant_name(*v) for v in wanted}
        request = peer_request(
            process,
            config,
            wanted,
            copies,
            device_kind=device_kind,
            ratio_log_sd=(floor or NoiseFloor()).ratio_log_sd,
            between_run_log_sd=(floor or NoiseFloor()).between_run_log_sd,
            probe_bytes=bandwidth_buffer_bytes(last_level_cache_bytes()[0]),
            priors={name: p for name, p in (priors or {}).items() if name in names},
            elsewhere={
                name: tuple(found) for name, found in samples_of(outcome.results.values()).items()
            },
        )
        pool = pool_for(process, config.mode, machine_kind or "")
        limits = {
            "timeout_s": process_timeout_s(config, len(wanted)),
            "call_limit_s": call_limit_for(config),
        }
        try:
            if pool is None:
                payload, problem = spawn_peer(request.to_dict(), emit, **limits)
            else:
                payload, problem = pool.ask(
                    (process, threads), request.to_dict(), emit, **limits, dtype=config.dtype
                )
        except KeyboardInterrupt:  # its process is ended; what finished before is kept
            outcome.interrupted = True
            error = f"the run was interrupted while the {framework} process measured it"
            outcome.results.update(_ended(config, wanted, "skipped", error))
            continue
        found = _results_from(config, process, wanted, payload, problem)
        probes = _probes_from(payload, framework)
        memory_probes = [p for p in probes if "level" not in p.extra]
        if memory_probes:
            outcome.probes[process] = probes
            ceiling = max(p.bandwidth_bytes_per_s for p in memory_probes)
            levels = device_levels(probes, ceiling)
            for result in found.values():
                result.ceiling_bytes_per_s = ceiling
                result.device_levels = levels
                result.notes.append(
                    f"placed against its own device's read bandwidth: {ceiling / 1e9:.1f} GB/s, "
                    f"measured by {framework} in its process before and after"
                    + "".join(
                        f"; its {lv.level} read {(lv.bandwidth_bytes_per_s or 0) / 1e9:.0f} GB/s"
                        for lv in levels
                    )
                )
        outcome.results.update(found)
        if isinstance(payload, dict) and isinstance(payload.get("environment"), dict):
            told = ("startup_s", "wall_s", "runs_before", "inputs_reused")
            timing = {k: payload.get(k) for k in told}
            outcome.environments[process] = {**payload["environment"], "process": timing}
        if isinstance(payload, dict) and isinstance(payload.get("sampling"), dict):
            outcome.sampling[process] = payload["sampling"]
    return outcome

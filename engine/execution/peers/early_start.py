"""A run's peer processes started early: each kept peer framework's process loads its framework
and draws the run's inputs while the run's own process imports TensorFlow (`prestart` in
`peers/preparing.py` says what it does, `PeerPool.prestart` how it is asked); `settle_peers`,
before anything is measured, waits for every one. Only where the process may be kept
(`pool_for` in `peers/pool.py`: inside `kept_peers()`, a single-mode run on a CPU machine,
never a user's kernel)."""

from __future__ import annotations

from engine.catalogue.catalog import strategy_info
from engine.execution.peers.parent import group_by_framework, peer_request
from engine.execution.peers.pool import pool_for
from engine.execution.peers.process import process_timeout_s
from engine.execution.plan.variants import plan_variants
from engine.machine.host import last_level_cache_bytes
from engine.measure.memory import cold_copies
from engine.run_settings.config import BenchConfig


def prestart_peers(config: BenchConfig, machine_kind: str) -> list[str]:
    """Start each kept peer process of the run `config` (the processes `run_peers` will ask,
    TensorFlow's variants staying here); returns the processes asked."""
    copies = cold_copies(config, last_level_cache_bytes()[0])
    asked = []
    for process, wanted in group_by_framework(plan_variants(config, machine_kind)).items():
        pool = pool_for(process, config.mode, machine_kind)
        if pool is None or not strategy_info(wanted[0][0]).installed:
            continue
        request = peer_request(process, config, wanted, copies, prestart=True)
        timeout_s = process_timeout_s(config, len(wanted))
        pool.prestart((process, request.threads), request.to_dict(), timeout_s, config.dtype)
        asked.append(process)
    return asked

"""Which variants a configuration runs, in catalogue order, read from the strategies' own
descriptions: +xla right after its plain variant where the strategy compiles, any extra
variants a mode adds (sharded `dataset` also tries distribute_datasets_from_function), and in a
search with `--search-threads` on a CPU with more than one core, each point with a thread axis on
one thread too."""

from __future__ import annotations

from engine.catalogue.catalog import ONE_THREAD, strategy_info
from engine.machine.host import usable_cores
from engine.run_settings.config import BenchConfig


def plan_variants(config: BenchConfig, device_kind: str = "CPU") -> list[tuple[str, str]]:
    """(strategy, option) pairs; option "" is the plain variant."""
    threads = config.threads or usable_cores()
    variants: list[tuple[str, str]] = []
    for name in config.strategies:
        info = strategy_info(name)
        variants.append((name, ""))
        if config.xla and info.supports_xla:
            variants.append((name, "xla"))
        variants.extend((name, option) for option in info.extra_variants.get(config.mode, ()))
        searched = config.search and config.search_threads and info.has_thread_axis
        if searched and device_kind == "CPU" and threads > 1:
            variants.append((name, ONE_THREAD))
    return variants

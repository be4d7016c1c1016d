"""Which variants a configuration runs, in catalogue order, read from the strategies' own
descriptions: +xla right after its plain variant where the strategy compiles, and any extra
variants a mode adds (sharded `dataset` also tries distribute_datasets_from_function)."""

from __future__ import annotations

from engine.spec.catalog import strategy_info
from engine.spec.config import BenchConfig


def plan_variants(config: BenchConfig) -> list[tuple[str, str]]:
    """(strategy, option) pairs; option "" is the plain variant."""
    variants: list[tuple[str, str]] = []
    for name in config.strategies:
        info = strategy_info(name)
        variants.append((name, ""))
        if config.xla and info.supports_xla:
            variants.append((name, "xla"))
        variants.extend((name, option) for option in info.extra_variants.get(config.mode, ()))
    return variants

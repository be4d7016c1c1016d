"""Sweeps: a grid of configs run one point at a time, each point saved as it completes.

The sweep's id is a hash of its spec, so running the same sweep again resumes it: points
already in the history are skipped. One replica layout per sweep keeps every point in one
process (TensorFlow starts once), and the peak bandwidth is measured once for the sweep.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from engine.config import DTYPES, MODES, BenchConfig, ConfigError, parse_choice, parse_int

MAX_POINTS = 10_000
Progress = Callable[[dict[str, Any]], None]


def parse_list(field: str, text: str, parse: Callable[[str], Any]) -> tuple[Any, ...]:
    items = [part.strip() for part in str(text).split(",") if part.strip()]
    if not items:
        raise ConfigError(field, "needs at least one value (comma-separated)")
    return tuple(dict.fromkeys(parse(item) for item in items))


_DEFAULTS = BenchConfig()


@dataclass(frozen=True)
class SweepSpec:
    matrices: tuple[int, ...]
    dims: tuple[int, ...]
    cols: tuple[int, ...] | None  # None: square points (n = m)
    dtypes: tuple[str, ...]
    modes: tuple[str, ...]
    strategies: tuple[str, ...]
    replicas: int = 1
    xla: bool = _DEFAULTS.xla
    cache: str = _DEFAULTS.cache
    warmup: int = _DEFAULTS.warmup
    repeats: int = _DEFAULTS.repeats
    seed: int = _DEFAULTS.seed
    time_budget_s: float = _DEFAULTS.time_budget_s
    label: str = ""

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> SweepSpec:
        """Comma-separated lists for the grid axes; every value validated like a run's."""
        cols = raw.get("cols")
        # The per-point settings, parsed once by the run's own rules (so "20" and 20 are one
        # sweep, whichever front end started it); defaults are BenchConfig's.
        shared = ("strategies", "xla", "cache", "warmup", "repeats", "seed", "time_budget_s")
        base = BenchConfig.from_raw({k: raw[k] for k in (*shared, "label") if k in raw})
        spec = cls(
            matrices=parse_list("matrices", raw["matrices"], lambda v: parse_int("matrices", v)),
            dims=parse_list("dim", raw["dim"], lambda v: parse_int("dim", v)),
            cols=parse_list("cols", cols, lambda v: parse_int("cols", v)) if cols else None,
            dtypes=parse_list(
                "dtype", raw.get("dtype", "float32"), lambda v: parse_choice("dtype", v, DTYPES)
            ),
            modes=parse_list(
                "mode", raw.get("mode", "single"), lambda v: parse_choice("mode", v, MODES)
            ),
            strategies=base.strategies,
            replicas=parse_int("replicas", raw.get("replicas", 1)),
            xla=base.xla,
            cache=base.cache,
            warmup=base.warmup,
            repeats=base.repeats,
            seed=base.seed,
            time_budget_s=base.time_budget_s,
            label=base.label,
        )
        spec.points()  # validates every point's config, and the grid size
        return spec

    def points(self) -> list[BenchConfig]:
        grid = list(
            itertools.product(
                self.modes, self.dtypes, self.dims, self.cols or (None,), self.matrices
            )
        )
        if len(grid) > MAX_POINTS:
            raise ConfigError("sweep", f"{len(grid):,} points; at most {MAX_POINTS:,} allowed")
        return [
            BenchConfig(
                matrices=matrices,
                dim=dim,
                cols=cols,
                dtype=dtype,
                mode=mode,
                replicas=1 if mode == "single" else self.replicas,
                strategies=self.strategies,
                xla=self.xla,
                cache=self.cache,
                warmup=self.warmup,
                repeats=self.repeats,
                seed=self.seed,
                time_budget_s=self.time_budget_s,
                label=self.label,
            )
            for mode, dtype, dim, cols, matrices in grid
        ]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def sweep_id(self) -> str:
        canonical = json.dumps(self.to_dict(), sort_keys=True, default=list)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def point_key(config: BenchConfig) -> str:
    return f"{config.mode}:{config.dtype}:{config.matrices}x{config.rows}x{config.columns}"


def run_sweep(spec: SweepSpec, history: Any, progress: Progress | None = None) -> dict[str, Any]:
    """Run every point not yet stored for this sweep; returns counts and the sweep id."""
    from engine import memory
    from engine.bandwidth import measure_peak
    from engine.devices import setup_devices
    from engine.runner import run_benchmark

    emit = progress or (lambda _event: None)
    points = spec.points()
    sweep_id = spec.sweep_id
    history.add_sweep(
        sweep_id,
        datetime.now(timezone.utc).isoformat(timespec="seconds"),
        spec.label,
        spec.to_dict(),
        len(points),
    )
    done = history.done_points(sweep_id)
    todo = [p for p in points if point_key(p) not in done]
    emit({"event": "sweep", "sweep_id": sweep_id, "points": len(points), "todo": len(todo)})
    setup = setup_devices(spec.replicas)
    llc_bytes, _ = memory.last_level_cache_bytes()
    emit({"event": "phase", "phase": "peak bandwidth"})
    peak = measure_peak(setup.devices[0], llc_bytes)
    refused: list[str] = []
    started = time.perf_counter()
    for index, config in enumerate(todo):
        key = point_key(config)
        emit(
            {
                "event": "sweep_point",
                "point": key,
                "index": index,
                "of": len(todo),
                "eta_s": eta_s(started, index, len(todo)),
            }
        )
        try:
            result = run_benchmark(config, setup=setup, peak=peak)
        except memory.PreflightError as error:
            refused.append(f"{key}: {error}")
            emit({"event": "sweep_refused", "point": key, "message": str(error)})
            continue
        history.add_run(result, sweep_id=sweep_id, point_key=key)
    emit({"event": "sweep_done", "sweep_id": sweep_id})
    return {
        "sweep_id": sweep_id,
        "points": len(points),
        "skipped_done": len(points) - len(todo),
        "ran": len(todo) - len(refused),
        "refused": refused,
    }


def eta_s(started: float, done: int, total: int) -> float | None:
    """Mean time per finished point times the points left (None before the first)."""
    if done == 0:
        return None
    return (time.perf_counter() - started) / done * (total - done)

"""A sweep: one base configuration plus axes, any sweepable field with several values.

Points are the base with each combination of axis values put in by `dataclasses.replace`, so a
point is validated exactly like a run and no setting can be silently dropped (xla, cache, seed
and the time budget are fields like any other). The grid's size is bounded from the axis
lengths before anything is expanded. The sweep's id is a hash of the spec, so running the same
sweep again resumes it.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine.run_settings.config import BenchConfig, config_fields
from engine.run_settings.fields import ConfigError, split_names

MAX_POINTS = 10_000
MAX_LIST_CHARS = 100_000  # one axis's text: far more than any real grid needs


@dataclass(frozen=True)
class SweepSpec:
    base: BenchConfig
    axes: tuple[tuple[str, tuple[Any, ...]], ...]  # (field, values), in field-table order
    replicas: int = 1  # replicas for the points whose mode is not single

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> SweepSpec:
        """Values as comma-separated text or lists; a field with several values is an axis."""
        values = dict(raw)
        if "strategy" in values and "strategies" not in values:
            values["strategies"] = values.pop("strategy")
        known = {item.name for item, _ in config_fields()}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(unknown[0], f"is not a setting; allowed: {', '.join(sorted(known))}")
        scalars: dict[str, Any] = {}
        axes: list[tuple[str, tuple[Any, ...]]] = []
        for item, setting in config_fields():
            if item.name not in values or values[item.name] is None:
                continue
            value = values[item.name]
            if not setting.sweepable:
                scalars[item.name] = value
                continue
            options = _axis_values(item.name, value, setting.parse)
            if len(options) == 1:
                scalars[item.name] = options[0]
            else:
                axes.append((item.name, options))
        size = math.prod(len(options) for _, options in axes)
        if size > MAX_POINTS:
            raise ConfigError("sweep", f"{size:,} points; at most {MAX_POINTS:,} allowed")
        replicas = scalars.pop("replicas", 1)
        modes = dict(axes).get("mode", (scalars.get("mode", "single"),))
        # The base takes the first point's mode; replicas apply to the points not in single.
        scalars["mode"] = modes[0]
        scalars["replicas"] = 1 if modes[0] == "single" else replicas
        base = BenchConfig.from_raw(scalars)
        spec = cls(base, tuple(axes), _replicas(replicas))
        spec.points()  # every point validated now, before anything runs
        return spec

    @property
    def size(self) -> int:
        return math.prod(len(values) for _, values in self.axes)

    def points(self) -> list[BenchConfig]:
        names = [name for name, _ in self.axes]
        configs = []
        for combination in itertools.product(*(values for _, values in self.axes)):
            changes = dict(zip(names, combination))
            mode = changes.get("mode", self.base.mode)
            changes["replicas"] = 1 if mode == "single" else self.replicas
            configs.append(replace(self.base, **changes))
        return configs

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base.to_dict(),
            "axes": {name: list(values) for name, values in self.axes},
            "replicas": self.replicas,
        }

    @property
    def sweep_id(self) -> str:
        canonical = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    def point_key(self, config: BenchConfig) -> str:
        """What distinguishes a point within this sweep: its axis values."""
        return point_key(config, [name for name, _ in self.axes])


def point_key(config: BenchConfig, axes: list[str] | None = None) -> str:
    shape = f"{config.mode}:{config.dtype}:{config.matrices}x{config.dim}x{config.columns}"
    extra = [
        f"{name}={getattr(config, name)}"
        for name in axes or ()
        if name not in ("mode", "dtype", "matrices", "dim", "cols")
    ]
    return ";".join([shape, *extra])


def _axis_values(name: str, value: Any, parse: Any) -> tuple[Any, ...]:
    if isinstance(value, str) and len(value) > MAX_LIST_CHARS:
        raise ConfigError(name, f"list is {len(value):,} characters; at most {MAX_LIST_CHARS:,}")
    if isinstance(value, str) or (
        isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
    ):
        items: list[Any] = split_names(value, name)
        if not items:
            raise ConfigError(name, "needs at least one value (comma-separated)")
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        items = [value]
    if len(items) > MAX_POINTS:
        raise ConfigError(name, f"{len(items):,} values; at most {MAX_POINTS:,}")
    return tuple(dict.fromkeys(parse(name, item) for item in items))


def _replicas(value: Any) -> int:
    return BenchConfig.from_raw({"replicas": value, "mode": "sharded"}).replicas

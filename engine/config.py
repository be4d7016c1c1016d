"""The benchmark configuration: one frozen spec of *what* is measured, validated on entry.

Every front end (CLI flags, dashboard widgets, URL parameters, Python callers) funnels raw values
through `BenchConfig.from_raw`, so a bad value gets the same message naming the field and the
allowed values wherever it came from.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from engine.catalog import STRATEGY_NAMES, strategy_info

DTYPES: tuple[str, ...] = ("float16", "bfloat16", "float32", "float64")
ITEMSIZE: dict[str, int] = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}
MODES: tuple[str, ...] = ("single", "replicated", "sharded")
CACHE_STATES: tuple[str, ...] = ("warm", "cold")

# Ranges are generous but finite: anything beyond them is a typo, not a benchmark.
INT_LIMITS: dict[str, tuple[int, int]] = {
    "matrices": (1, 100_000_000),
    "dim": (1, 1_000_000),
    "cols": (1, 1_000_000),
    "warmup": (0, 10_000),
    "repeats": (1, 100_000),
    "seed": (0, 2**32 - 1),
    "replicas": (1, 1024),
    "dataset_batch": (1, 100_000_000),
}
TIME_BUDGET_LIMITS_S = (0.1, 86_400.0)
LABEL_MAX_CHARS = 200


class ConfigError(ValueError):
    """A bad input value. `str()` is the one-line message shown to users."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def parse_int(field: str, value: Any) -> int:
    lo, hi = INT_LIMITS[field]
    allowed = f"an integer from {lo:,} to {hi:,}"
    number: int
    if isinstance(value, bool):
        raise ConfigError(field, f"must be {allowed}, got {value!r}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ConfigError(field, f"must be {allowed}, got {value!r}")
        number = int(value)
    elif isinstance(value, str):
        text = value.strip().replace("_", "")
        try:
            number = int(text, 10)
        except ValueError:
            raise ConfigError(field, f"must be {allowed}, got {value!r}") from None
    else:
        raise ConfigError(field, f"must be {allowed}, got {type(value).__name__}")
    if not lo <= number <= hi:
        raise ConfigError(field, f"must be {allowed}, got {number:,}")
    return number


def parse_choice(field: str, value: Any, choices: Iterable[str]) -> str:
    options = tuple(choices)
    if not isinstance(value, str) or value.strip() not in options:
        raise ConfigError(field, f"must be one of {', '.join(options)}; got {value!r}")
    return value.strip()


def parse_bool(field: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise ConfigError(field, f"must be true or false, got {value!r}")


def parse_seconds(field: str, value: Any) -> float:
    lo, hi = TIME_BUDGET_LIMITS_S
    allowed = f"a number of seconds from {lo} to {hi:,.0f}"
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        raise ConfigError(field, f"must be {allowed}, got {value!r}") from None
    if not math.isfinite(number) or not lo <= number <= hi:
        raise ConfigError(field, f"must be {allowed}, got {value!r}")
    return number


def parse_strategies(value: Any) -> tuple[str, ...]:
    """Accepts 'all', a comma-separated string or a sequence; keeps the catalogue order."""
    items: list[str]
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, Iterable):
        items = []
        for part in value:
            if not isinstance(part, str):
                raise ConfigError("strategy", f"names must be strings, got {part!r}")
            items.extend(p.strip() for p in part.split(",") if p.strip())
    else:
        raise ConfigError("strategy", f"must be a list of names, got {type(value).__name__}")
    if not items:
        raise ConfigError("strategy", f"choose at least one of all, {', '.join(STRATEGY_NAMES)}")
    if "all" in items:
        return STRATEGY_NAMES
    unknown = [name for name in items if name not in STRATEGY_NAMES]
    if unknown:
        raise ConfigError(
            "strategy",
            f"unknown {', '.join(map(repr, unknown))}; allowed: all, {', '.join(STRATEGY_NAMES)}",
        )
    return tuple(name for name in STRATEGY_NAMES if name in items)


def parse_label(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ConfigError("label", f"must be text, got {type(value).__name__}")
    text = " ".join(value.split())
    if len(text) > LABEL_MAX_CHARS:
        raise ConfigError("label", f"must be at most {LABEL_MAX_CHARS} characters")
    return text


@dataclass(frozen=True)
class BenchConfig:
    """What to measure. Build with `from_raw` to validate untrusted values."""

    matrices: int = 3000
    dim: int = 100
    cols: int | None = None  # n; None means square (n = dim)
    dtype: str = "float32"
    strategies: tuple[str, ...] = ("batched_matvec",)
    mode: str = "single"
    replicas: int = 1
    xla: bool = False
    cache: str = "warm"
    warmup: int = 3
    repeats: int = 20
    seed: int = 0
    time_budget_s: float = 60.0  # per strategy variant; sampling stops early when spent
    dataset_batch: int = 256
    label: str = ""

    def __post_init__(self) -> None:
        # Re-validate so a directly constructed config can never be invalid.
        checked = _validated(asdict(self))
        for key, value in checked.items():
            object.__setattr__(self, key, value)

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> BenchConfig:
        """Validate loosely typed values (CLI strings, URL parameters, JSON)."""
        known = {f.name for f in fields(cls)}
        values = dict(raw)
        if "strategy" in values and "strategies" not in values:
            values["strategies"] = values.pop("strategy")
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(unknown[0], f"is not a setting; allowed: {', '.join(sorted(known))}")
        return cls(**values)

    @property
    def rows(self) -> int:
        """m: rows of each matrix (= dim)."""
        return self.dim

    @property
    def columns(self) -> int:
        """n: columns of each matrix (= cols, or dim when square)."""
        return self.cols if self.cols is not None else self.dim

    @property
    def itemsize(self) -> int:
        return ITEMSIZE[self.dtype]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["strategies"] = list(self.strategies)
        data["cols"] = self.columns
        return data


def _validated(values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("matrices", "dim", "warmup", "repeats", "seed", "replicas", "dataset_batch"):
        if name in values:
            out[name] = parse_int(name, values[name])
    if values.get("cols") is not None:
        out["cols"] = parse_int("cols", values["cols"])
    if "dtype" in values:
        out["dtype"] = parse_choice("dtype", values["dtype"], DTYPES)
    if "mode" in values:
        out["mode"] = parse_choice("mode", values["mode"], MODES)
    if "cache" in values:
        out["cache"] = parse_choice("cache", values["cache"], CACHE_STATES)
    if "xla" in values:
        out["xla"] = parse_bool("xla", values["xla"])
    if "time_budget_s" in values:
        out["time_budget_s"] = parse_seconds("time_budget_s", values["time_budget_s"])
    if "strategies" in values:
        out["strategies"] = parse_strategies(values["strategies"])
    if "label" in values:
        out["label"] = parse_label(values["label"])
    mode = out.get("mode", values.get("mode", "single"))
    replicas = out.get("replicas", values.get("replicas", 1))
    if mode == "single" and replicas != 1:
        raise ConfigError("replicas", "must be 1 in mode single; use replicated or sharded")
    if mode != "single":
        strategies = out.get("strategies", values.get("strategies", ()))
        if not any(strategy_info(s).distributable for s in strategies):
            raise ConfigError(
                "strategy",
                f"mode {mode} needs at least one distributable strategy "
                "(the graph strategies or dataset)",
            )
    return out

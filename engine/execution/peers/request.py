"""What one framework's process is asked to measure: its part of the run's plan, as data.

The run (`peers/parent.py`) makes a `PeerRequest` for each process from its plan and sends it as one
JSON object on the process's stdin; the process (`peers/worker.py`) reads it back with
`from_dict`, which validates every field once, naming the one that is wrong, before the
framework is imported. Each field keeps the name the run gives it; nothing reaches the
process through an environment variable of the engine's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.analysis.history_prior import Prior
from engine.measure.uncertainty import DEFAULT_BETWEEN_RUN_LOG_SD, DEFAULT_RATIO_LOG_SD
from engine.run_settings.config import BenchConfig

Variant = tuple[str, str]
DEFAULT_PROBE_BYTES = 256 * 2**20


class RequestRefused(ValueError):
    """A request the process cannot measure: `str()` names the field and why."""


@dataclass(frozen=True)
class PeerRequest:
    framework: str  # the framework whose runtime the process loads
    config: BenchConfig
    variants: tuple[Variant, ...]  # (strategy, option), in the order they are prepared
    copies: int  # input sets: more than one reads each call's inputs from memory (cold)
    threads: int  # the cores it keeps to, the same for every framework of the run
    device_kind: str = "CPU"  # the kind the run's ceiling reads (a fraction's ceiling)
    ratio_log_sd: float = DEFAULT_RATIO_LOG_SD  # the run's floor, for its own race
    # the run's floor between processes: its race against what other processes measured
    between_run_log_sd: float = DEFAULT_BETWEEN_RUN_LOG_SD
    probe_bytes: int = DEFAULT_PROBE_BYTES  # its device's read probe's buffer
    priors: Mapping[str, Prior] = field(default_factory=dict)  # to confirm with one block
    # what the processes before it measured, by variant: a confirming block's best may be there
    elsewhere: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    # a kept process's start before the run measures: load, draw the inputs, measure nothing
    prestart: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "framework": self.framework,
            "config": self.config.to_dict(),
            "variants": [list(v) for v in self.variants],
            "copies": self.copies,
            "threads": self.threads,
            "device_kind": self.device_kind,
            "ratio_log_sd": self.ratio_log_sd,
            "between_run_log_sd": self.between_run_log_sd,
            "probe_bytes": self.probe_bytes,
            "priors": {name: prior.to_dict() for name, prior in self.priors.items()},
            "elsewhere": {name: list(samples) for name, samples in self.elsewhere.items()},
            "prestart": self.prestart,
        }

    @classmethod
    def from_dict(cls, raw: Any) -> PeerRequest:
        """The request read back in the process; `RequestRefused` names a bad field."""
        if not isinstance(raw, dict):
            raise RequestRefused("request: not a JSON object")
        try:
            config = BenchConfig.from_raw(raw.get("config"))
        except (TypeError, ValueError) as error:
            raise RequestRefused(f"config: {error}") from None
        return cls(
            framework=_text(raw, "framework"),
            config=config,
            variants=_variants(raw.get("variants")),
            copies=_count(raw, "copies"),
            threads=_count(raw, "threads"),
            device_kind=_text(raw, "device_kind", "CPU"),
            ratio_log_sd=_number(raw, "ratio_log_sd", DEFAULT_RATIO_LOG_SD),
            between_run_log_sd=_number(raw, "between_run_log_sd", DEFAULT_BETWEEN_RUN_LOG_SD),
            probe_bytes=_count(raw, "probe_bytes", DEFAULT_PROBE_BYTES),
            priors=_priors(raw.get("priors")),
            elsewhere=_elsewhere(raw.get("elsewhere")),
            prestart=_flag(raw, "prestart"),
        )


def _text(raw: dict, name: str, default: str | None = None) -> str:
    value = raw.get(name, default)
    if not isinstance(value, str) or not value:
        raise RequestRefused(f"{name}: a name, not {value!r}")
    return value


def _count(raw: dict, name: str, default: int | None = None) -> int:
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RequestRefused(f"{name}: a whole number of at least 1, not {value!r}")
    return value


def _number(raw: dict, name: str, default: float) -> float:
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise RequestRefused(f"{name}: a number of at least 0, not {value!r}")
    return float(value)


def _flag(raw: dict, name: str) -> bool:
    value = raw.get(name, False)
    if not isinstance(value, bool):
        raise RequestRefused(f"{name}: true or false, not {value!r}")
    return value


def _variants(value: Any) -> tuple[Variant, ...]:
    if not isinstance(value, list) or not value:
        raise RequestRefused("variants: a list of [strategy, option] pairs")
    pairs = []
    for index, item in enumerate(value):
        if not (
            isinstance(item, list) and len(item) == 2 and all(isinstance(p, str) for p in item)
        ):
            raise RequestRefused(f"variants[{index}]: a [strategy, option] pair, not {item!r}")
        pairs.append((item[0], item[1]))
    return tuple(pairs)


def _priors(value: Any) -> dict[str, Prior]:
    if not isinstance(value, dict):
        return {} if value is None else _refuse("priors", value)
    try:
        return {str(name): Prior.from_dict(str(name), found) for name, found in value.items()}
    except (KeyError, TypeError, ValueError) as error:
        raise RequestRefused(f"priors: {error}") from None


def _elsewhere(value: Any) -> dict[str, tuple[float, ...]]:
    if not isinstance(value, dict):
        return {} if value is None else _refuse("elsewhere", value)
    try:
        return {str(name): tuple(float(t) for t in samples) for name, samples in value.items()}
    except (TypeError, ValueError) as error:
        raise RequestRefused(f"elsewhere: {error}") from None


def _refuse(name: str, value: Any) -> Any:
    raise RequestRefused(f"{name}: an object by variant name, not {type(value).__name__}")

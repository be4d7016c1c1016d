"""Dashboard settings <-> URL query parameters, validated by the engine's own config rules.

A shared link must reopen the same settings; a hand-edited or stale link must never crash the
page: each bad parameter is dropped with a notice naming it, and the rest still apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.catalog import FAST_STRATEGIES
from engine.config import BenchConfig, ConfigError
from engine.sweep import SweepSpec

DEFAULTS: dict[str, Any] = {
    "matrices": 3000,
    "dim": 100,
    "cols": None,  # None: square, n = m
    "dtype": "float32",
    "strategies": list(FAST_STRATEGIES),
    "mode": "single",
    "replicas": 1,
    "xla": False,
    "cache": "warm",
    "warmup": 3,
    "repeats": 20,
    "seed": 0,
    "time_budget_s": 60.0,
    "label": "",
}
# URL names: the CLI's flag names where they differ from the config field names.
URL_NAMES: dict[str, str] = {
    "strategies": "strategy",
    "time_budget_s": "time_budget",
}
FIELD_FOR_URL: dict[str, str] = {URL_NAMES.get(k, k): k for k in DEFAULTS}


@dataclass
class ParsedParams:
    settings: dict[str, Any]
    notices: list[str] = field(default_factory=list)


def _validate_one(name: str, raw: Any) -> Any:
    """Run one value through BenchConfig's validation and return the parsed value."""
    probe: dict[str, Any] = {name: raw}
    if name == "replicas":
        probe["mode"] = "sharded"  # the cross-field rule is checked when the run starts
        probe["strategies"] = ("batched_matvec",)
    if name == "cols" and raw in ("", None):
        return None
    config = BenchConfig.from_raw(probe)
    value = getattr(config, name)
    return list(value) if name == "strategies" else value


def settings_from_params(params: Mapping[str, str | list[str]]) -> ParsedParams:
    """Defaults overridden by every valid URL parameter; invalid ones become notices."""
    settings = dict(DEFAULTS)
    notices: list[str] = []
    for url_name, raw in params.items():
        name = FIELD_FOR_URL.get(url_name)
        if name is None:
            notices.append(f"Ignored unknown link parameter {url_name!r}.")
            continue
        value = raw if not isinstance(raw, list) else ",".join(raw)
        try:
            settings[name] = _validate_one(name, value)
        except ConfigError as error:
            notices.append(f"Ignored link parameter {url_name}={value!r}: {error}")
    if settings["mode"] == "single":
        settings["replicas"] = 1
    return ParsedParams(settings, notices)


def params_from_settings(settings: Mapping[str, Any]) -> dict[str, str]:
    """Only what differs from the defaults, so links stay short and readable."""
    params: dict[str, str] = {}
    for name, default in DEFAULTS.items():
        value = settings.get(name, default)
        if value == default or value is None:
            continue
        if name == "strategies":
            text = ",".join(value)
        elif isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, float) and value.is_integer():
            text = str(int(value))
        else:
            text = str(value)
        params[URL_NAMES.get(name, name)] = text
    return params


def config_from_settings(settings: Mapping[str, Any]) -> BenchConfig:
    """The engine config for a run; raises ConfigError with a user-facing message."""
    return BenchConfig.from_raw({k: settings[k] for k in DEFAULTS})


def cli_args(config: BenchConfig) -> list[str]:
    """The `python -m engine run` flags that reproduce `config` exactly."""
    args = [
        "--matrices",
        str(config.matrices),
        "--dim",
        str(config.dim),
        "--cols",
        str(config.columns),
        "--dtype",
        config.dtype,
        "--mode",
        config.mode,
        "--replicas",
        str(config.replicas),
        "--cache",
        config.cache,
        "--warmup",
        str(config.warmup),
        "--repeats",
        str(config.repeats),
        "--seed",
        str(config.seed),
        "--time-budget",
        f"{config.time_budget_s:g}",
        "--dataset-batch",
        str(config.dataset_batch),
        f"--label={config.label}",  # one token, so a label starting with "-" stays text
    ]
    for name in config.strategies:
        args += ["--strategy", name]
    if config.xla:
        args.append("--xla")
    return args


def sweep_args(raw: dict) -> list[str]:
    """Validate like the CLI does, then the CLI flags for the worker."""
    spec = SweepSpec.from_raw(raw)
    args = [
        "--matrices",
        ",".join(map(str, spec.matrices)),
        "--dim",
        ",".join(map(str, spec.dims)),
        "--dtype",
        ",".join(spec.dtypes),
        "--mode",
        ",".join(spec.modes),
        "--replicas",
        str(spec.replicas),
        "--repeats",
        str(spec.repeats),
        "--warmup",
        str(spec.warmup),
        f"--label={spec.label}",
    ]
    if spec.cols:
        args += ["--cols", ",".join(map(str, spec.cols))]
    for name in spec.strategies:
        args += ["--strategy", name]
    return args

"""Dashboard settings <-> URL query parameters, generated from the engine's field table.

A shared link must reopen the same settings; a hand-edited or stale link must never crash the
page: each bad parameter is dropped with a notice naming it, and the rest still apply. The
URL names are the field table's (the CLI's flag names), and repeated parameters
(`?strategy=einsum&strategy=numpy`, the CLI's own style) count like a comma list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.catalogue.catalog import interactive_strategies
from engine.run_settings.config import BenchConfig, browser_fields, field_setting, url_name_of
from engine.run_settings.fields import ConfigError, shown

Settings = dict[str, Any]


def defaults() -> Settings:
    """The dashboard's starting settings: the field table's defaults, with the interactive
    strategy set pre-selected (the CLI's single default strategy is too little to look at)."""
    values: Settings = {item.name: item.default for item, _ in browser_fields()}
    values["strategies"] = list(interactive_strategies())
    return values


FIELD_FOR_URL: dict[str, str] = {url_name_of(item): item.name for item, _ in browser_fields()}
URL_FOR_FIELD: dict[str, str] = {name: url for url, name in FIELD_FOR_URL.items()}


UNKNOWN_NAMED = 5  # unknown link parameters named in the notice; the rest are counted


@dataclass
class ParsedParams:
    settings: Settings
    notices: list[str] = field(default_factory=list)


def _values(raw: str | list[str]) -> list[str]:
    return [raw] if isinstance(raw, str) else list(raw)


# URL parameters that name a page's running job (a reload finds it again), not settings.
PAGE_JOB_PARAMS = ("job", "sweep_job")


def settings_from_params(params: Mapping[str, str | list[str]]) -> ParsedParams:
    """Defaults overridden by every valid URL parameter; invalid ones become notices."""
    settings = defaults()
    notices: list[str] = []
    unknown: list[str] = []
    for url_name, raw in params.items():
        if url_name in PAGE_JOB_PARAMS:
            continue  # the page's running job (services/page_jobs.py), not a setting
        name = FIELD_FOR_URL.get(url_name)
        values = _values(raw)
        if name is None:
            unknown.append(url_name)
            continue
        setting = field_setting(name)
        if len(values) > 1 and setting.kind != "strategies":
            notices.append(
                f"Link parameter {url_name} was given {len(values)} times; used the last."
            )
        value: Any = ",".join(values) if setting.kind == "strategies" else values[-1]
        try:
            parsed = setting.parse(name, value)
        except ConfigError as error:
            notices.append(f"Ignored link parameter {url_name}={shown(value)}: {error}")
            continue
        settings[name] = list(parsed) if isinstance(parsed, tuple) else parsed
    if settings["mode"] == "single" and settings["replicas"] != 1:
        notices.append(
            f"Ignored link parameter replicas={settings['replicas']}: mode single uses 1 replica."
        )
        settings["replicas"] = 1
    if unknown:  # one notice for all of them: a link full of junk is one line, not hundreds
        named = ", ".join(repr(name[:40]) for name in unknown[:UNKNOWN_NAMED])
        more = f" and {len(unknown) - UNKNOWN_NAMED:,} more" if len(unknown) > UNKNOWN_NAMED else ""
        plural = "s" if len(unknown) > 1 else ""
        notices.insert(0, f"Ignored unknown link parameter{plural} {named}{more}.")
    return ParsedParams(settings, notices)


def params_from_settings(settings: Mapping[str, Any]) -> dict[str, str]:
    """Only what differs from the defaults, so links stay short and readable."""
    params: dict[str, str] = {}
    start = defaults()
    for item, setting in browser_fields():
        value = settings.get(item.name, start[item.name])
        if value == start[item.name] or value is None:
            continue
        params[url_name_of(item)] = setting.to_text(value)
    return params


def config_from_settings(settings: Mapping[str, Any], kernels: Sequence[str] = ()) -> BenchConfig:
    """The engine config for a run; raises ConfigError with a user-facing message. `kernels`:
    specs of the kernels the server offers that the page chose (never from the browser)."""
    values = {name: settings[name] for name in defaults()}
    return BenchConfig.from_raw({**values, "kernels": list(kernels)})

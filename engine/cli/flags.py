"""CLI flags generated from the field table, and the reverse: the flags that reproduce a config.

`add_config_flags` gives `run` and `sweep` the same flags, names and help; `cli_args` is what the
dashboard's worker is started with, so a config survives the trip through a command line
exactly (`config_from_args(parse(cli_args(c))) == c`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.catalogue.catalog import default_strategies
from engine.run_settings.config import BenchConfig, config_fields, default_of, flag_of
from engine.run_settings.sweep import SweepSpec


def _help(setting: Any, default: Any, lists: bool) -> str:
    text = setting.help
    if setting.kind == "choice":
        text += f": {', '.join(setting.options())}"
    shown = setting.to_text(default) if default not in (None, "") else ""
    text += f" (default {shown})" if shown else ""
    if lists and setting.sweepable:
        text += "; comma-separated values make a sweep axis"
    return text.replace("%", "%%")


def add_config_flags(parser: argparse.ArgumentParser, *, lists: bool = False) -> None:
    """One flag per configuration field; every default stays None so BenchConfig's applies."""
    for item, setting in config_fields():
        flag = flag_of(item)
        help_text = _help(setting, item.default, lists)
        if setting.kind in ("strategies", "kernels"):
            parser.add_argument(flag, dest=item.name, action="append", help=help_text)
        elif setting.kind == "bool":
            parser.add_argument(
                flag, dest=item.name, nargs="?", const="true", default=None, help=help_text
            )
        else:
            parser.add_argument(flag, dest=item.name, default=None, help=help_text)


def raw_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The configuration values the user gave (the rest keep their defaults)."""
    return {
        item.name: getattr(args, item.name)
        for item, _ in config_fields()
        if getattr(args, item.name, None) is not None
    }


def with_default_strategies(raw: dict[str, Any]) -> dict[str, Any]:
    """`raw` with the strategies a run that named none measures here: the field's default
    where its framework is installed, else each installed framework's own (said on stderr)."""
    if "strategies" not in raw:
        chosen, note = default_strategies(default_of("strategies"))
        if note:
            raw["strategies"] = chosen
            print(f"note: {note}", file=sys.stderr)
    return raw


def config_from_args(args: argparse.Namespace) -> BenchConfig:
    return BenchConfig.from_raw(with_default_strategies(raw_settings(args)))


def cli_args(config: BenchConfig) -> list[str]:
    """The `run` flags that reproduce `config` exactly; `--flag=value` tokens, so a label
    that starts with '-' stays text."""
    args = []
    for item, setting in config_fields():
        value = getattr(config, item.name)
        text = setting.to_text(value)
        if value is None or text == "":  # unset or empty (no label, no kernels): the default
            continue
        args.append(f"{flag_of(item)}={text}")
    return args


def sweep_cli_args(spec: SweepSpec) -> list[str]:
    """The `sweep` flags that reproduce `spec`: the base's values, axes as comma lists."""
    axes = dict(spec.axes)
    args = []
    for item, setting in config_fields():
        if item.name == "replicas":
            args.append(f"{flag_of(item)}={spec.replicas}")
            continue
        values = axes.get(item.name, (getattr(spec.base, item.name),))
        if values == (None,):
            continue
        if item.name == "mode" and item.name not in axes:
            values = (spec.base.mode,)
        text = ",".join(setting.to_text(v) for v in values)
        if text:  # no label, no kernels: the default, never an empty flag
            args.append(f"{flag_of(item)}={text}")
    return args

"""The listing commands: `devices` (what this machine shows each framework) and
`strategies` (the catalogue, with each strategy's framework and whether it is installed)."""

from __future__ import annotations

import argparse
import glob
import json
import os
from typing import Any

from engine.catalogue.catalog import strategies
from engine.cli.run import EXIT_OK, quiet_tensorflow
from engine.machine.accelerators import probe_kind


def command_devices(args: argparse.Namespace) -> int:
    """What this machine shows the run framework (TensorFlow's own description of its
    devices, from its folder's `process.py`), else what is found without it."""
    from engine.execution.run.own_process import run_framework_process

    quiet_tensorflow()
    module, problem = run_framework_process()
    if module is not None:
        info = module.describe_devices()
    else:
        info = devices_without_run_framework(problem or "")
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        for key, value in info.items():
            print(f"{key:>18}: {in_words(value)}")
    return EXIT_OK


def in_words(value: Any) -> str:
    """A value as a person reads it, never a Python repr: lists joined, mappings as
    "key: value" pairs, nothing as "none" (`--json` keeps the data as it is)."""
    if value is None or value == [] or value == {} or value == ():
        return "none"
    if isinstance(value, dict):
        return "; ".join(f"{key}: {in_words(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(in_words(item) for item in value)
    return str(value)


def devices_without_run_framework(problem: str) -> dict[str, Any]:
    """What the machine has, found without the run framework (TensorFlow): the device kind,
    the devices by name, and each installed framework's version (from its metadata, nothing
    imported); the run framework's keys (`tensorflow`, `tensorflow_problem`, `_hint`) say why
    it is not there and what to install."""
    from importlib import metadata

    from engine.catalogue.catalog import frameworks, install_hint, run_framework

    lead = run_framework()
    name = lead.name if lead is not None else "run_framework"
    kind = probe_kind()
    names = visible_devices(kind)
    found = {}
    for framework in frameworks():
        if framework.process == "run" or not framework.installed:
            continue  # the run's own framework is the one that could not be used
        try:
            found[framework.name] = metadata.version(framework.module)
        except metadata.PackageNotFoundError:
            found[framework.name] = "installed"
    label = lead.label if lead is not None else "the run framework"
    return {
        name: None,
        f"{name}_problem": problem,
        f"{name}_hint": install_hint(name, kind) if lead is not None else "",
        "device_kind": kind,
        "devices": names,
        "max_replicas": len(names) if kind != "CPU" else "any (host threads)",
        "frameworks": found,
        "note": f"{label}'s strategies are unsupported here; the others run",
    }


def visible_devices(kind: str) -> list[str]:
    """The devices a run without TensorFlow can see, named without importing a framework:
    the host's cores on a CPU, each GPU's device file, or the TPU's hint."""
    if kind == "GPU":
        found = sorted(glob.glob("/dev/nvidia[0-9]*"), key=lambda p: int(p[len("/dev/nvidia") :]))
        return [f"GPU:{p[len('/dev/nvidia') :]}" for p in found] or ["GPU"]
    if kind == "TPU":
        return ["TPU"]
    return [f"CPU ({os.cpu_count() or 1} logical cores)"]


def strategy_rows() -> list[dict[str, Any]]:
    """The catalogue: not the user kernels an earlier request of this process registered (a
    warm worker's `serve` reads many configs)."""
    return [
        {
            "name": s.name,
            "kind": s.kind,
            "framework": s.framework,
            "installed": s.installed,
            "own_process": s.in_own_process,
            "xla": s.supports_xla,
            "distributable": s.distributable,
            "distribution": s.distribution,
            "launches": s.launches,
            "runs_on_host": s.runs_on_host,
            "baseline": s.baseline,
            "summary": s.summary,
            "expression": s.expression,
            "compiler": s.compiler,
            "chunks": s.chunks,
            "searchable": s.searchable,
            "search_only": s.search_only,
        }
        for s in strategies()
        if not s.user
    ]


STRATEGY_COLUMNS = ("name", "framework", "kind")  # padded to the longest of each


def command_strategies(args: argparse.Namespace) -> int:
    rows = strategy_rows()
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        widths = [max(len(str(row[key])) for row in rows) for key in STRATEGY_COLUMNS]
        for row in rows:
            cells = [f"{row[key]!s:<{width}}" for key, width in zip(STRATEGY_COLUMNS, widths)]
            missing = "" if row["installed"] else "  (not installed)"
            print(f"{'  '.join(cells)}  {row['summary']}{missing}")
    return EXIT_OK

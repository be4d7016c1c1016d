"""Run, show and save from Jupyter or Colab, where there is no Streamlit page to open.

    from engine import notebook
    notebook.devices(replicas=2)            # optional; before the first run
    result = notebook.run(matrices=3000, dim=100, strategies="all")
    notebook.show(result)                   # the dashboard's charts, answer and table
    notebook.save(result, "run.json")       # for the dashboard's History elsewhere

Runs happen in the notebook's own process, so TensorFlow's device layout is fixed by the
first one: ask for the replicas you will need with `devices()` first (a new layout needs a
kernel restart). Like the dashboard's warm worker, later runs reuse the probe buffers and, for
the same shape, dtype and seed, the inputs (never a strategy's function). Progress is tqdm's
notebook bar. Nothing here imports TensorFlow or plotly until it is used.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.machine.accelerators import DeviceError
from engine.results.files import write_text_atomically
from engine.run_settings.config import BenchConfig
from engine.run_settings.fields import ConfigError

if TYPE_CHECKING:  # the result model is not imported here: it would close an import circle
    from engine.results.run_result import RunResult

_layout: Any = None  # the DeviceSetup TensorFlow was started with in this process
_state: Any = None  # the WarmState kept between this notebook's runs (probe buffers, inputs)


def devices(replicas: int = 1) -> Any:
    """Start the run framework (TensorFlow) with `replicas` devices (logical CPUs on a
    CPU-only machine) and return the layout; later calls return the layout already made.
    Without a usable one, FrameworkMissing says why and what to install."""
    global _layout
    if _layout is None:
        from engine.catalogue.catalog import FrameworkMissing, install_hint, run_framework
        from engine.execution.run.own_process import run_framework_process
        from engine.machine.accelerators import probe_kind

        module, problem = run_framework_process()
        if module is None:
            lead = run_framework()
            hint = f"; {install_hint(lead.name, probe_kind())}" if lead is not None else ""
            raise FrameworkMissing(f"{problem}{hint}", problem or "")
        _layout = module.layout(replicas)
    return _layout


def config_of(config: BenchConfig | None, settings: dict[str, Any]) -> BenchConfig:
    """A config from keyword settings (validated like the CLI's), or `config` as given."""
    if config is not None and not isinstance(config, BenchConfig):
        raise TypeError(
            "config: pass a BenchConfig or keyword settings, e.g. "
            f"notebook.run(matrices=3000, dim=100); got {type(config).__name__}"
        )
    if config is not None and settings:
        raise TypeError("pass either a BenchConfig or settings, not both")
    if "kernels" in settings:
        settings = {**settings, "kernels": kernel_specs(settings["kernels"])}
    return config or BenchConfig.from_raw(settings)


def kernel_specs(kernels: Any) -> list[str]:
    """`kernels=` as the config takes them: "path.py:function" texts as they are, and
    functions (or {name: function}) by the file they were defined in. A function from a
    notebook cell has one too (the kernel writes each cell to a file): its imports must be
    in the same cell, because that file is what the measuring process imports."""
    items = list(kernels.items()) if isinstance(kernels, dict) else [(None, k) for k in kernels]
    specs = []
    for name, item in items:
        if isinstance(item, str):
            specs.append(item)
            continue
        code = getattr(item, "__code__", None)
        if code is None or not code.co_filename.endswith(".py"):
            raise TypeError(
                f"kernels: {name or item!r} is neither 'path.py:function' nor a function "
                "defined in a .py file"
            )
        if name is not None and name != item.__name__:
            raise TypeError(f"kernels: name {name!r} must be the function's name {item.__name__!r}")
        specs.append(f"{code.co_filename}:{item.__name__}")
    return specs


def run(config: BenchConfig | None = None, *, progress: bool = True, **settings: Any) -> RunResult:
    """Measure in this process, with a notebook progress bar; returns the result. Without a
    usable TensorFlow (Colab's TPU runtime has JAX only) the other installed frameworks run,
    and TensorFlow's strategies say what to install."""
    config = config_of(config, settings)
    from tqdm.auto import tqdm

    from engine.catalogue.catalog import run_framework_problem
    from engine.cli.progress import BarProgress
    from engine.execution.plan.run_plan import plan_run
    from engine.execution.run.orchestrator import measure
    from engine.execution.run.own_process import needs_run_framework
    from engine.execution.run.start import start_run
    from engine.machine.accelerators import probe_kind

    global _state
    bar = BarProgress(sys.stderr, bar=tqdm) if progress else None
    kind = probe_kind()
    # The run framework starts for a run of its strategies; once started, every run keeps it.
    fresh = _state is None and not needs_run_framework(config.strategies)
    if run_framework_problem() is not None or fresh:
        return measure(plan_run(config), start_run(config.strategies, kind).own, bar)
    layout = devices(config.replicas)
    if config.replicas > len(layout.available):
        raise DeviceError(
            f"replicas: {config.replicas} requested but this notebook's TensorFlow started "
            f"with {len(layout.available)}; call notebook.devices({config.replicas}) before "
            "the first run (restart the kernel to change it)"
        )
    setup = dataclasses.replace(layout, devices=layout.available[: config.replicas])
    if _state is None:
        from engine.execution.run.own_process import warm_state

        _state = warm_state()
    own = start_run(config.strategies, kind, state=_state, setup=setup).own
    return measure(plan_run(config), own, bar)


def _a_result(value: Any, call: str) -> RunResult:
    """`value` when it is a RunResult; otherwise a TypeError that says what to pass."""
    from engine.results.run_result import RunResult

    if not isinstance(value, RunResult):
        raise TypeError(
            f"result: {call} takes the RunResult that notebook.run returned; "
            f"got {type(value).__name__}"
        )
    return value


def show(result: RunResult) -> Any:
    """The dashboard's answer, code, table and charts for `result`, inline (needs plotly)."""
    from dashboard.notebook import show as show_inline

    show_inline(_a_result(result, "notebook.show"))


def report_html(result: RunResult) -> str:
    """The self-contained HTML report, as the dashboard downloads it (needs plotly)."""
    from dashboard.report import run_report

    return run_report(_a_result(result, "notebook.report_html"))


def save(result: RunResult, path: str | Path) -> Path:
    """Write the results JSON (atomically) for `import` or the dashboard's History."""
    from engine.results.files import check_output_file

    result = _a_result(result, "notebook.save")
    if not isinstance(path, str | Path) or not str(path).strip():
        raise ConfigError("path", "give the file to write, e.g. notebook.save(result, 'run.json')")
    target = check_output_file("path", path)
    write_text_atomically(str(target), result.to_json())
    return target

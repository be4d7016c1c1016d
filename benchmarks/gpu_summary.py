"""The one-screen summary of the GPU check's runs (`gpu_check.py`): per shape each variant's
median, synced against dispatch-only time, GB/s and its fraction of its own device's ceiling,
its host against device time, its graph and flushed forms, its clocks and its share of the
speed of light; every probe; the side-stream kernels' ratio to their framework's own."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def summarise(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    config = data["config"]
    lines = [
        f"{config['matrices']}x{config['dim']}x{config['cols']} {config['dtype']}: "
        f"run peak {data['peak']['bandwidth_bytes_per_s'] / 1e9:.1f} GB/s "
        f"({data['environment']['device_kind']} run)"
    ]
    for probe in data["peak"].get("probes", []):
        lines.append(
            f"  probe {probe.get('method', '?'):<7} {probe['when']:<6} "
            f"{probe['bandwidth_bytes_per_s'] / 1e9:8.1f} GB/s  {probe['kernel']}"
        )
    for entry in data["results"]:
        if entry["status"] != "ok":
            lines.append(f"  {entry['variant']:<16} {entry['status']}: {entry['error']}")
            continue
        fraction = entry.get("roofline_fraction")
        lines.append(
            f"  {entry['variant']:<16} median {entry['median_s'] * 1e6:9.1f} us  "
            f"dispatch {entry['dispatch_s'] * 1e6:8.1f} us  "
            f"{entry['gbytes_per_s']:8.1f} GB/s  "
            f"{'-' if fraction is None else f'{fraction:.0%}':>5} of its device  "
            f"correct={entry['correct']}  stop={entry.get('stop_reason')}"
        )
        lines.extend(f"    {line}" for line in device_truth_lines(entry))
    light = data.get("speed_of_light")
    if light:
        lines.append(
            f"  speed of light (run's device): {light['time_s'] * 1e6:.1f} us "
            f"({light['bytes'] / 1e6:.1f} MB over {light['level']} "
            f"{light['bytes_per_s'] / 1e9:.0f} GB/s)"
        )
    frameworks = data["environment"].get("frameworks", {})
    for name, info in frameworks.items():
        lines.append(f"  {name}: {info.get('device')} ({info.get('device_name')})")
    return lines


def device_truth_lines(entry: dict) -> list[str]:
    """Host against device time, graph against plain, warm against flushed, the clock and
    throttle record, and the share of its own speed of light (docs/timing.md, "Device
    time"); nothing for a result that has none of them."""
    lines = []
    split = entry.get("time_split")
    if split:
        lines.append(
            f"host {split['host_s'] * 1e6:.1f} us, op/device {split['op_s'] * 1e6:.1f} us "
            f"({split['op_ci_s'][0] * 1e6:.1f}-{split['op_ci_s'][1] * 1e6:.1f}), the rest "
            f"{split['overhead_share']:.0%} [{split['calls']}; {split['op_source']}]"
        )
    forms = entry.get("device_form_times") or {}
    shown = {name: found for name, found in forms.items() if isinstance(found, dict)}
    if shown:
        lines.append(
            "forms: "
            + ", ".join(
                f"{name} {found['median_s'] * 1e6:.1f} us"
                + (
                    f" ({found['ceiling_fraction']:.0%} of its level)"
                    if found.get("ceiling_fraction")
                    else ""
                )
                for name, found in shown.items()
            )
            + "".join(f"; {note}" for note in (entry.get("device_forms") or {}).get("notes", []))
        )
    clocks = entry.get("clocks") or []
    if clocks:
        sm = [c["sm_mhz"] for c in clocks if c.get("sm_mhz")]
        temps = [c["temperature_c"] for c in clocks if c.get("temperature_c") is not None]
        reasons = sorted({r for c in clocks for r in c.get("reasons", [])})
        lines.append(
            f"clocks: SM {min(sm, default=0)}-{max(sm, default=0)} MHz, "
            f"{min(temps, default=0)}-{max(temps, default=0)} C, "
            f"{sum(c['throttled'] for c in clocks)} of {len(clocks)} blocks throttled; "
            f"reasons seen: {', '.join(reasons) or 'none'}"
        )
    if entry.get("speed_of_light_s") and entry.get("median_s"):
        lines.append(f"speed of light: {entry['speed_of_light_s'] / entry['median_s']:.0%} of it")
    return lines


KERNELS = ROOT / "tests" / "fixtures" / "user_kernels"
# Each computes on a stream of its own and returns before it ends; against its framework's
# honest kernel on the same stream-free work.
SIDE_STREAMS = {
    "torch_side_stream": ("torch", "torch_bmm"),
    "cupy_side_stream": ("cupy", "cupy_matmul"),
}


def side_stream_kernels() -> list[str]:
    """`--kernel` flags for the side-stream kernels whose framework is installed."""
    flags = []
    for kernel, (framework, _) in SIDE_STREAMS.items():
        if importlib.util.find_spec(framework) is not None:
            flags.append(f"--kernel={KERNELS / f'{framework}_kernels.py'}:{kernel}")
    return flags


def side_stream_lines(path: Path) -> list[str]:
    """Each side-stream kernel's median over its framework's honest one: about 1 when the
    harness's sync covers every stream; far below 1 would mean the side stream went untimed."""
    medians = {
        e["variant"]: e["median_s"]
        for e in json.loads(path.read_text())["results"]
        if e["status"] == "ok"
    }
    lines = []
    for kernel, (_, honest) in SIDE_STREAMS.items():
        baseline = medians.get(honest)
        if kernel in medians and baseline:
            lines.append(
                f"  side stream: {kernel} / {honest} = "
                f"{medians[kernel] / baseline:.2f} (1 or more: timed whole; far below 1: untimed)"
            )
    return lines

"""Device panel: what the engine sees, found by the worker (the dashboard has no TensorFlow)."""

from __future__ import annotations

import json
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import streamlit as st

from dashboard.components.plain import plain
from engine.machine.accelerators import probe_kind
from engine.process.children import (
    ENGINE_ROOT,
    Child,
    engine_command,
    engine_environment,
    run_to_end,
)
from engine.process.parent_watch import END_WITH_PARENT

PROBE_TIMEOUT_S = 120


PROBE_NICENESS = 10  # the panel's probe yields the CPU to the worker that will measure


def _probe() -> dict[str, Any]:
    child = Child(
        engine_command("devices", "--json"),
        cwd=ENGINE_ROOT,
        env=engine_environment(TF_CPP_MIN_LOG_LEVEL="3", **{END_WITH_PARENT: "1"}),
        niceness=PROBE_NICENESS,
    )
    done = run_to_end(child, timeout_s=PROBE_TIMEOUT_S)
    if done.ended.timed_out:
        return {"error": f"the device probe took over {PROBE_TIMEOUT_S} s and was stopped"}
    if done.code != 0:
        return {"error": child.last_line("unknown error")}
    return json.loads(done.stdout)


@st.cache_resource(show_spinner=False)
def device_kind() -> str:
    """The device a run will use (TPU > GPU > CPU, found without TensorFlow), once per server:
    the warm workers are kept by it."""
    return probe_kind()


@st.cache_resource(show_spinner=False)
def device_probe() -> Future:
    """Started once per server, in the background, so the first page renders at once."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="device-probe").submit(_probe)


WAIT_POLL_S = 1.0  # how often a page waiting on the probe looks again, by itself


def render(peak_bytes_per_s: float | None, peak_source: str) -> None:
    """The panel; while the devices are still being found, it looks again every second on
    its own and fills the moment they are (a page must never need a touch to update)."""
    if device_probe().done():
        panel(peak_bytes_per_s, peak_source)
    else:
        waiting_panel(peak_bytes_per_s, peak_source)


@st.fragment(run_every=WAIT_POLL_S)
def waiting_panel(peak_bytes_per_s: float | None, peak_source: str) -> None:
    if device_probe().done():
        st.rerun(scope="app")  # the page again, with the panel filled (and no more polling)
    panel(peak_bytes_per_s, peak_source)


def panel(peak_bytes_per_s: float | None, peak_source: str) -> None:
    probe = device_probe()
    cols = st.columns(4)
    if not probe.done():
        cols[0].metric("Device", "…", help="detecting the devices in the background")
    else:
        try:
            info = probe.result()
        except Exception as error:  # noqa: BLE001 - shown, never raised into the page
            info = {"error": str(error)}
        if "error" in info:
            cols[0].metric("Device", "unknown")
            st.caption(plain(f"Device detection failed: {info['error']}"))
        else:
            seen = ", ".join(str(name) for name in info.get("devices") or ())
            cols[0].metric("Device", info.get("device_kind", "unknown"), help=seen or None)
            cols[1].metric(
                "TensorFlow",
                info.get("tensorflow") or "not installed",
                help=info.get("tensorflow_problem"),
            )
            most = info.get("max_replicas")
            cols[2].metric(
                "Replicas available",
                most if isinstance(most, int) else "any",
                help="On a CPU, replicas are simulated with logical devices sharing the cores.",
            )
    if peak_bytes_per_s:
        cols[3].metric("Measured peak bandwidth", f"{peak_bytes_per_s / 1e9:.1f} GB/s")
        st.caption(plain(peak_source))
    else:
        cols[3].metric(
            "Measured peak bandwidth", "–", help="measured by each run, on the device it uses"
        )

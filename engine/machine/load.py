"""How busy the machine was during a run: CPU time used by other processes, and the load.

A benchmark on a shared machine is only as good as the quiet it ran in. This records the CPU
seconds that processes other than this one (and its children) used between `start` and `stop`,
as a fraction of the machine's capacity over the same wall time. The tool's own other
processes (the dashboard's server and the browser showing it: `own_processes.py`) are recorded
apart, as `tool_cpu_s`: never charged to a verdict as other load.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import psutil

from engine.machine.own_processes import cpu_s, tool_pids

# Other processes using more than this share of all cores is worth a warning.
BUSY_FRACTION = 0.10


def _own_cpu_s() -> float:
    """This process's CPU seconds and its children's: the live ones, and those that ended and
    were waited for (`children_user`, `children_system`: a framework's process that finished
    before `stop` is still the run's own work, not another process's)."""
    me = psutil.Process()
    times = me.cpu_times()
    total = times.user + times.system
    total += getattr(times, "children_user", 0.0) + getattr(times, "children_system", 0.0)
    for child in me.children(recursive=True):
        try:
            total += sum(child.cpu_times()[:2])
        except psutil.Error:
            continue
    return total


def _own_tree() -> set[int]:
    me = psutil.Process()
    try:
        return {me.pid, *(child.pid for child in me.children(recursive=True))}
    except psutil.Error:
        return {me.pid}


def _machine_busy_s() -> float:
    times = psutil.cpu_times()
    return float(sum(times)) - float(times.idle) - float(getattr(times, "iowait", 0.0))


@dataclass(frozen=True)
class MachineLoad:
    load_at_start: tuple[float, float, float] | None  # 1, 5, 15 minute load averages
    other_cpu_s: float  # CPU seconds other processes used during the run
    wall_s: float
    cores: int
    tool_cpu_s: float = 0.0  # the dashboard's server and its browser: the tool's own, apart

    @property
    def other_cpu_fraction(self) -> float:
        capacity = self.wall_s * self.cores
        return max(0.0, self.other_cpu_s / capacity) if capacity > 0 else 0.0

    @property
    def tool_cpu_fraction(self) -> float:
        capacity = self.wall_s * self.cores
        return max(0.0, self.tool_cpu_s / capacity) if capacity > 0 else 0.0

    @property
    def tool_note(self) -> str | None:
        """The tool's own load beside the run, said apart (it widens no verdict)."""
        if self.tool_cpu_fraction < 0.01:
            return None
        return (
            f"the dashboard and the browser showing it used {self.tool_cpu_fraction:.0%} of "
            f"the CPU ({self.tool_cpu_s:.1f} CPU-s over {self.wall_s:.1f} s): the tool's own, "
            "not counted as other processes' load"
        )

    @property
    def warning(self) -> str | None:
        if self.other_cpu_fraction <= BUSY_FRACTION:
            return None
        return (
            f"the machine was busy: other processes used {self.other_cpu_fraction:.0%} of the "
            f"CPU ({self.other_cpu_s:.1f} CPU-s over {self.wall_s:.1f} s); timings may be slower "
            "and noisier than on a quiet machine"
        )


class LoadMonitor:
    """`start()` before the work, `stop()` after it."""

    def start(self) -> LoadMonitor:
        self.load = os.getloadavg() if hasattr(os, "getloadavg") else None
        self.began = time.perf_counter()
        self.machine_s = _machine_busy_s()
        self.own_s = _own_cpu_s()
        self.tools = tool_pids(_own_tree())  # found once: a scan of every process's sockets
        self.tool_s = cpu_s(self.tools)
        return self

    def share_so_far(self) -> float:
        """Other processes' share of the machine's CPU since `start`, without stopping: asked
        between rounds of blocks, so the tool's processes are those found at `start` (only
        their CPU times are read; a browser process started since counts as other load)."""
        return self.stop(find_tools_again=False).other_cpu_fraction

    def stop(self, find_tools_again: bool = True) -> MachineLoad:
        machine = _machine_busy_s() - self.machine_s
        own = _own_cpu_s() - self.own_s
        tools = tool_pids(_own_tree()) | self.tools if find_tools_again else self.tools
        now = cpu_s(tools)
        tool = sum(max(0.0, seconds - self.tool_s.get(pid, 0.0)) for pid, seconds in now.items())
        tool = min(tool, max(0.0, machine - own))
        return MachineLoad(
            load_at_start=tuple(round(v, 2) for v in self.load) if self.load else None,
            other_cpu_s=max(0.0, machine - own - tool),
            wall_s=time.perf_counter() - self.began,
            cores=psutil.cpu_count() or 1,
            tool_cpu_s=tool,
        )

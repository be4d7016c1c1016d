"""The clocks an NVIDIA GPU ran a timed block at, read through NVML (nvidia-ml-py) as the
block ends: SM and memory clocks, temperature, power and the reasons the driver gives for
holding the clocks down. A block taken while the GPU throttled (heat, a hardware slowdown, a
power brake, or an SM clock under `CLOCK_FLOOR` of its maximum) is marked, and the sampler
leaves it out of the interval (docs/timing.md, "Device time").

NVIDIA's own benchmark tool makes the same call (NVBench's `--discard-on-throttle`, with a
75% clock threshold). Without NVML (no NVIDIA driver, nvidia-ml-py not installed) nothing is
read and the run says so once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

NVML_HINT = "install nvidia-ml-py (pip install nvidia-ml-py==13.615.71) to read the GPU's clocks"
# An SM clock under this share of its maximum is a throttled block, whatever the reasons say.
CLOCK_FLOOR = 0.75
# NVML's clock event reasons (nvmlClocksEventReason*): those that slow the clocks down...
SLOWING = {
    0x8: "hardware slowdown",
    0x20: "software thermal slowdown",
    0x40: "hardware thermal slowdown",
    0x80: "hardware power brake",
}
# ... and those that only say why the clocks are where they are (recorded, not marked).
SAID = {
    0x1: "idle",
    0x2: "applications clocks setting",
    0x4: "software power cap",
    0x10: "sync boost",
    0x100: "display clocks setting",
}


@dataclass(frozen=True)
class BlockClocks:
    """One timed block's clocks, as the block ended."""

    sm_mhz: int | None
    memory_mhz: int | None
    temperature_c: int | None
    power_w: float | None
    reasons: tuple[str, ...]  # the driver's reasons, in words
    throttled: bool  # a slowing reason, or the SM clock under CLOCK_FLOOR of its maximum

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["reasons"] = list(self.reasons)
        return data

    @property
    def why(self) -> str:
        """Why it is marked throttled, in words."""
        slowing = [r for r in self.reasons if r in SLOWING.values()]
        return ", ".join(slowing) or "SM clock under 75% of its maximum"


def block_clocks(
    reasons_mask: int,
    sm_mhz: int | None,
    max_sm_mhz: int | None,
    memory_mhz: int | None,
    temperature_c: int | None,
    power_mw: int | None,
) -> BlockClocks:
    """The record of one reading (NVML's numbers as it gives them)."""
    reasons = tuple(
        words for bit, words in sorted({**SLOWING, **SAID}.items()) if reasons_mask & bit
    )
    slow_clock = bool(sm_mhz and max_sm_mhz and sm_mhz < CLOCK_FLOOR * max_sm_mhz)
    return BlockClocks(
        sm_mhz=sm_mhz,
        memory_mhz=memory_mhz,
        temperature_c=temperature_c,
        power_w=power_mw / 1000 if power_mw is not None else None,
        reasons=reasons,
        throttled=any(reasons_mask & bit for bit in SLOWING) or slow_clock,
    )


def _or_none(read: Callable[[], Any]) -> Any:
    """One NVML reading, or None where this GPU does not report it."""
    import pynvml

    try:
        return read()
    except pynvml.NVMLError:
        return None


def nvml_reader(
    uuid: str | None, index: int
) -> tuple[Callable[[], BlockClocks] | None, str | None]:
    """A reader of a GPU's clocks, found by its `uuid` ("GPU-..."; CUDA's numbering is not
    NVML's under CUDA_VISIBLE_DEVICES) or else its NVML `index`; or None and why not."""
    try:
        import pynvml
    except ImportError:
        return None, NVML_HINT
    try:
        pynvml.nvmlInit()
        if uuid:
            handle = pynvml.nvmlDeviceGetHandleByUUID(uuid)
        else:
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    except pynvml.NVMLError as error:
        return None, f"NVML could not open the GPU ({uuid or index}): {error}"
    sm, memory = pynvml.NVML_CLOCK_SM, pynvml.NVML_CLOCK_MEM
    max_sm = _or_none(lambda: pynvml.nvmlDeviceGetMaxClockInfo(handle, sm))
    reasons = getattr(  # renamed in newer bindings; the bits are the same
        pynvml,
        "nvmlDeviceGetCurrentClocksEventReasons",
        getattr(pynvml, "nvmlDeviceGetCurrentClocksThrottleReasons", None),
    )

    def read() -> BlockClocks:
        return block_clocks(
            (_or_none(lambda: reasons(handle)) or 0) if reasons else 0,
            _or_none(lambda: pynvml.nvmlDeviceGetClockInfo(handle, sm)),
            max_sm,
            _or_none(lambda: pynvml.nvmlDeviceGetClockInfo(handle, memory)),
            _or_none(lambda: pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU)),
            _or_none(lambda: pynvml.nvmlDeviceGetPowerUsage(handle)),
        )

    return read, None

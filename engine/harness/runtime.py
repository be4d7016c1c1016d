"""What every framework supplies to the one prepare -> sample -> check path
(`engine.harness.variant`): its device, its copy of the inputs, its sync, its copy back to the
host and the words its errors use. Everything else (inputs, timing, checking, statistics) is
the engine's own, the same for every framework."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from engine.results.formatting import classify_error


class Runtime(Protocol):
    framework: str
    device_kind: str  # CPU, GPU or TPU: where this framework's arrays live
    array_types: tuple[type, ...]  # its array classes: what a user's kernel must return

    def unsupported(self, dtype: str) -> str | None:
        """Why `dtype` cannot run here (None: it can)."""

    def put(self, host: tuple[np.ndarray, np.ndarray]) -> tuple[Any, Any]:
        """The engine's arrays on this framework's device, bit for bit, transfer finished."""

    def put_array(self, array: np.ndarray) -> Any:
        """One more array on the device, bit for bit, transfer finished (the fresh vectors a
        user's kernel is timed on, `harness/untrusted.py`)."""

    def store(self, placed: tuple[Any, Any], dtype: str) -> tuple[Any, Any]:
        """Placed inputs narrowed to `dtype` on the device, outside any timing (the storage of a
        reduced-precision point)."""

    def build(self, function: Callable[..., Any], option: str) -> Callable[..., Any]:
        """The callable to time (jax.jit for JAX; the kernel itself for eager PyTorch)."""

    def placement(self) -> AbstractContextManager[Any]:
        """The scope every call runs in (TensorFlow's device scope; nothing for the others),
        entered once around the first calls and the check, not once per timed call."""

    def sync(self, output: Any) -> None:
        """Block until `output`, and everything dispatched before it, is computed."""

    def to_host(self, output: Any) -> np.ndarray:
        """The output as a NumPy array, widened losslessly where NumPy lacks the dtype."""

    def classify(self, error: BaseException) -> str:
        """`unsupported` (no kernel or dtype for it here) or `failed`, in this framework's
        words for it."""

    def memory_stats(self) -> dict[str, int] | None:
        """The device's memory in use and at its peak (`bytes_in_use`, `peak_bytes_in_use`),
        where the framework reports it (a GPU or TPU); None on the host."""

    def environment(self) -> dict[str, Any]:
        """Version, device and thread settings, for the results' `environment.frameworks`."""

    # What a runtime can do beyond this (profile with its own profiler, probe its own
    # device's memory and L2, place replicas per GPU or over devices of its own) is declared
    # by its framework and held by a protocol each: `harness/capabilities.py`.


class ArraysSayWhere:
    """The fallbacks every runtime shares whose arrays say where they live (all but
    TensorFlow's, which places by a device scope): no placement around a call, and the
    engine's one rule for what an error means."""

    def placement(self) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()

    def classify(self, error: BaseException) -> str:
        return classify_error(error)

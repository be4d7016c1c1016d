"""The one prepare -> sample -> check path every framework's variants go through.

A variant is prepared the same way in the run's own process (TensorFlow's catalogue
strategies, mode single) and in a process of its own (NumPy without TensorFlow, JAX, PyTorch,
a user's kernel): its kernel is built, its sampler makes the first call, the warm-up and the
autorange inside the runtime's placement, its output on the check inputs is copied to the host
once and checked against float64, and a failure anywhere is that variant's status and one-line
reason, in its framework's words. The framework is a `Runtime` (`engine/harness/runtime.py`);
nothing here imports one.
"""

from __future__ import annotations

import contextlib
import functools
import signal
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.catalogue.catalog import import_kernel, strategy_info
from engine.harness.capabilities import TimesDevice
from engine.harness.recording import (
    Prepared,
    blank_result,
    check_outputs,
    mark_tpu_padding,
    record_timing,
)
from engine.harness.runtime import Runtime
from engine.harness.untrusted import FreshInputs, WrongTimedOutput
from engine.measure.timing import CheckCall, Kernel, Sampler
from engine.results.events import Phase, Progress, silent
from engine.results.formatting import one_line
from engine.run_settings.config import BenchConfig
from engine.run_settings.user_kernels import call_limit_s, load_kernel, user_kernel


@dataclass
class PlacedInputs:
    """The inputs a variant is timed and checked on, already where its framework reads them."""

    timed: Sequence[tuple[Any, Any]]  # one (A, x) per cold-cache copy, rotated through
    check: tuple[Any, Any]
    reference: np.ndarray  # float64 (B, m) for the check inputs
    # host -> device time of one set (0 on the host; None: placed beside other work, untimed)
    transfer_s: float | None
    # Each timed set's A on the host, kept in a user kernel's process only: its timed calls
    # are checked against them (`untrusted.FreshInputs`).
    host_matrices: Sequence[np.ndarray] = ()


def stored_inputs(runtime: Runtime, inputs: PlacedInputs, storage: str) -> PlacedInputs:
    """A reduced-precision point's inputs: the same values narrowed to `storage` on the
    device; the float64 reference stays that of the requested inputs."""
    return PlacedInputs(
        timed=[runtime.store(placed, storage) for placed in inputs.timed],
        check=runtime.store(inputs.check, storage),
        reference=inputs.reference,
        transfer_s=inputs.transfer_s,
        host_matrices=inputs.host_matrices,
    )


def kernel_function(strategy: str) -> Callable[..., Any]:
    """The function a strategy names: a user's kernel from its file, else the catalogue's."""
    found = user_kernel(strategy)  # registered when the request's config was parsed
    if found is not None:
        return load_kernel(found)
    return import_kernel(strategy_info(strategy))


class KernelHung(Exception):
    """A user kernel's first call did not return within the limit."""


@contextlib.contextmanager
def call_limit(limit: float | None, what: str = "its first calls") -> Iterator[None]:
    """A user kernel's first calls (the sampler's first call and warm-up, and the check), and
    then each of its timed blocks, must return within `limit` seconds (None: no limit):
    SIGALRM interrupts a kernel stuck in Python; the run's timeout of the kernel's whole
    process stops one stuck in native code."""
    if limit is None or not hasattr(signal, "SIGALRM"):
        yield
        return

    def expired(_signum: int, _frame: Any) -> None:
        raise KernelHung(f"{what} did not return within {limit:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed_kernel(
    runtime: Runtime, inputs: PlacedInputs, fn: Callable[..., Any], config: BenchConfig, user: bool
) -> Kernel:
    """What the timed calls call: the built function over the placed input sets in turn, on
    a GPU timed by the device too and its clocks read (`TimesDevice`); a user's kernel on
    fresh vectors every call, a sampled one checked (`FreshInputs`), timed by the host alone:
    it may compute on a stream of its own, which events on the current one do not see."""
    sets = inputs.timed
    if not user:
        timer, clocks = None, None
        if isinstance(runtime, TimesDevice):
            timer, clocks = runtime.device_timer(), runtime.clock_reader()
        return Kernel(
            call=lambda i: fn(*sets[i % len(sets)]),
            sync=runtime.sync,
            device_timer=timer,
            clocks=clocks,
        )
    if not inputs.host_matrices:
        raise RuntimeError("a user kernel runs only in its own process, with its inputs")
    return FreshInputs(
        runtime,
        fn,
        [a for a, _ in sets],
        inputs.host_matrices,
        config.dtype,
        refuse=functools.partial(refuse_non_array, runtime=runtime),
    ).as_kernel()


def warmed_and_checked(
    runtime: Runtime,
    config: BenchConfig,
    kernel: Kernel,
    check_call: Callable[[], Any],
    confirm: float | None,
    user: bool,
) -> tuple[Sampler | None, WrongTimedOutput | None, list[Any]]:
    """Its sampler made (first call, warm-up, autorange) under the call limit a user's
    kernel gets, and its checked call's output with its copy to the host (None: not yet
    copied); a `WrongTimedOutput` from a timed call, for the check to judge. A catalogue
    variant's first call is its check; a user's kernel is checked after its timed calls, as
    ever (one that behaves only until it has been checked is caught by the sampled checks of
    its blocks)."""
    checked: list[Any] = []  # the check's output, and its one copy to the host
    check = (
        None
        if user
        else CheckCall(
            check_call,
            runtime.sync,
            # copied before any later call can reuse the output's buffer
            lambda out: checked.extend((out, runtime.to_host(out))),
        )
    )
    sampler, wrong = None, None
    with runtime.placement(), call_limit(call_limit_s() if user else None):
        try:
            sampler = Sampler(
                kernel,
                warmup=config.warmup,
                budget_s=config.time_budget_s,
                check=check,
                confirm=confirm,  # never a user's kernel: it has no check call here
            )
        except WrongTimedOutput as error:  # the check says how, if it is wrong there
            wrong = error
        if not checked:
            output = check_call()
            if user:  # before anything converts it: a lazy object computes
                refuse_non_array(output, runtime)
            runtime.sync(output)
            checked.extend((output, None))
    return sampler, wrong, checked


def judge_checked(
    runtime: Runtime,
    result: Any,
    checked: list[Any],
    inputs: PlacedInputs,
    config: BenchConfig,
    storage: str,
    user: bool,
) -> None:
    """The checked call's output against the float64 reference (in its storage dtype's
    tolerance), copied to the host once; a user's kernel's dtype too."""
    output, host = checked
    if host is None:
        host = runtime.to_host(output)  # one copy to the host, for both checks
    check_outputs(
        result, [host], inputs.reference, config, convert=np.asarray, dtype=storage or None
    )
    if user:
        check_user_dtype(result, output, config.dtype)


def elsewhere_words(runtime: Runtime, run_device_kind: str, own_ceiling: bool) -> str:
    """A variant that ran on another device than the run's, and what it is placed against."""
    against = (
        "it is placed against that device's own read bandwidth"
        if own_ceiling
        else f"its roofline fraction is against the {run_device_kind}'s peak"
    )
    return (
        f"{runtime.framework} ran on the {runtime.device_kind}, not on the run's "
        f"{run_device_kind}: {against}"
    )


def prepare_variant(
    runtime: Runtime,
    config: BenchConfig,
    inputs: PlacedInputs,
    variant: tuple[str, str],
    *,
    build: Callable[[], Callable[..., Any]],
    run_device_kind: str,
    emit: Progress = silent,
    confirm: float | None = None,
    own_ceiling: bool = False,
) -> Prepared:
    """Build, first-call, warm up and check one variant; `build` makes its callable.
    `confirm`: the history shows it far slower than the best here, at this time per call:
    its first call is the check, and its one block is judged in the sampling
    (`execution/sampling/confirmation.py`). `own_ceiling`: its process probed its own device, and it
    is placed against that (a GPU framework beside a host run)."""
    strategy, option = variant
    result = blank_result(config, strategy, option, "ok")
    reason = runtime.unsupported(config.dtype)
    if reason:
        result.status, result.error = "unsupported", reason
        return Prepared(result)
    found = user_kernel(strategy)
    if found is not None:
        result.user_kernel = found.to_dict()  # its source travels with its numbers
    storage = strategy_info(strategy).storage if found is None else ""
    try:
        if storage:  # its own copies, narrowed on the device before any call
            inputs = stored_inputs(runtime, inputs, storage)
        fn = build()
        kernel = timed_kernel(runtime, inputs, fn, config, user=found is not None)

        def check_call() -> Any:
            emit(Phase("check", result.variant))
            return fn(*inputs.check)

        user = found is not None
        sampler, wrong_when_timed, checked = warmed_and_checked(
            runtime, config, kernel, check_call, confirm, user
        )
        judge_checked(runtime, result, checked, inputs, config, storage, user=found is not None)
        if wrong_when_timed is not None:
            if result.correct:  # right on the check, wrong when timed: it did not compute
                result.correct = False
                raise wrong_when_timed
            return Prepared(result)  # wrong, as the check says: nothing to time
    except Exception as error:  # noqa: BLE001 - one variant's failure keeps the others
        result.status, result.error = runtime.classify(error), one_line(error)  # type: ignore[assignment]
        return Prepared(result)
    if runtime.device_kind != run_device_kind:
        result.warnings.append(elsewhere_words(runtime, run_device_kind, own_ceiling))
    if runtime.device_kind == "TPU":
        mark_tpu_padding(result, config)
    prepared = Prepared(result, sampler, lambda t: record_timing(result, t, inputs.transfer_s))
    if found is not None:  # a kernel that hangs later, in a timed block, fails alone too
        prepared.guard = functools.partial(call_limit, call_limit_s(), "a timed block")
    return prepared


class NotAnArray(TypeError):
    """A user kernel returned something that is not its framework's array."""


def refuse_non_array(output: Any, runtime: Any) -> None:
    """A user kernel's output must be its framework's own array: an object that computes only
    when converted (a lazy result) would be timed without its work, since the sync and the
    timing see only the object."""
    if not isinstance(output, runtime.array_types):
        kind = type(output).__module__ + "." + type(output).__qualname__
        raise NotAnArray(f"returns a {kind}, not an array of {runtime.framework}")


def dtype_name(output: Any) -> str | None:
    """An array's dtype in the engine's words, whatever the framework ("torch.bfloat16",
    NumPy's and ml_dtypes' dtypes, TensorFlow's DType: all "bfloat16")."""
    dtype = getattr(output, "dtype", None)
    if dtype is None:
        return None
    name = getattr(dtype, "name", None)
    return (name if isinstance(name, str) else str(dtype)).removeprefix("torch.")


def check_user_dtype(result: Any, output: Any, dtype: str) -> None:
    """A user kernel must return the requested dtype, read on its device before any widening
    copy: float64 from float32 inputs (or float32 from bfloat16) would be right in value and
    wrong in cost (more bytes written)."""
    returned = dtype_name(output)
    if returned is not None and returned != dtype:
        result.correct = False
        result.warnings.append(f"incorrect: it returned {returned}, not {dtype}")


def failing_sample(classify: Callable[[BaseException], str]) -> Callable[[Prepared, Any], None]:
    """What a block that raised while sampling does to its variant, in any framework: failed
    (or unsupported) with its one-line reason, its partial samples dropped, sampled no more."""

    def fail(item: Prepared, error: BaseException) -> None:
        item.result.status = classify(error)  # type: ignore[assignment]
        item.result.error = one_line(error)
        item.result.correct = False
        item.sampler = item.finish = None

    return fail

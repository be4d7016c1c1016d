"""The one kernel builder every mode uses: the catalogue entry decides how a kernel is wrapped.

Graph kernels become a `tf.function` (with `jit_compile=True` for +xla, and `reduce_retracing`
so a new shape does not trace a new graph each call); eager and host kernels are called as
they are. Tests replace a kernel through `builders` to inject failures.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from engine.backends.tensorflow.loader import tf
from engine.catalogue.catalog import import_kernel, strategy_info

Builder = Callable[..., Callable[..., Any]]


def build_kernel(strategy: str, *, xla: bool = False, dataset_batch: int = 256) -> Callable:
    """The callable to time for `strategy`: a traced tf.function for graph kernels."""
    info = strategy_info(strategy)
    function = import_kernel(info)
    if xla and not info.supports_xla:
        raise ValueError(f"{strategy} is not a graph strategy: it has no +xla variant")
    if "batch_size" in info.options:
        function = functools.partial(function, batch_size=dataset_batch)
    if info.kind == "graph":
        return tf.function(function, jit_compile=xla, reduce_retracing=True)
    return function


def builder_with(overrides: Mapping[str, Builder] | None) -> Builder:
    """`build_kernel`, except for the strategies a test replaces."""

    def build(strategy: str, **options: Any) -> Callable[..., Any]:
        custom = (overrides or {}).get(strategy)
        return (custom or build_kernel)(strategy, **options)

    return build

"""Framework processes kept between runs: a warm worker's (`serve`) and a sweep's points.

A run starts one process per peer framework (JAX, PyTorch) and ends it with the run, so every
run pays for importing the framework and compiling its variants again (seconds each:
docs/timing.md, "Figures behind the code"). Inside `kept_peers()` each framework's process
(`peers/worker.py --keep`) serves a request a line and stays, with its runtime and built
functions (`peers/kept.py`), for the next run or point of the same shape and dtype.

What is never kept: a user's kernel (a process of its own for every run: it is not trusted
with state), a replicated or sharded run's, a JAX cluster's, and any process on a machine with
an accelerator (a kept JAX process would hold most of a GPU's memory while the next framework
needs it). A kept process that ends, hangs or answers out of turn is ended and the run is told
as a fresh one's would be; the next run starts a fresh one. Each request carries a token of its
own, so a line left over from an earlier one is refused. A run starts its processes early
(`prestart`, on a thread each, while its own process imports TensorFlow) and measures only
once they have answered (`settle`).
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

from engine.execution.peers.process import (
    WORKER_COMMAND,
    PeerLines,
    silence_for,
    starts_a_variant,
)
from engine.execution.peers.worker import KEEP_FLAG
from engine.machine.jax_cluster import cluster_from_environment
from engine.process.children import Child, engine_environment
from engine.process.conversation import converse
from engine.results.events import Progress, silent


class PeerPool:
    """The kept processes, by process name ("jax", "torch@1thread") and thread count, one for
    each: a request of another dtype replaces it (a framework's settings for one dtype, JAX's
    x64, are the whole process's)."""

    def __init__(self, command: tuple[str, ...] = (*WORKER_COMMAND, KEEP_FLAG)) -> None:
        self.command = command
        self.children: dict[tuple[str, int], Child] = {}
        self.dtypes: dict[tuple[str, int], str] = {}
        self.starting: list[threading.Thread] = []

    def ask(
        self,
        key: tuple[str, int],
        request: dict[str, Any],
        emit: Progress,
        timeout_s: float,
        call_limit_s: float | None = None,
        dtype: str = "",
    ) -> tuple[Any, str]:
        """`request` answered by the kept process for `key` (started now if there is none, it
        ended, or it served another `dtype`): its `peer_result` and, when it did not answer
        cleanly, why."""
        child = self.child_for(key, dtype)
        lines = PeerLines(emit)
        try:
            ended = converse(
                child,
                lines.request_text(request),
                lines,
                lambda: lines.answered,
                timeout_s=timeout_s,
                silence_s=silence_for(call_limit_s),
                silence_from=starts_a_variant,
            )
        except BaseException:  # SIGINT mid-request: it is ended, as a run's own would be
            self.drop(key)
            raise
        if not ended.alive or lines.forged:  # something else spoke on its channel: not kept
            self.drop(key)
        return lines.outcome(ended, child, timeout_s, call_limit_s)

    def child_for(self, key: tuple[str, int], dtype: str) -> Child:
        """The kept process for `key`, started now if there is none, it ended, or it served
        another `dtype`."""
        child = self.children.get(key)
        if child is not None and (child.poll() is not None or self.dtypes.get(key) != dtype):
            self.drop(key)
            child = None
        if child is None:
            child = Child(list(self.command), stdin=subprocess.PIPE, env=engine_environment())
            self.children[key], self.dtypes[key] = child, dtype
        return child

    def prestart(
        self, key: tuple[str, int], request: dict[str, Any], timeout_s: float, dtype: str
    ) -> None:
        """Send `request` (a prestart: load the framework, draw the inputs, measure nothing:
        `peers/preparing.py`) to the process for `key`, started now if need be, and wait for
        its answer on a thread of its own; `settle` waits for every such answer."""
        self.child_for(key, dtype)  # here: the threads never start processes

        def ask_quietly() -> None:
            try:
                self.ask(key, request, silent, timeout_s, dtype=dtype)
            except Exception:  # noqa: BLE001 - the run's own request meets it and says why
                self.drop(key)

        thread = threading.Thread(target=ask_quietly, name=f"prestart {key[0]}", daemon=True)
        thread.start()
        self.starting.append(thread)

    def settle(self) -> None:
        """Wait until every prestarted process has answered (each within its timeout): the
        run measures only once nothing of its own is starting beside it."""
        for thread in self.starting:
            thread.join()
        self.starting.clear()

    def drop(self, key: tuple[str, int]) -> None:
        child = self.children.pop(key, None)
        self.dtypes.pop(key, None)
        if child is not None:
            child.end(grace_s=0.5)

    def close(self) -> None:
        """End every kept process: its stdin closes (it leaves its loop), then its group."""
        for child in list(self.children.values()):  # a prestart's thread may drop one
            with contextlib.suppress(OSError):
                if child.process.stdin is not None:
                    child.process.stdin.close()
            child.end(grace_s=2.0)
        self.children.clear()
        self.dtypes.clear()


_kept: list[PeerPool] = []


@contextlib.contextmanager
def kept_peers() -> Iterator[PeerPool]:
    """Peer processes kept for the runs inside the block (nested: the outer block's)."""
    if _kept:
        yield _kept[-1]
        return
    pool = PeerPool()
    _kept.append(pool)
    try:
        yield pool
    finally:
        _kept.remove(pool)
        pool.close()


def settle_peers() -> None:
    """Wait for the kept processes prestarted for this run (`PeerPool.settle`), if any."""
    if _kept:
        _kept[-1].settle()


def pool_for(process: str, mode: str, machine_kind: str) -> PeerPool | None:
    """The pool a peer process of this run may be kept in, or None (see the module's list)."""
    if not _kept or ":" in process or mode != "single" or machine_kind != "CPU":
        return None
    try:
        cluster = cluster_from_environment()
    except ValueError:
        return None
    if cluster is not None and cluster.processes > 1:
        return None
    return _kept[-1]

"""The run's own process watches its calls: a step that outlives the limit is named, what
finished is handed over, and the process is ended; a step that keeps showing life is not."""

from __future__ import annotations

import threading
import time

from engine.execution.sampling import hang_watch
from engine.execution.sampling.hang_watch import HangWatch
from engine.results.events import Sample, VariantResult, VariantStarted


def watch_with(limit_s: float):
    fired: list = []
    ended = threading.Event()
    codes: list[int] = []

    def end(code: int) -> None:
        codes.append(code)
        ended.set()

    return HangWatch(limit_s, fired.append, end=end), fired, ended, codes


def test_a_step_past_the_limit_is_named_with_what_finished(monkeypatch):
    monkeypatch.setattr(hang_watch, "POLL_S", 0.05)
    watch, fired, ended, codes = watch_with(0.3)
    seen: list = []
    emit = watch.watching(seen.append)
    with watch:
        emit(VariantResult({"variant": "jax_einsum", "status": "ok"}))
        emit(VariantStarted("einsum"))  # and then nothing: its first call never returns
        assert ended.wait(5)
    (hung,) = fired
    assert hung.variant == "einsum" and hung.waited_s > 0.3 and codes == [4]
    assert hung.finished == [{"variant": "jax_einsum", "status": "ok"}]
    assert len(seen) == 2  # every event still reaches the run's own progress
    assert hung.sentence().startswith("einsum made no progress for")


def test_steady_progress_never_fires_and_a_stopped_watch_stays_quiet(monkeypatch):
    monkeypatch.setattr(hang_watch, "POLL_S", 0.05)
    watch, fired, ended, _ = watch_with(2.0)  # 20x the gap between samples: a loaded host too
    emit = watch.watching(lambda _e: None)
    with watch:
        for index in range(10):  # 1 s of samples, one each 0.1 s
            emit(Sample("numpy", index, 10, 0.001))
            time.sleep(0.1)
    time.sleep(0.5)  # after the run: nothing to watch
    assert fired == [] and not ended.is_set()


def test_a_turn_begun_in_the_sampling_loop_names_its_own_variant(monkeypatch):
    """In interleaved sampling the last event is the previous variant's sample: the loop's
    own mark says whose block is running."""
    monkeypatch.setattr(hang_watch, "POLL_S", 0.05)
    watch, fired, ended, _ = watch_with(0.3)
    emit = watch.watching(lambda _e: None)
    with watch:
        emit(Sample("numpy", 1, 10, 0.001))
        hang_watch.step("einsum")
        assert ended.wait(5)
    assert fired[0].variant == "einsum"

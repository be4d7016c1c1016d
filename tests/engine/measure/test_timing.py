"""The timing harness against a simulated asynchronous device with a virtual clock.

The fake device returns from each call after `dispatch_s` but only finishes the work on sync:
exactly the situation that produces the classic "0.001 s" illusion. A virtual clock makes the
expected numbers exact, so these tests check behaviour, not this machine's speed.
"""

import itertools

import pytest

from engine.measure.timing import (
    MIN_BLOCK_S,
    CheckCall,
    Kernel,
    Sampler,
    autorange,
    ladder_calls,
    time_kernel,
)


class AsyncDevice:
    def __init__(self, work_s: float, dispatch_s: float = 1e-6, first_extra_s: float = 0.0):
        self.now = 0.0
        self.busy_until = 0.0
        self.work_s = work_s
        self.dispatch_s = dispatch_s
        self.first_extra_s = first_extra_s
        self.calls: list[int] = []

    def clock(self) -> float:
        return self.now

    def call(self, index: int) -> int:
        self.now += self.dispatch_s
        extra = self.first_extra_s if not self.calls else 0.0
        self.busy_until = max(self.busy_until, self.now) + self.work_s + extra
        self.calls.append(index)
        return index

    def sync(self, _output) -> None:
        self.now = max(self.now, self.busy_until)

    def kernel(self) -> Kernel:
        return Kernel(call=self.call, sync=self.sync)


def test_async_work_is_never_reported_faster_than_the_work():
    device = AsyncDevice(work_s=0.003)
    timing = time_kernel(device.kernel(), warmup=2, repeats=10, budget_s=100, clock=device.clock)
    assert timing.measurement.median_s == pytest.approx(0.003, rel=1e-3)
    assert timing.measurement.min_s >= 0.003 - 1e-12
    # The unsynchronised return time is reported separately, and is the illusion.
    assert timing.dispatch_s == pytest.approx(1e-6)


def test_first_call_is_timed_alone():
    device = AsyncDevice(work_s=0.01, first_extra_s=2.0)
    timing = time_kernel(device.kernel(), warmup=1, repeats=3, budget_s=100, clock=device.clock)
    assert timing.first_call_s == pytest.approx(2.01, rel=1e-3)
    assert timing.measurement.median_s == pytest.approx(0.01, rel=1e-3)


def test_autorange_grows_blocks_until_above_the_minimum():
    device = AsyncDevice(work_s=0.0007)
    from engine.measure.blocks import Counter, Deadline

    calls = autorange(
        device.kernel(),
        Counter(),
        Deadline(100, device.clock),
        min_block_s=0.02,
        clock=device.clock,
    )
    # 0.7 ms a call: one call says 29 are needed, the ladder's next is 30 (21 ms), not the
    # 1-2-5 ladder's 50 (35 ms)
    assert calls == 30
    timing = time_kernel(
        device.kernel(), warmup=0, repeats=3, budget_s=100, min_block_s=0.02, clock=device.clock
    )
    assert timing.measurement.calls_per_sample == 30


@pytest.mark.parametrize("work_ms", [0.013, 0.3, 0.7, 1.1, 2.4, 4.1, 6.9, 8.5, 11.0, 19.9])
def test_autoranged_blocks_last_between_the_minimum_and_half_as_much_again(work_ms):
    from engine.measure.blocks import Counter, Deadline

    device = AsyncDevice(work_s=work_ms / 1000)
    calls = autorange(device.kernel(), Counter(), Deadline(100, device.clock), clock=device.clock)
    block_s = calls * work_ms / 1000
    assert MIN_BLOCK_S <= block_s + 1e-9 <= 1.5 * MIN_BLOCK_S + work_ms / 1000
    assert calls == ladder_calls(calls)  # always a ladder value


def test_the_ladder_steps_by_at_most_half_again():
    values = sorted({ladder_calls(n) for n in range(1, 20_001)})
    assert values[:14] == [1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 40, 50, 70, 100]
    assert all(b / a <= 2.0 for a, b in itertools.pairwise(values))
    assert all(b / a <= 1.5 for a, b in itertools.pairwise(values[1:]))


def test_slow_kernel_uses_single_call_blocks():
    device = AsyncDevice(work_s=0.5)
    timing = time_kernel(device.kernel(), warmup=0, repeats=2, budget_s=100, clock=device.clock)
    assert timing.measurement.calls_per_sample == 1


def test_time_budget_stops_sampling_early_and_says_so():
    device = AsyncDevice(work_s=1.0)
    timing = time_kernel(device.kernel(), warmup=0, repeats=1000, budget_s=10, clock=device.clock)
    assert timing.budget_exhausted
    assert 1 <= len(timing.measurement.samples_s) < 1000
    assert any("time budget" in w for w in timing.warnings)
    assert device.now < 15  # never ran far past the budget


def test_at_least_one_sample_even_when_the_first_call_spends_the_budget():
    device = AsyncDevice(work_s=5.0)
    timing = time_kernel(device.kernel(), warmup=3, repeats=5, budget_s=1, clock=device.clock)
    assert len(timing.measurement.samples_s) == 1
    assert any("warm-up cut" in w for w in timing.warnings)


def test_call_indices_never_repeat_so_cold_cache_rotation_advances():
    device = AsyncDevice(work_s=0.01)
    time_kernel(device.kernel(), warmup=2, repeats=4, budget_s=100, clock=device.clock)
    assert device.calls == list(range(len(device.calls)))
    assert all(a % 2 != b % 2 for a, b in zip(device.calls, device.calls[1:]))


def test_progress_callback_sees_every_sample():
    device = AsyncDevice(work_s=0.05)
    seen = []
    time_kernel(
        device.kernel(),
        warmup=0,
        repeats=4,
        budget_s=100,
        clock=device.clock,
        on_sample=lambda done, total: seen.append((done, total)),
    )
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_a_slow_kernel_is_warmed_once_and_its_one_call_blocks_need_no_autorange():
    """A half-second call: one warm-up call (not three) and no autorange block; the warm-up
    call, timed both ways, gives the dispatch time."""
    device = AsyncDevice(work_s=0.5, dispatch_s=0.001)
    timing = time_kernel(device.kernel(), warmup=3, repeats=2, budget_s=100, clock=device.clock)
    assert len(device.calls) == 1 + 1 + 2  # first call, one warm-up call, two samples
    assert timing.measurement.calls_per_sample == 1
    assert timing.dispatch_s == pytest.approx(0.001)
    assert timing.measurement.median_s == pytest.approx(0.501, rel=1e-3)
    assert not any("warm-up" in w for w in timing.warnings)


def test_the_check_call_is_the_first_warm_up_call():
    """An eager loop of seconds per call is called for the check once, as its warm-up: first
    call, the check, the samples; its output is kept before any later call, and the check's
    timing gives the dispatch time as a warm-up call's would."""
    device = AsyncDevice(work_s=0.5, dispatch_s=0.001)
    kept = []
    check = CheckCall(call=lambda: device.call(-1), sync=device.sync, keep=kept.append)
    sampler = Sampler(device.kernel(), warmup=3, budget_s=100, clock=device.clock, check=check)
    sampler.sample()
    assert device.calls == [0, -1, 1]  # first call, the check (on its inputs), one sample
    assert kept == [-1] and sampler.checked
    assert sampler.calls == 1 and sampler.dispatch_s == pytest.approx(0.001)
    # A fast kernel: the check counts as one of its warm-up calls.
    device = AsyncDevice(work_s=0.01)
    check = CheckCall(call=lambda: device.call(-1), sync=device.sync, keep=kept.append)
    Sampler(device.kernel(), warmup=3, budget_s=100, clock=device.clock, check=check)
    assert device.calls[:4] == [0, -1, 1, 2]  # first, the check, two more warm-up calls


def test_without_a_warm_up_the_check_is_left_to_its_caller():
    """`warmup=0` asks for no call before the samples: the check is not made there."""
    device = AsyncDevice(work_s=0.01)
    check = CheckCall(call=lambda: device.call(-1), sync=device.sync, keep=lambda _o: None)
    sampler = Sampler(device.kernel(), warmup=0, budget_s=100, clock=device.clock, check=check)
    assert -1 not in device.calls and not sampler.checked


def test_a_fast_kernel_gets_every_warm_up_call():
    device = AsyncDevice(work_s=0.01)
    time_kernel(device.kernel(), warmup=3, repeats=1, budget_s=100, clock=device.clock)
    # first call, 3 warm-up calls, autorange (1, 2), the dispatch block (2), one sample (2)
    assert len(device.calls) == 1 + 3 + 1 + 2 + 2 + 2


def test_a_multi_worker_sampler_makes_every_warm_up_call_whatever_the_time():
    """Every worker must make the same calls: the time cap on warm-up does not apply."""
    device = AsyncDevice(work_s=0.5)
    time_kernel(
        device.kernel(), warmup=3, repeats=1, budget_s=1e9, clock=device.clock, fixed_calls=1
    )
    assert len(device.calls) == 1 + 3 + 1 + 1  # first, 3 warm-up, the dispatch block, a sample


def test_a_confirming_sampler_makes_the_check_its_first_call_and_then_one_block():
    """A variant the history shows far slower than the best: its first call is the check
    (output kept, time reported as the first call's), then no warm-up and no autorange; its
    one block is timed both ways, so it gives the dispatch time too."""
    device = AsyncDevice(work_s=0.5, dispatch_s=0.001, first_extra_s=0.3)
    kept = []
    check = CheckCall(call=lambda: device.call(-1), sync=device.sync, keep=kept.append)
    sampler = Sampler(
        device.kernel(), warmup=3, budget_s=100, clock=device.clock, check=check, confirm=0.5
    )
    assert device.calls == [-1] and kept == [-1] and sampler.checked and sampler.confirming
    assert sampler.first_call_s == pytest.approx(0.801, rel=1e-3)
    assert sampler.sample() == pytest.approx(0.501, rel=1e-3)
    assert device.calls == [-1, 0]
    assert sampler.calls == 1 and sampler.dispatch_s == pytest.approx(0.001)


def test_a_fast_confirming_variants_block_is_sized_by_its_history_not_its_first_call():
    """Far slower than the best and still fast: its one block takes enough calls, as its
    history's time per call says, to last about `MIN_BLOCK_S`; its first call (tracing
    included, here 0.3 s) sizes neither the block nor the re-warm before it."""
    device = AsyncDevice(work_s=0.004, first_extra_s=0.3)
    check = CheckCall(call=lambda: device.call(-1), sync=device.sync, keep=lambda _o: None)
    sampler = Sampler(
        device.kernel(), warmup=3, budget_s=100, clock=device.clock, check=check, confirm=0.004
    )
    assert sampler.per_call_s() == 0.004  # so the sampling re-warms it before its block
    sampler.sample()
    assert sampler.calls == ladder_calls(MIN_BLOCK_S / 0.004)
    assert sampler.last_block_s >= MIN_BLOCK_S


def test_a_confirming_variants_first_call_sizes_its_block_when_shorter_than_its_estimate():
    """An estimate scaled from a sweep's smaller point may be too long: a first call of
    4 ms against an estimate of 0.5 s sizes the block and says it needs a re-warm, as a fast
    variant's history would (the first call, warm-up included, is about the longest)."""
    device = AsyncDevice(work_s=0.004)
    check = CheckCall(call=lambda: device.call(-1), sync=device.sync, keep=lambda _o: None)
    sampler = Sampler(
        device.kernel(), warmup=3, budget_s=100, clock=device.clock, check=check, confirm=0.5
    )
    assert sampler.per_call_s() == pytest.approx(0.004, rel=1e-3)
    assert sampler.calls == ladder_calls(MIN_BLOCK_S / sampler.first_call_s)
    sampler.sample()
    assert sampler.last_block_s >= MIN_BLOCK_S


def test_a_confirming_variant_measured_in_full_drops_its_block_and_warms_up():
    device = AsyncDevice(work_s=0.01)
    check = CheckCall(call=lambda: device.call(-1), sync=device.sync, keep=lambda _o: None)
    sampler = Sampler(
        device.kernel(), warmup=3, budget_s=100, clock=device.clock, check=check, confirm=0.01
    )
    sampler.sample()
    before = len(device.calls)
    sampler.measure_in_full()
    assert not sampler.confirming and sampler.samples == []
    # three warm-up calls, then autorange (1, 2) and the dispatch block (2): as any variant
    assert len(device.calls) - before == 3 + 1 + 2 + 2
    sampler.sample()
    assert sampler.samples[0] == pytest.approx(0.01, rel=1e-3)


def test_without_a_check_or_with_fixed_calls_nothing_is_confirmed():
    """A user's kernel (checked after its timed calls) and a multi-worker run (every worker
    the same calls) are always measured in full."""
    device = AsyncDevice(work_s=0.01)
    assert not Sampler(
        device.kernel(), warmup=1, budget_s=100, clock=device.clock, confirm=0.01
    ).confirming
    check = CheckCall(call=lambda: device.call(-1), sync=device.sync, keep=lambda _o: None)
    assert not Sampler(
        device.kernel(),
        warmup=1,
        budget_s=1e9,
        clock=device.clock,
        check=check,
        fixed_calls=2,
        confirm=0.01,
    ).confirming


def test_a_samplers_rewarms_are_counted_apart_from_its_samples():
    """Each re-warm lasts at least `REWARM_S` of the kernel's own calls (rounded up to a whole
    call) and is counted in `rewarm_s`, never in a sample; a kernel whose one call outlasts it
    gets none."""
    from engine.measure.timing import REWARM_S

    device = AsyncDevice(work_s=0.01)
    sampler = Sampler(device.kernel(), warmup=1, budget_s=100, clock=device.clock)
    for _ in range(2):
        sampler.rewarm()
        sampler.sample()
    timing = sampler.timing(repeats=2)
    assert timing.rewarm_s == pytest.approx(2 * 0.12, rel=1e-3)  # 12 calls of 10 ms each time
    assert timing.rewarm_s >= 2 * REWARM_S
    assert timing.measurement.median_s == pytest.approx(0.01, rel=1e-3)
    slow = AsyncDevice(work_s=0.5)
    lone = Sampler(slow.kernel(), warmup=1, budget_s=100, clock=slow.clock)
    lone.rewarm()
    lone.sample()
    assert lone.timing(repeats=1).rewarm_s == 0.0

"""Progress by decision: the fraction follows the work left, and the words say what is still
running and what the race eliminated."""

from __future__ import annotations

import io

import pytest

from dashboard.services.job_status import JobStatus, apply_event
from dashboard.text.progress import describe_run, run_fraction
from engine.cli.progress import BarProgress
from engine.results.events import (
    Done,
    Eliminated,
    Phase,
    Provisional,
    Sample,
    Started,
    VariantDone,
    VariantResult,
    VariantStarted,
)

VARIANTS = ("python_loop", "einsum", "numpy")


def events_until_one_is_eliminated():
    yield Started(VARIANTS)
    for variant in VARIANTS:
        yield VariantStarted(variant)
    yield Phase("sampling (interleaved)")
    for round_ in (1, 2, 3):
        for variant in VARIANTS:
            yield Sample(variant, round_, 20, 0.004)
    yield Eliminated("python_loop", "numpy", 110.9, 95.3)
    yield VariantDone("python_loop", "ok")
    yield VariantResult({"variant": "python_loop"})


def test_a_stopped_variant_is_credited_in_full_and_named_as_eliminated():
    status = JobStatus(elapsed_s=2.0, max_samples=20)
    fractions = []
    for event in events_until_one_is_eliminated():
        apply_event(status, event)
        fractions.append(run_fraction(status))
    assert fractions == sorted(fractions)  # never goes back
    # 3 prepared + einsum 3 + numpy 3 + python_loop 20 (stopped) of 3 x (1 + 20)
    assert fractions[-1] == pytest.approx((3 + 3 + 3 + 20) / 63)
    text = describe_run(status)
    assert text.startswith("Sampling: 2 of 3 still running (einsum, numpy)")
    assert "eliminated: python_loop 110.90× numpy" in text


def test_preparing_says_which_variant_and_what_is_done_to_it():
    status = JobStatus(elapsed_s=1.0, max_samples=20)
    for event in (Started(VARIANTS), VariantStarted("python_loop"), VariantStarted("einsum")):
        apply_event(status, event)
    assert describe_run(status).startswith("Preparing einsum (2/3): first call")
    assert run_fraction(status) == pytest.approx(1 / 63)


def test_the_cli_bar_follows_the_work_left_and_says_each_elimination():
    stream = io.StringIO()
    progress = BarProgress(stream)
    for event in events_until_one_is_eliminated():
        progress(event)
    assert progress.bar is not None
    assert progress.bar.total == 60 and progress.bar.n == 3 + 3 + 20
    progress.close()
    output = stream.getvalue()
    assert "preparing einsum" in output
    assert "eliminated python_loop: slower than numpy" in output
    assert "110.90" not in output  # the answer's ratio is the record's, said once, at the end


def test_the_answer_so_far_is_said_as_provisional_on_the_page_and_the_bar():
    provisional = Provisional("numpy", ("einsum",), ("einsum", "numpy"))
    status = JobStatus(elapsed_s=2.0, max_samples=20)
    for event in (*events_until_one_is_eliminated(), provisional):
        apply_event(status, event)
    text = describe_run(status)
    assert "provisional: numpy leads, tied so far with einsum; 2 still sampling" in text
    stream = io.StringIO()
    progress = BarProgress(stream)
    for event in (*events_until_one_is_eliminated(), provisional):
        progress(event)
    assert "provisional: numpy leads (tied so far: einsum)" in str(progress.bar)
    progress(Done())
    assert Provisional.name == "provisional" and provisional.to_dict()["leader"] == "numpy"


def test_a_sweep_label_never_says_point_1_of_0_and_follows_each_point():
    from dashboard.text.progress import sweep_progress_text
    from engine.results.events import SweepPoint, SweepStarted

    status = JobStatus(elapsed_s=5.0)
    assert sweep_progress_text(status).startswith("Preparing the sweep: starting worker")
    apply_event(status, SweepStarted("s1", 84, 84))
    apply_event(status, Phase("peak bandwidth"))
    assert sweep_progress_text(status).startswith("84 points to run · peak bandwidth")
    apply_event(status, SweepPoint("matrices=10 · dim=16", 0, 84, None))
    apply_event(status, Started(("einsum", "numpy")))
    apply_event(status, VariantStarted("einsum"))
    text = sweep_progress_text(status)
    assert text.startswith("Point 1 of 84 (matrices=10 · dim=16) · einsum, 1 of 2")
    assert "estimating the time left" in text and "peak bandwidth" not in text
    apply_event(status, SweepPoint("matrices=10 · dim=16", 0, 84, 250.0))  # refined ETA
    assert "einsum, 1 of 2 · about 4 min left" in sweep_progress_text(status)
    apply_event(status, SweepPoint("matrices=100 · dim=16", 1, 84, 200.0))
    text = sweep_progress_text(status)
    assert text.startswith("Point 2 of 84 (matrices=100 · dim=16) · about 3 min left")


def test_a_sweeps_time_left_counts_down_between_estimates():
    """The estimate is refined only as variants finish: between them the label counts down
    from when it was made (it once stayed at "about 6 s left" for 70 s), and past it says so."""
    from dashboard.services.jobs import TrackedRun
    from dashboard.text.progress import sweep_progress_text
    from engine.results.events import SweepPoint, SweepStarted

    job = TrackedRun(None)
    job.started_at -= 10.0  # the sweep began ten seconds ago
    job.apply(SweepStarted("s1", 4, 4))
    job.apply(SweepPoint("matrices=10", 0, 4, 30.0))
    status = job.status()
    made = status.eta_at_s
    assert made >= 10.0
    status.elapsed_s = made + 12.0
    assert "about 18 s left" in sweep_progress_text(status)
    status.elapsed_s = made + 45.0
    assert "taking longer than estimated" in sweep_progress_text(status)


def test_a_sweep_estimates_its_time_left_as_each_variant_of_a_point_finishes():
    from engine.execution.run.sweep import PointProgress
    from engine.results.events import SweepPoint

    seen = []
    within = PointProgress(seen.append, "matrices=10", 0, 4, started=0.0)
    within(Started(("a", "b")))
    within(Sample("a", 1, 20, 0.1))  # a point's samples stay out of the sweep's stream
    within(VariantDone("a", "ok"))
    points = [e for e in seen if isinstance(e, SweepPoint)]
    assert [type(e).__name__ for e in seen] == ["Started", "SweepPoint"]
    assert points[0].index == 0 and points[0].eta_s is not None and points[0].eta_s > 0

"""The results of a running run: what has finished, and the rest pending, in every state."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from dashboard.figures import run as run_figures
from dashboard.tables import partial
from dashboard.tables import run as run_tables
from engine.results.codec import result_to_dict
from engine.results.formatting import format_seconds
from tests.factories import make_run


def streamed(run) -> dict[str, dict]:
    """What the worker's `variant_result` events carry: each result's dict, with no peak."""
    return {r.variant: json.loads(json.dumps(result_to_dict(r, None))) for r in run.results}


RUN = make_run({"einsum": [0.002] * 4, "numpy": [0.003] * 4, "python_loop": [0.2] * 2})
VARIANTS = ("python_loop", "einsum", "numpy")


def test_nothing_finished_is_every_variant_pending():
    table = partial.partial_table(RUN.config, VARIANTS, {})
    assert list(table["strategy"]) == list(VARIANTS)
    assert set(table["status"]) == {partial.PENDING}
    assert partial.partial_samples(RUN.config, {}).empty


def test_finished_rows_are_those_of_the_final_table_and_the_rest_pending():
    sent = streamed(RUN)
    one = {"einsum": sent["einsum"]}
    table = partial.partial_table(RUN.config, VARIANTS, one)
    assert list(table["strategy"]) == list(VARIANTS)  # the run's order, not arrival order
    rows = table.set_index("strategy")
    final = run_tables.display_table(run_tables.summary(RUN)).set_index("strategy")
    assert rows.loc["einsum", "status"] == "ok"
    assert rows.loc["einsum", "median"] == final.loc["einsum", "median"]
    assert rows.loc["einsum", "95% CI"] == final.loc["einsum", "95% CI"]
    assert rows.loc["numpy", "status"] == rows.loc["python_loop", "status"] == partial.PENDING
    assert rows.loc["numpy", "framework"] == "NumPy"
    assert rows.loc["einsum", "% roofline"] == "-"  # the peak comes with the complete run
    samples = partial.partial_samples(RUN.config, one)
    assert set(samples["variant"]) == {"einsum"} and len(samples) == 4
    assert run_figures.latency_distribution(samples).data  # one box drawn


def test_a_variant_still_sampling_shows_its_samples_so_far_and_no_verdict():
    sent = streamed(RUN)
    running = {"numpy": [0.003, 0.001, 0.002]}
    table = partial.partial_table(RUN.config, VARIANTS, {"einsum": sent["einsum"]}, running)
    rows = table.set_index("strategy")
    assert rows.loc["numpy", "status"] == f"sampling 3/{RUN.config.repeats}"
    assert rows.loc["numpy", "median"] == f"{format_seconds(0.002)} so far"
    # The median so far has its interval once it has one; the roofline waits for the peak.
    assert rows.loc["numpy", "95% CI"] == "1–3 ms" and rows.loc["numpy", "% roofline"] == ""
    assert rows.loc["python_loop", "status"] == partial.PENDING
    samples = partial.partial_samples(RUN.config, {"einsum": sent["einsum"]}, running)
    assert list(samples.groupby("variant", sort=False).size().items()) == [
        ("einsum", 4),
        ("numpy (so far)", 3),
    ]
    figure = run_figures.latency_distribution(samples)
    assert [trace.name for trace in figure.data] == ["einsum", "numpy (so far)"]
    only_running = partial.partial_samples(RUN.config, {}, running)
    assert len(only_running) == 3


def test_failed_and_wrong_results_show_as_they_are():
    sent = streamed(RUN)
    sent["einsum"]["status"], sent["einsum"]["samples_s"] = "failed", []
    sent["einsum"]["error"] = "ResourceExhaustedError: OOM"
    sent["numpy"]["correct"] = False
    rows = partial.partial_table(RUN.config, VARIANTS, sent).set_index("strategy")
    assert rows.loc["einsum", "status"] == "failed"
    assert rows.loc["numpy", "status"] == "WRONG"


def test_a_result_that_does_not_parse_is_never_shown():
    sent = streamed(RUN)
    sent["numpy"]["samples_s"] = "not a list"
    unknown = {**sent["einsum"], "strategy": "future_kernel", "variant": "future_kernel"}
    sent["future_kernel"] = unknown
    rows = partial.partial_table(RUN.config, VARIANTS, sent).set_index("strategy")
    assert rows.loc["numpy", "status"] == partial.PENDING
    assert list(rows.index) == list(VARIANTS)  # the unknown one fails the parser: not shown


def app_with(
    results: dict[str, dict], variants: tuple[str, ...], running: dict | None = None
) -> AppTest:
    running = running or {}

    def script(results, variants, running):
        from dashboard.components.partial import show_partial
        from dashboard.services.job_status import JobStatus
        from engine.run_settings.config import BenchConfig

        config = BenchConfig(matrices=100, dim=10, strategies=variants)
        show_partial(JobStatus(results=results, variants=variants, running=running), config)

    return AppTest.from_function(script, args=(results, variants, running), default_timeout=60)


def test_the_running_panel_draws_each_state_and_nothing_before_the_first_result():
    empty = app_with({}, VARIANTS).run()
    assert not empty.exception and not empty.dataframe
    one = app_with({"einsum": streamed(RUN)["einsum"]}, VARIANTS).run()
    assert not one.exception
    assert "1 of 3 variant(s) finished" in one.caption[0].value
    frame = one.dataframe[0].value
    assert list(frame["status"]) == [partial.PENDING, "ok", partial.PENDING]
    only_samples = app_with({}, VARIANTS, {"numpy": [0.001, 0.002]}).run()
    assert not only_samples.exception
    assert list(only_samples.dataframe[0].value["status"])[2] == "sampling 2/20"


def first_look_app(look_results: dict[str, dict], look_running: dict, own: dict) -> AppTest:
    def script(look_results, look_running, own):
        from dashboard.components.partial import show_partial
        from dashboard.services.job_status import JobStatus
        from engine.run_settings.config import BenchConfig

        config = BenchConfig(matrices=100, dim=10, strategies=("python_loop", "einsum", "numpy"))
        look = JobStatus(results=look_results, running=look_running, variants=("numpy",))
        status = JobStatus(variants=config.strategies, running=own, first_look=look)
        show_partial(status, config)

    return AppTest.from_function(script, args=(look_results, look_running, own), default_timeout=60)


def test_a_first_look_is_drawn_as_one_until_the_run_has_samples_of_its_own():
    """While the worker starts TensorFlow the page shows the first look's NumPy row, said to be
    a look measured beside that start, every other variant pending; once the run has a sample
    of its own, only the run's are drawn."""
    sampling = first_look_app({}, {"numpy": [0.003]}, {}).run()
    assert not sampling.exception
    assert sampling.caption[0].value.startswith("First look: numpy measured in a process")
    assert "its answer comes from its own record" in sampling.caption[0].value
    frame = sampling.dataframe[0].value
    assert list(frame["status"]) == [partial.PENDING, partial.PENDING, "sampling 1/20"]
    finished = first_look_app({"numpy": streamed(RUN)["numpy"]}, {}, {}).run()
    assert not finished.exception
    assert list(finished.dataframe[0].value["status"]) == [partial.PENDING, partial.PENDING, "ok"]
    joined = first_look_app({"numpy": streamed(RUN)["numpy"]}, {}, {"einsum": [0.002]}).run()
    assert not joined.exception and "First look" not in " ".join(c.value for c in joined.caption)
    assert list(joined.dataframe[0].value["status"])[1] == "sampling 1/20"
    assert list(joined.dataframe[0].value["status"])[2] == partial.PENDING  # the run's own

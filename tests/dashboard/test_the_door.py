"""The rule of the door: a results file that imports renders in every page, table, figure and
report; one that would not render is refused in one line naming the bad field.
Property-based, over mutations of a real results file.
"""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.report import comparison_report, run_report, sweep_report
from engine.results.reader import ResultsRejected
from engine.results.run_result import RunResult

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node[:3]):
            yield from paths(value, (*prefix, index))


def mutate(data, path, action, value):
    data = copy.deepcopy(data)
    if not path:
        return value
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    key = path[-1]
    if action == "delete" and isinstance(parent, dict):
        del parent[key]
    else:
        parent[key] = value
    return data


def mutated_run(original: dict, data) -> RunResult | None:
    """A mutation of a real results file: the run it loads as, or None when it is refused
    (in one line naming the field)."""
    where = data.draw(st.sampled_from(list(paths(original))))
    action = data.draw(st.sampled_from(["replace", "delete"]))
    value = data.draw(JSON_VALUES)
    try:
        text = json.dumps(mutate(original, where, action, value))
    except ValueError:  # NaN/inf made by hypothesis: write them as Python's json would
        text = json.dumps(mutate(original, where, action, value), allow_nan=True)
    try:
        return RunResult.from_json(text)
    except ResultsRejected as error:
        message = str(error)
        assert message and "\n" not in message and len(message) < 600
        return None


def every_table_and_figure(run: RunResult) -> None:
    """What every page and report draws, without writing the HTML: the run's view (answer,
    tables, figures), a comparison's table and figures, and a sweep's."""
    from dashboard.figures import sweep as sweep_figures
    from dashboard.figures.compare import compare_medians, ratio_points
    from dashboard.run_view import build
    from dashboard.tables.compare import comparison_table
    from dashboard.tables.sweep import sweep_tables
    from engine.analysis.compare import compare_runs

    build(run)
    frame = compare_runs([run, run])
    comparison_table(frame)
    ratio_points(frame, frame.attrs["margin"])
    compare_medians(frame)
    tables = sweep_tables([run])
    sweep_figures.scaling(tables["points"], "matrices", "median_s", 1.0)
    sweep_figures.crossover_map(tables["cells"])
    sweep_figures.cost_fit(tables["points"], tables["fits"])


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_mutated_results_file_is_refused_naming_its_field_or_draws_everything(
    real_result_path, data
):
    run = mutated_run(json.loads(real_result_path.read_text()), data)
    if run is not None:
        every_table_and_figure(run)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_mutated_results_file_that_loads_renders_every_full_report(real_result_path, data):
    run = mutated_run(json.loads(real_result_path.read_text()), data)
    if run is not None:
        run_report(run)
        comparison_report([run, run])
        sweep_report([run], "mutated")

"""History, Compare and Sweeps pages under AppTest, over a real SQLite history file."""

import pytest
from streamlit.testing.v1 import AppTest

from engine.storage.history import History
from tests.conftest import ROOT
from tests.factories import make_run

APP = str(ROOT / "dashboard" / "app.py")


@pytest.fixture
def stored(tmp_path, monkeypatch):
    path = tmp_path / "history.sqlite3"
    monkeypatch.setenv("MATVEC_HISTORY", str(path))
    history = History(path)
    laptop = make_run({"einsum": [0.002] * 5}, label="laptop <b>x</b>", device_kind="CPU")
    tpu = make_run(
        {"einsum": [0.0005] * 5},
        label="colab",
        device_kind="TPU",
        created_at="2026-11-29T08:00:00+00:00",
    )
    history.add_run(laptop)
    history.add_run(tpu)
    return history, laptop, tpu


def page(name: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(f"views/{name}.py")
    return at.run()


def test_history_lists_and_filters(stored):
    at = page("history")
    assert not at.exception
    assert "2 run(s)" in [m.value for m in at.markdown]
    at.selectbox(key="history_device").set_value("TPU").run()
    assert "1 run(s)" in [m.value for m in at.markdown]


def test_history_opens_a_stored_run(stored):
    _, laptop, _ = stored
    at = page("history")
    at.session_state["history_opened"] = laptop.run_id
    at.run()
    assert not at.exception
    assert any("The fastest way" in m.value for m in at.markdown)


def test_compare_page_reads_runs_from_the_link(stored):
    _, laptop, tpu = stored
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("views/compare.py")
    at.query_params["runs"] = f"{laptop.run_id},{tpu.run_id}"
    at.run()
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["strategy"]) == ["einsum"]
    assert any("0.25x the time [" in str(v) and "faster" in str(v) for v in table.iloc[0].tolist())


def test_compare_names_each_run_the_same_in_the_picker_and_on_the_page(stored):
    from engine.analysis.compare import run_label

    _, laptop, tpu = stored
    at = page("compare")
    picker = at.multiselect(key="compare_select")
    for run in (laptop, tpu):
        assert any(option.startswith(run_label(run) + " · ") for option in picker.options)
    picker.set_value([laptop.run_id, tpu.run_id]).run()
    assert not at.exception
    assert set(at.selectbox(key="baseline").options) == {run_label(laptop), run_label(tpu)}


def test_compare_page_needs_two_runs(stored):
    at = page("compare")
    assert not at.exception
    assert any("at least two" in i.value for i in at.info)


def test_sweeps_page_without_sweeps_and_bad_input(stored):
    at = page("sweeps")
    assert not at.exception
    assert any("No sweeps stored yet" in i.value for i in at.info)
    at.text_input[0].set_value("10,-5")
    at.button[0].click().run()
    assert any("matrices: must be an integer" in e.value.replace("\\", "") for e in at.error)


@pytest.mark.parametrize("page_name", ["history", "compare", "sweeps"])
def test_an_unusable_history_is_one_line_on_every_page_that_reads_it(
    page_name, tmp_path, monkeypatch
):
    broken = tmp_path / "history.sqlite3"
    broken.write_text("not a database at all\n" * 100)
    monkeypatch.setenv("MATVEC_HISTORY", str(broken))
    at = page(page_name)
    assert not at.exception
    (error,) = [e.value.replace("\\", "") for e in at.error]  # shown as plain text
    assert error.startswith("history: ") and "cannot be used" in error
    assert "MATVEC_HISTORY" in error

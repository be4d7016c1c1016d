"""The Streamlit app under AppTest: starts clean, reads links, runs a real (tiny) benchmark."""

import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

APP = str(ROOT / "dashboard" / "app.py")


@pytest.fixture(autouse=True)
def private_queue(tmp_path, monkeypatch):
    monkeypatch.setenv("MATVEC_QUEUE_DIR", str(tmp_path / "queue"))


def app(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def widget(at: AppTest, kind: str, label: str):
    matches = [w for w in getattr(at, kind) if w.label == label]
    assert matches, f"no {kind} labelled {label!r}"
    return matches[0]


def test_app_starts_without_exception():
    at = app()
    assert not at.exception
    assert at.title[0].value == "Batched MatVec Profiler"
    assert widget(at, "text_input", "Matrices (B)").value == "3000"
    assert widget(at, "button", "Run benchmark")


def test_link_parameters_set_the_widgets():
    at = app(
        matrices="500",
        dim="16",
        cols="4",
        dtype="float64",
        strategy="einsum,numpy",
        xla="true",
        cache="cold",
        label="shared",
    )
    assert not at.exception
    assert widget(at, "text_input", "Matrices (B)").value == "500"
    assert widget(at, "text_input", "Columns (n)").value == "4"
    assert widget(at, "selectbox", "dtype").value == "float64"
    assert widget(at, "multiselect", "Strategies").value == ["einsum", "numpy"]
    assert widget(at, "checkbox", "Add +xla variants (TensorFlow compiled by XLA)").value is True
    assert widget(at, "radio", "Cache").value == "cold"
    assert widget(at, "text_input", "Run label").value == "shared"
    assert not at.warning


def test_bad_link_parameters_show_notices_and_do_not_crash():
    at = app(matrices="-1", dtype="complex", repeats="7")
    assert not at.exception
    notices = " ".join(w.value.replace("\\", "") for w in at.warning)
    assert "matrices='-1'" in notices and "dtype='complex'" in notices
    assert widget(at, "text_input", "Matrices (B)").value == "3000"
    assert widget(at, "text_input", "Samples (repeats)").value == "7"


def test_widget_changes_are_mirrored_into_the_link():
    at = app()
    widget(at, "text_input", "Matrices (B)").set_value("1234")
    widget(at, "selectbox", "dtype").set_value("float16")
    at.run()
    assert at.query_params["matrices"] == "1234"
    assert at.query_params["dtype"] == "float16"


@pytest.mark.parametrize("typed", ["1e12", "200000000", "12abc", ""])
def test_a_number_that_is_not_valid_is_named_and_never_silently_changed(typed):
    """Streamlit's number box turned `1e12` into 1 without a word; a typed number is now
    read by the field table: the box keeps what was typed, an error under it names the
    range, the link keeps the last valid value and a click on Run is refused naming it."""
    at = app(matrices="500")
    widget(at, "text_input", "Matrices (B)").set_value(typed)
    at.run()
    errors = " ".join(e.value.replace("\\", "") for e in at.error)
    assert "Matrices (B): must be an integer from 1 to" in errors
    assert widget(at, "text_input", "Matrices (B)").value == typed
    assert at.query_params["matrices"] == "500"
    widget(at, "button", "Run benchmark").click()
    at.run()
    refused = " ".join(e.value.replace("\\", "") for e in at.error)
    assert "Run refused: matrices:" in refused
    assert "job" not in at.session_state


def test_running_produces_results_charts_and_table():
    at = app(
        matrices="32",
        dim="6",
        repeats="3",
        warmup="0",
        strategy="python_loop,einsum,numpy",
        label="apptest",
    )
    widget(at, "button", "Run benchmark").click().run()
    assert not at.exception
    deadline = time.monotonic() + 180
    while "result_text" not in at.session_state and time.monotonic() < deadline:
        time.sleep(0.5)
        at.run()
    assert "result_text" in at.session_state, [e.value for e in at.error]
    assert not at.exception
    assert any("The fastest way" in m.value for m in at.markdown)
    table = at.dataframe[0].value
    assert list(table["strategy"]) == ["python_loop", "einsum", "numpy"]
    assert set(table["status"]) == {"ok"}
    assert len(at.get("plotly_chart")) == 6  # no replica chart in single mode
    assert at.code and "def " in at.code[0].value


def test_invalid_combination_is_refused_with_its_message():
    at = app(mode="sharded", replicas="2", strategy="python_loop")
    widget(at, "button", "Run benchmark").click().run()
    assert not at.exception
    assert any("distributable" in e.value for e in at.error)


def test_seeding_from_the_link_fills_what_is_missing_on_every_run():
    """A click during the first script run must never reset settings to bare defaults."""
    from dashboard.services.links import settings_from_params

    link = {"matrices": "500", "dtype": "float64", "strategy": "einsum,numpy"}
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in link.items():
        at.query_params[key] = value
    # A rerun that arrives after the link was read but before any widget state was set: a
    # one-time "seeded" flag would leave every widget at its bare default (dtype float16).
    at.session_state["url_notices"] = []
    at.session_state["url_settings"] = settings_from_params(link).settings
    at.run()
    assert widget(at, "selectbox", "dtype").value == "float64"
    assert widget(at, "multiselect", "Strategies").value == ["einsum", "numpy"]
    assert widget(at, "text_input", "Matrices (B)").value == "500"


def test_repeated_link_parameters_count_and_dropped_ones_are_said():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["strategy"] = ["einsum", "numpy"]
    at.query_params["replicas"] = "3"
    at.run()
    assert widget(at, "multiselect", "Strategies").value == ["einsum", "numpy"]
    notices = " ".join(w.value.replace("\\", "") for w in at.warning)
    assert "replicas=3" in notices


def test_the_run_page_offers_only_the_kernels_named_at_start(monkeypatch, tmp_path):
    from dashboard.components import kernels

    good = ROOT / "tests" / "fixtures" / "user_kernels" / "numpy_kernels.py"
    monkeypatch.setenv(kernels.KERNELS_VARIABLE, f"{good}:mine\n{tmp_path / 'gone.py'}:f")
    kernels.offered.clear()
    try:
        at = app()
        assert not at.exception
        offered = widget(at, "multiselect", "Your kernels")
        assert offered.options == ["mine"]  # names only: the path stays on the server
        assert any("cannot read" in c.value for c in at.sidebar.caption)  # why one is not offered
    finally:
        kernels.offered.clear()
    monkeypatch.delenv(kernels.KERNELS_VARIABLE)
    assert not [w for w in app().multiselect if w.label == "Your kernels"]


def test_the_install_hint_for_missing_frameworks_renders_its_commands_as_code(monkeypatch):
    from dashboard.components import controls

    monkeypatch.setattr(controls, "missing_frameworks", lambda: ("jax", "cupy", "torch"))
    at = app()
    captions = [c.value for c in at.caption if c.value.startswith("Not installed here")]
    assert captions, [c.value for c in at.caption]
    text = captions[0]
    assert "`pip install jax==0.10.2 jaxlib==0.10.2`" in text  # a code span, not \` escapes
    # each framework with its own folder's hint
    assert "JAX — `pip install jax" in text and "PyTorch — `pip install torch==" in text
    assert "CuPy — CuPy runs on an NVIDIA GPU only" in text and "`pip install cupy-cuda12x`" in text
    assert "\\`" not in text

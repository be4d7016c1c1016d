"""The history as a static site: an index of series, a page a series with its chart and
steps, plotly.js once beside them, every run's text escaped, the folder checked."""

from __future__ import annotations

import dataclasses

import pytest

from dashboard.report.publish import PLOTLY_FILE, publish
from engine.run_settings.fields import ConfigError
from tests.cli import run_cli
from tests.engine.analysis.test_change_points import runs_with_a_step

EVIL = "<script>alert(1)</script>"


def evil_runs():
    runs = runs_with_a_step()
    for run in runs:
        run.environment = dataclasses.replace(run.environment, hostname=f"host {EVIL}")
    return runs


def test_the_site_has_an_index_a_page_a_series_and_plotly_once(tmp_path):
    written = publish(evil_runs(), tmp_path / "site")
    names = sorted(p.name for p in written)
    assert names == ["index.html", PLOTLY_FILE, "series-0000.html", "series-0001.html"]
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<a href='series-0000.html'>einsum</a>" in index
    assert "x slower from run 9" in index and "no step" in index  # einsum's, numpy's
    assert EVIL not in index and "&lt;script&gt;" in index
    page = (tmp_path / "site" / "series-0000.html").read_text()
    assert f"<script src='{PLOTLY_FILE}'></script>" in page and "plotly-graph-div" in page
    assert "frameworks.tensorflow.version 2.21.0 → 2.22.0" in page
    assert "http" not in page.split("<body>")[0].replace("http-equiv", "")  # nothing fetched


def test_a_link_or_a_file_is_refused_as_the_folder(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(ConfigError, match="symbolic link"):
        publish(evil_runs(), tmp_path / "link")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="is not a folder"):
        publish(evil_runs(), tmp_path / "file")


def test_history_publish_writes_the_site_from_a_stored_history(tmp_path):
    from engine.storage.history import History

    path = tmp_path / "h.sqlite3"
    history = History(path)
    for run in runs_with_a_step():
        history.add_run(run)
    done = run_cli("history", "publish", str(tmp_path / "site"), "--history", str(path))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "series-0001.html").is_file()

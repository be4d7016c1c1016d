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
    written = publish(evil_runs(), tmp_path / "site").written
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


def test_a_narrower_publish_removes_the_wider_sites_pages_and_names_foreign_files(tmp_path):
    """The folder's pages are the site's own: a second publish with fewer series removes the
    earlier publish's pages it does not write again (their data would be served under other
    labels), leaves a file no publish wrote where it is, and names it."""
    site = tmp_path / "site"
    wide = publish(evil_runs(), site)
    assert (site / "series-0001.html").is_file()
    (site / "notes.txt").write_text("the team's own file")
    (site / "series-9999.html").write_text("a page of somebody else's")
    fewer = evil_runs()
    for run in fewer:  # one variant: one series, one page
        run.results = [r for r in run.results if r.variant == "einsum"]
    narrow = publish(fewer, site, "one")
    assert len(narrow.written) < len(wide.written)
    assert "series-0001.html" in narrow.removed and not (site / "series-0001.html").exists()
    assert narrow.foreign == ["notes.txt", "series-9999.html"]
    assert (site / "notes.txt").read_text() == "the team's own file"


def test_the_sites_files_take_the_umasks_modes(tmp_path):
    import os
    import stat

    old = os.umask(0o022)
    try:
        written = publish(evil_runs(), tmp_path / "site").written
    finally:
        os.umask(old)
    assert {stat.S_IMODE(p.stat().st_mode) for p in written} == {0o644}


def test_a_host_name_with_markup_is_text_in_the_chart_too(tmp_path):
    publish(evil_runs(), tmp_path / "site")
    page = (tmp_path / "site" / "series-0000.html").read_text()
    assert "host &lt;script&gt;alert(1)&lt;/script&gt;" in page.replace("\\u003c", "<")
    assert EVIL not in page

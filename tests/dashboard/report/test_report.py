import re
import subprocess
import sys

import pytest

from dashboard.report import run_report
from dashboard.report.__main__ import main as report_main
from dashboard.report.html import markdown_to_html
from tests.conftest import ROOT


def test_report_is_self_contained_with_plotly_once(real_result):
    html = run_report(real_result)
    assert html.count("Plotly=") >= 1 or "plotly.js" in html.lower()
    assert len(re.findall(r"<script[^>]+src=", html)) == 0
    assert len(re.findall(r"<link[^>]+href=", html)) == 0
    assert html.count("<script type='text/javascript'>") == 1  # the library, once
    # six charts; the single-mode run's per-replica chart is one line saying why, no frame
    assert html.count('class="plotly-graph-div"') == 6
    assert "Per-replica breakdown: run in replicated or sharded mode" in html


def test_label_and_text_are_escaped(real_result):
    html = run_report(real_result)
    assert "<script>x</script>" not in html
    assert "&lt;b&gt;ci&lt;/b&gt; &amp; &lt;script&gt;x&lt;/script&gt;" in html


def test_report_has_summary_settings_environment_and_code(real_result):
    html = run_report(real_result)
    for heading in ("The fastest way", "Summary", "Charts", "Settings", "Environment"):
        assert f"<h2>{heading}</h2>" in html
    assert "def " in html and "python_loop" in html


def test_markdown_subset_escapes_before_formatting():
    assert markdown_to_html("**a<b>** `c&d`") == (
        "<p><strong>a&lt;b&gt;</strong> <code>c&amp;d</code></p>"
    )


def test_report_command_line(real_result_path, tmp_path):
    out = tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "dashboard.report", str(real_result_path), "-o", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_report_command_line_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert report_main([str(bad), "-o", str(tmp_path / "r.html")]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: results: cannot read") and "Traceback" not in error


def test_report_command_line_bad_outputs_are_one_line(real_result_path, tmp_path, capsys):
    for output, fragment in (
        (tmp_path, "error: output: "),
        (tmp_path / "missing" / "r.html", "error: output: directory"),
        ("/dev/null", "error: output: "),
    ):
        assert report_main([str(real_result_path), "-o", str(output)]) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith(fragment)


def test_the_report_command_renders_groups_sweeps_and_comparisons(tmp_path, capsys):
    import json

    from dashboard.report.__main__ import main
    from engine.results.parse import group_payload
    from tests.factories import make_run

    first, second = make_run(label="first"), make_run(label="second", matrices=200)
    files = {
        "group": group_payload("g" * 32, [first, second]),
        "sweep": {"sweep_id": "s" * 16, "spec": {}, "runs": [first.to_dict(), second.to_dict()]},
        "one": first.to_dict(),
        "other": second.to_dict(),
    }
    for name, payload in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(payload))
    cases = {
        "group": ["group.json"],
        "sweep": ["sweep.json"],
        "pair": ["one.json", "other.json"],
    }
    titles = {"group": "comparison", "sweep": "sweep", "pair": "comparison"}
    for case, names in cases.items():
        out = tmp_path / f"{case}.html"
        assert main([*(str(tmp_path / n) for n in names), "-o", str(out)]) == 0, case
        assert f"Batched MatVec {titles[case]}" in out.read_text(), case
    assert main([str(tmp_path / "missing.json"), "-o", str(tmp_path / "x.html")]) == 2
    error = capsys.readouterr().err
    assert "no such file" in error and "not a regular file" not in error


def test_a_missing_file_is_named_once(tmp_path, capsys):
    """It once said "cannot read X: cannot read X: no such file"."""
    missing = tmp_path / "missing.json"
    assert report_main([str(missing), "-o", str(tmp_path / "r.html")]) == 2
    error = capsys.readouterr().err
    assert error.count(str(missing)) == 1 and "no such file" in error


def test_a_utf16_file_is_refused_as_the_cli_refuses_it(tmp_path):
    """The dashboard's upload once read a UTF-16 file the CLI refuses: one parser, one rule."""
    from engine.results.parse import parse_results
    from engine.results.reader import ResultsRejected
    from tests.factories import make_run

    text = make_run().to_json()
    with pytest.raises(ResultsRejected, match="not UTF-8"):
        parse_results(text.encode("utf-16"))
    assert parse_results(text.encode("utf-8")).results


def test_a_comparison_file_is_named_with_what_to_pass(tmp_path, capsys):
    """`compare --json`'s file once got "not a results file of this tool: no schema_version"."""
    from tests.cli import run_cli
    from tests.factories import make_run

    a, b, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    make_run().write_json(a)
    make_run().write_json(b)
    assert run_cli("compare", str(a), str(b), "--json", str(out)).returncode == 0
    assert report_main([str(out), "-o", str(tmp_path / "r.html")]) == 2
    error = capsys.readouterr().err
    assert "a comparison (compare --json), not a results file" in error
    assert "python -m dashboard.report A.json B.json" in error

"""`python -m dashboard.report FILE [FILE ...] -o report.html`: the dashboard's reports, offline.

One results file gives the run's report; a sweep file (`sweep --json`) the sweep's; a group file
(`run --repetitions R --json`) compares its repetitions; several files compare their runs side
by side, the first being the baseline.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dashboard.report.compare import comparison_report
from dashboard.report.run import run_report
from dashboard.report.sweep import sweep_report
from engine.results.files import check_output_file, write_text_atomically
from engine.results.parse import load_json, read_run_group, read_text
from engine.results.reader import ResultsRejected
from engine.run_settings.fields import ConfigError


def report_of(paths: Sequence[str]) -> str:
    """The HTML of what the files hold; raises ResultsRejected naming the file and field."""
    sides = []
    for path in paths:
        try:
            runs = read_run_group(path)
        except ResultsRejected as error:  # named once: "cannot read X: cannot read X" no more
            named = str(path) in str(error)
            raise ResultsRejected(str(error) if named else f"cannot read {path}: {error}") from None
        sides.append((path, runs))
    if len(sides) > 1:
        return comparison_report([run for _, runs in sides for run in runs])
    path, runs = sides[0]
    data = load_json(read_text(path))
    if isinstance(data, dict) and "sweep_id" in data:
        label = next((run.config.label for run in runs if run.config.label), "")
        return sweep_report(runs, label or str(data.get("sweep_id", ""))[:80])
    if len(runs) > 1:  # a group: its repetitions side by side
        return comparison_report(runs)
    return run_report(runs[0])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dashboard.report", description="Write a self-contained HTML report."
    )
    parser.add_argument(
        "results",
        nargs="+",
        help="a results, group or sweep JSON written by the engine; several files: a comparison",
    )
    parser.add_argument("-o", "--output", default="report.html", help="HTML file to write")
    args = parser.parse_args(argv)
    try:
        check_output_file("output", args.output)
        html = report_of(args.results)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ResultsRejected as error:
        print(f"error: results: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - one line, never a traceback, for the user
        print(f"error: report: cannot draw it: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    try:
        write_text_atomically(args.output, html)
    except OSError as error:
        print(f"error: output: cannot write {args.output}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"report written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

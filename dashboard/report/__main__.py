"""`python -m dashboard.report results.json -o report.html`: the dashboard's report, offline."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dashboard.report.run import run_report
from engine.results.files import check_output_file, write_text_atomically
from engine.results.parse import read_results_file
from engine.results.reader import ResultsRejected
from engine.spec.fields import ConfigError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dashboard.report", description="Write a self-contained HTML report."
    )
    parser.add_argument("results", help="results JSON written by `python -m engine run --json`")
    parser.add_argument("-o", "--output", default="report.html", help="HTML file to write")
    args = parser.parse_args(argv)
    try:
        check_output_file("output", args.output)
        result = read_results_file(args.results)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ResultsRejected as error:
        print(f"error: results: cannot read {args.results}: {error}", file=sys.stderr)
        return 2
    try:
        html = run_report(result)
    except Exception as error:  # noqa: BLE001 - one line, never a traceback, for the user
        print(
            f"error: report: cannot draw {args.results}: {type(error).__name__}: {error}",
            file=sys.stderr,
        )
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

"""`python -m dashboard.report results.json -o report.html`: the dashboard's report, offline."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from dashboard.report.run import run_report
from engine.results.parse import read_results_file
from engine.results.reader import ResultsRejected


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dashboard.report", description="Write a self-contained HTML report."
    )
    parser.add_argument("results", help="results JSON written by `python -m engine run --json`")
    parser.add_argument("-o", "--output", default="report.html", help="HTML file to write")
    args = parser.parse_args(argv)
    try:
        result = read_results_file(args.results)
    except ResultsRejected as error:
        print(f"error: results: cannot read {args.results}: {error}", file=sys.stderr)
        return 2
    Path(args.output).write_text(run_report(result), encoding="utf-8")
    print(f"report written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

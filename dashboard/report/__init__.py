"""Self-contained HTML reports (run, comparison, sweep): pure functions of results, no Streamlit.

`python -m dashboard.report results.json -o report.html` writes a run's report from the CLI.
"""

from dashboard.report.compare import comparison_report
from dashboard.report.run import run_report
from dashboard.report.sweep import sweep_report

__all__ = ["comparison_report", "run_report", "sweep_report"]

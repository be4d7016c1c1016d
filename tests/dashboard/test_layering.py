"""DESIGN.md's layering, checked at run time: the dashboard never loads TensorFlow."""

import subprocess
import sys

from tests.conftest import ROOT

CHECK = """
import sys
import dashboard.charts, dashboard.data, dashboard.report, dashboard.settings
import dashboard.worker, dashboard.explain
import engine
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'keras'))
print(bad)
"""


def test_dashboard_modules_do_not_import_tensorflow():
    done = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_engine_never_imports_streamlit_or_plotly():
    offenders = [
        str(path)
        for path in (ROOT / "engine").rglob("*.py")
        for line in path.read_text().splitlines()
        if line.lstrip().startswith(
            ("import streamlit", "from streamlit", "import plotly", "from plotly")
        )
    ]
    assert offenders == []

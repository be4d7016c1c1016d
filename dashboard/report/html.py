"""The HTML shell every report shares: one inline copy of plotly.js, escaped text only.

Every piece of user or machine text (labels, error messages, host names) is escaped; figures
are embedded as JSON by plotly. No report makes a network request when opened.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from dashboard.figures.style import empty_reason

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 1200px; color: #111827; padding: 0 1rem; }
h1 { margin-bottom: 0.2rem; } .muted { color: #6b7280; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.9rem; }
th, td { border: 1px solid #e5e7eb; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f9fafb; }
pre { background: #f3f4f6; padding: 1rem; overflow-x: auto; }
.wrong { color: #dc2626; font-weight: 600; }
"""


def escape(value: Any) -> str:
    return html.escape(str(value), quote=True)


def markdown_to_html(text: str) -> str:
    """The tiny markdown subset explain.py writes (**bold**, `code`, paragraphs), escaped first."""
    out = []
    for paragraph in text.split("\n\n"):
        safe = escape(paragraph)
        safe = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", safe)
        safe = re.sub(r"`(.+?)`", r"<code>\1</code>", safe)
        out.append(f"<p>{safe}</p>")
    return "\n".join(out)


def key_value_table(items: Mapping[str, Any]) -> str:
    rows = "".join(
        f"<tr><th>{escape(k)}</th><td>{escape(json.dumps(v) if isinstance(v, dict | list) else v)}"
        "</td></tr>"
        for k, v in items.items()
    )
    return f"<table>{rows}</table>"


def frame_table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, escape=True, border=0, na_rep="-")


def figure_html(figure: go.Figure) -> str:
    """The figure, or one line saying why there is none (never an empty frame)."""
    reason = empty_reason(figure)
    if reason is not None:
        return f"<p class='muted'>{escape(reason)}</p>"
    return figure.to_html(
        full_html=False, include_plotlyjs=False, config={"displaylogo": False, "responsive": True}
    )


def page(title: str, sections: Iterable[str]) -> str:
    """The shared shell: one inline copy of plotly.js, no external requests."""
    body = "\n".join(sections)
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{STYLE}</style>"
        f"<script type='text/javascript'>{get_plotlyjs()}</script></head>"
        f"<body>{body}</body></html>\n"
    )

"""A single self-contained HTML report of a run: opens offline, plotly.js included once.

Every piece of user or machine text (labels, error messages, host names) is escaped; figures
are embedded as JSON by plotly. Usable from the command line, so a run on a TPU VM becomes the
same report: `python -m dashboard.report results.json -o report.html`.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from dashboard import charts, data
from dashboard.explain import fastest_way
from engine.catalog import kernel_source
from engine.results import RunResult

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


def run_sections(result: RunResult) -> list[str]:
    summary = data.summary(result)
    config = result.config
    env = result.environment
    label = config.get("label") or "untitled run"
    shape = f"{config['matrices']:,} × {config['dim']}×{config['cols']} {config['dtype']}"
    sections = [
        f"<h1>Batched MatVec report: {escape(label)}</h1>",
        f"<p class='muted'>{escape(shape)} · {escape(env.get('device_kind'))} · "
        f"run {escape(result.run_id)} · {escape(result.created_at)}</p>",
    ]
    best = data.winner(summary)
    if best is not None:
        sections += [
            "<h2>The fastest way</h2>",
            markdown_to_html(fastest_way(best, config, result.peak_bytes_per_s)),
            f"<pre><code>{escape(kernel_source(best['variant']))}</code></pre>",
        ]
    else:
        sections.append("<h2>The fastest way</h2><p class='wrong'>No correct result.</p>")
    sections += ["<h2>Summary</h2>", frame_table(data.display_table(summary))]
    if result.warnings:
        items = "".join(f"<li>{escape(w)}</li>" for w in result.warnings)
        sections.append(f"<ul class='muted'>{items}</ul>")
    steps = data.distribution(result)
    if not steps.empty:
        sections += ["<h2>Distribution</h2>", frame_table(data.display_distribution(steps))]
    figures = charts.all_figures(
        summary, data.samples(result), data.replicas(result), result.peak_bytes_per_s, steps
    )
    sections += ["<h2>Charts</h2>", *(figure_html(f) for f in figures.values())]
    sections += [
        "<h2>Settings</h2>",
        key_value_table(config),
        "<h2>Peak bandwidth</h2>",
        key_value_table({k: v for k, v in result.peak.items() if k != "samples_s"}),
        "<h2>Environment</h2>",
        key_value_table(env),
    ]
    return sections


def run_report(result: RunResult) -> str:
    label = result.config.get("label") or result.run_id
    return page(f"Batched MatVec report: {label}", run_sections(result))


def comparison_report(runs: Sequence[RunResult], baseline: int = 0) -> str:
    """Side-by-side table, ratio and significance per strategy, chart, environments."""
    from dashboard import history_charts, history_data
    from engine.compare import compare_runs, environments, run_label

    frame = compare_runs(runs, baseline)
    names = " vs ".join(run_label(r) for r in runs)
    sections = [
        f"<h1>Batched MatVec comparison</h1><p class='muted'>{escape(names)}</p>",
        "<p class='muted'>Ratios are medians over the baseline run "
        f"({escape(run_label(runs[baseline]))}); differences are called only when a two-sided "
        "Mann-Whitney U test on the raw samples gives p &lt; 0.05.</p>",
        "<h2>Summary</h2>",
        frame_table(history_data.comparison_table(frame)),
        figure_html(history_charts.compare_medians(frame)),
        "<h2>Environments</h2>",
        frame_table(environments(runs)),
    ]
    return page(f"Batched MatVec comparison: {names}", sections)


def sweep_report(runs: Sequence[RunResult], label: str) -> str:
    """Scaling views, crossover map and cost fit of a sweep's stored points."""
    from dashboard import history_charts, history_data

    tables = history_data.sweep_tables(runs)
    points = tables["points"]
    peak = max((r.peak_bytes_per_s or 0) for r in runs) / 1e9 if runs else None
    figures = [
        history_charts.scaling(points, "matrices", "median_s", peak),
        history_charts.scaling(points, "matrices", "gbytes_per_s", peak),
        history_charts.scaling(points, "cols", "median_s", peak),
        history_charts.crossover_map(tables["cells"]),
        history_charts.cost_fit(points, tables["fits"]),
    ]
    sections = [
        f"<h1>Batched MatVec sweep: {escape(label or 'untitled')}</h1>",
        f"<p class='muted'>{len(runs)} points</p>",
        "<h2>Crossover</h2>",
        frame_table(tables["cells_view"]),
        "<h2>Fixed overhead and per-byte cost</h2>",
        frame_table(tables["fits_view"]),
        "<h2>Charts</h2>",
        *(figure_html(f) for f in figures),
    ]
    return page(f"Batched MatVec sweep: {label}", sections)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dashboard.report", description="Write a self-contained HTML report."
    )
    parser.add_argument("results", help="results JSON written by `python -m engine run --json`")
    parser.add_argument("-o", "--output", default="report.html", help="HTML file to write")
    args = parser.parse_args(argv)
    try:
        result = RunResult.from_json(Path(args.results).read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"error: results: cannot read {args.results}: {error}", file=sys.stderr)
        return 2
    Path(args.output).write_text(run_report(result), encoding="utf-8")
    print(f"report written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

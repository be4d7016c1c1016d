"""The self-contained HTML report of one run."""

from __future__ import annotations

from dashboard.figures import run as charts
from dashboard.figures import why as why_charts
from dashboard.report.html import (
    escape,
    figure_html,
    frame_table,
    key_value_table,
    markdown_to_html,
    page,
)
from dashboard.tables import run as data
from dashboard.tables import why as why_data
from dashboard.tables.search import search_table
from dashboard.text.explain import answer_for
from engine.results.formatting import took_line
from engine.results.model import RunResult
from engine.results.search import search_summary

NO_SOURCE = "(this version of the tool does not have that strategy's source)"


def run_sections(result: RunResult) -> list[str]:
    summary = data.summary(result)
    config = result.config
    env = result.environment
    label = config.label or (
        f"{config.matrices:,}×{config.rows}×{config.columns} {config.dtype} on "
        f"{result.environment.device_kind}"
    )
    shape = f"{config.matrices:,} × {config.rows}×{config.columns} {config.dtype}"
    sections = [
        f"<h1>Batched MatVec report: {escape(label)}</h1>",
        f"<p class='muted'>{escape(shape)} · {escape(env.device_kind)} · "
        f"run {escape(result.run_id)} · {escape(result.created_at)}</p>",
    ]
    took = took_line(result.timings, result.worker)
    if took:
        sections.append(f"<p class='muted'>{escape(took)}</p>")
    chosen = result.winner_dict()
    best = data.winner(summary, chosen)
    profiles = why_data.profiles(result)
    if best is not None:
        answer = answer_for(result, best, chosen, profiles)
        sections += [
            "<h2>The fastest way</h2>",
            markdown_to_html(answer),
            f"<pre><code>{escape(result.code_for(best['variant']) or NO_SOURCE)}</code></pre>",
        ]
    else:
        sections.append("<h2>The fastest way</h2><p class='wrong'>No correct result.</p>")
    if config.search:
        sections += ["<h2>The search</h2>", frame_table(search_table(search_summary(result)))]
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
    if not profiles.empty:
        sections += [
            "<h2>Why (profiled)</h2>",
            f"<p class='muted'>{escape(why_data.WHICH_TIME_IS_WHICH)}</p>",
            frame_table(why_data.display_profiles(profiles)),
            *(figure_html(f) for f in why_charts.why_figures(profiles).values()),
        ]
        ops = why_data.top_ops(result)
        if not ops.empty:
            sections += ["<h3>Top ops (by self time)</h3>", frame_table(ops)]
    sections += [
        "<h2>Settings</h2>",
        key_value_table({**config.to_dict(), "cold_copies": result.cold_copies}),
        "<h2>Peak bandwidth</h2>",
        key_value_table(peak_summary(result)),
        "<h2>Environment</h2>",
        key_value_table(env.to_dict()),
    ]
    return sections


def peak_summary(result: RunResult) -> dict[str, object]:
    """The peak and each probe's bandwidth, without the raw samples."""
    peak = result.peak
    summary: dict[str, object] = {
        "bandwidth_bytes_per_s": peak.bandwidth_bytes_per_s,
        "method": peak.method,
        "device": peak.device,
        "buffer_bytes": peak.buffer_bytes,
    }
    for index, probe in enumerate(peak.probes):
        summary[f"probe {index + 1}"] = (
            f"{probe.kernel}, {probe.when}: {probe.bandwidth_bytes_per_s / 1e9:.1f} GB/s"
        )
    return summary


def run_report(result: RunResult) -> str:
    label = result.config.label or result.run_id
    return page(f"Batched MatVec report: {label}", run_sections(result))

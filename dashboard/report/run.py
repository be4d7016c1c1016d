"""The self-contained HTML report of one run."""

from __future__ import annotations

from dashboard.report.html import (
    escape,
    figure_html,
    frame_table,
    key_value_table,
    markdown_to_html,
    page,
)
from dashboard.run_view import NO_SOURCE, build
from dashboard.tables.why import WHICH_TIME_IS_WHICH
from engine.results.formatting import sentence
from engine.results.run_result import RunResult


def run_sections(result: RunResult) -> list[str]:
    view = build(result)
    config = result.config
    env = result.environment
    label = config.label or (
        f"{config.matrices:,}×{config.dim}×{config.columns} {config.dtype} on {env.device_kind}"
    )
    sections = [
        f"<h1>Batched MatVec report: {escape(label)}</h1>",
        f"<p class='muted'>{escape(view.heading)} · {escape(result.created_at)}</p>",
    ]
    if view.took:
        sections.append(f"<p class='muted'>{escape(view.took)}</p>")
    sections.append("<h2>The fastest way</h2>")
    if view.winner is None:
        sections.append(f"<p class='wrong'>{escape(view.answer)}</p>")
    else:
        sections += [
            markdown_to_html(view.answer),
            f"<pre><code>{escape(view.code or NO_SOURCE)}</code></pre>",
        ]
        if view.simplest:
            sections += [
                f"<p class='muted'>The simplest of the tied strategies, "
                f"{escape(view.simplest)}:</p>",
                f"<pre><code>{escape(view.simplest_code or NO_SOURCE)}</code></pre>",
            ]
    if view.light:
        sections.append(f"<p class='muted'>{escape(view.light)}</p>")
    if view.search is not None:
        sections += ["<h2>The search</h2>", frame_table(view.search)]
    sections += ["<h2>Summary</h2>", frame_table(view.table)]
    notes = [*map(sentence, result.warnings), *view.failures, *view.notes]
    if notes:
        items = "".join(f"<li>{escape(note)}</li>" for note in notes)
        sections.append(f"<ul class='muted'>{items}</ul>")
    if not view.distribution.empty:
        sections += ["<h2>Distribution</h2>", frame_table(view.distribution)]
    sections += ["<h2>Charts</h2>", *(figure_html(f) for f in view.figures.values())]
    if not view.profiles.empty:
        sections += [
            "<h2>Why (profiled)</h2>",
            f"<p class='muted'>{escape(WHICH_TIME_IS_WHICH)}</p>",
            frame_table(view.profile_table),
            *(figure_html(f) for f in view.why_figures.values()),
        ]
        if not view.top_ops.empty:
            sections += ["<h3>Top ops (by self time)</h3>", frame_table(view.top_ops)]
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

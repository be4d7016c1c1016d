"""What a search found: every point it tried, the best per framework and overall, the ratio
of each to the best, and the code to copy. Derived from the results, like the winner."""

from __future__ import annotations

from typing import Any

from engine.catalogue.catalog import ONE_THREAD, is_known, split_variant, strategy_info
from engine.machine.words import counted
from engine.results.model import RunRecord
from engine.results.verdict import run_reduced_precision, run_winner_record


def point_axes(variant: str) -> dict[str, Any]:
    """Where a variant sits in the implementation space (empty for an unknown name)."""
    strategy, option = split_variant(variant)
    if not is_known(strategy):
        return {}
    info = strategy_info(strategy)
    return {
        "framework": info.framework,
        "expression": info.expression or strategy,
        "compiler": "xla" if option == "xla" else info.compiler,
        "chunks": info.chunks,
        "storage": info.storage or None,  # None: the requested dtype
        "threads": 1 if option == ONE_THREAD else None,  # None: every thread the run gives
        "simplicity": info.simplicity,
    }


def search_summary(result: RunRecord) -> dict[str, Any]:
    """`search` in the results JSON: points (each with its ratio to the best and why it
    stopped), the winner and its ties, and the fastest correct point of each framework."""
    winner = run_winner_record(result)
    ratios = (winner or {}).get("ratios", {})
    best = (winner or {}).get("variant")
    best_median = next((r.median_s for r in result.results if r.variant == best), None)
    points = []
    per_framework: dict[str, tuple[str, float]] = {}
    for entry in result.results:
        axes = point_axes(entry.variant)
        median = entry.median_s
        ratio = 1.0 if entry.variant == best else ratios.get(entry.variant, {}).get("ratio")
        if ratio is None and entry.accuracy_class and median and best_median:
            ratio = median / best_median  # another accuracy: a plain ratio of medians
        interval = None if entry.variant == best else ratios.get(entry.variant, {}).get("ratio_ci")
        points.append(
            {
                "point": entry.variant,
                **axes,
                "status": entry.status,
                "correct": entry.correct,
                "stop_reason": entry.stop_reason,
                "median_s": median,
                "ratio_to_best": ratio,
                "ratio_ci": interval,
                "code": result.code_for(entry.variant),
            }
        )
        framework = axes.get("framework")
        usable = bool(framework and entry.status == "ok" and entry.correct and median)
        usable = usable and not entry.accuracy_class  # reduced precision: `reduced_precision`
        if usable and (framework not in per_framework or median < per_framework[framework][1]):
            per_framework[framework] = (entry.variant, median)
    return {
        "best": best,
        "tied_with": (winner or {}).get("tied_with", []),
        "best_per_framework": {f: v for f, (v, _) in per_framework.items()},
        "reduced_precision": run_reduced_precision(result),
        "points": points,
    }


def search_lines(summary: dict[str, Any]) -> list[str]:
    """The CLI's words for a search: the winner, each framework's best, and what was left."""
    lines = [f"search: {counted(len(summary['points']), 'point')} tried"]
    if summary["best"]:
        ties = ", ".join(summary["tied_with"])
        lines.append(f"  best: {summary['best']}" + (f" (tied with {ties})" if ties else ""))
    for framework, variant in summary["best_per_framework"].items():
        lines.append(f"  best in {framework}: {variant}")
    reduced = summary.get("reduced_precision")
    if reduced:
        lines.append(
            f"  reduced precision ({reduced['accuracy_class']}): {reduced['variant']}, "
            f"{reduced['ratio_to_winner']:.2f}x the winner's time"
        )
    gone = [p for p in summary["points"] if p["stop_reason"] == "eliminated"]
    if gone:
        shown = ", ".join(
            f"{p['point']} {p['ratio_to_best']:.2f}x" for p in gone if p["ratio_to_best"]
        )
        lines.append(f"  eliminated: {shown}")
    return lines

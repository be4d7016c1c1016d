"""Plain-language reasons a strategy wins, computed from the run's own numbers."""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

from dashboard.text.controls import in_page_words
from engine.catalogue.catalog import baseline_strategies, is_known, split_variant, strategy_info
from engine.measure.memory import format_bytes, input_set_bytes
from engine.measure.peak import MEMORY
from engine.measure.roofline import arithmetic_intensity, regime
from engine.measure.uncertainty import NoiseFloor
from engine.results.formatting import (
    budget_flag,
    format_seconds,
    phased_ties,
    reduced_precision_line,
    speed_words,
    tie_words,
)
from engine.run_settings.config import BenchConfig

WHY_BY_KIND = {
    "graph": (
        "It runs as one TensorFlow graph, so Python is out of the loop: "
        "the whole batch is dispatched once instead of once per matrix."
    ),
    "eager": (
        "It is driven from Python op by op, so every matrix (or batch) pays a Python and "
        "dispatch round trip."
    ),
    "host": "It runs NumPy on the host CPU, with no TensorFlow dispatch at all.",
    "jit": "Its framework traces it once and compiles the whole batch into one program.",
}


def times(ratio: float) -> str:
    return f"{ratio:,.0f}×" if ratio >= 100 else f"{ratio:.2g}×"


def verdict_lines(winner: dict, busy_share: float | None = None) -> list[str]:
    """Who won and whether it is a tie, in words, with the numbers behind it; `busy_share`:
    the share of the CPU other processes used, when it widened the intervals."""
    margin = f"{winner['margin']:.0%}"
    ratios = winner["ratios"]
    if winner.get("reported_by"):
        return reported_lines(winner)
    if not winner["tied_with"]:
        lines = [f"**{winner['variant']}** is the fastest correct strategy in this run."]
        if ratios:
            nearest = min(ratios, key=lambda name: ratios[name]["ratio"])
            low, high = ratios[nearest]["ratio_ci"]
            lines.append(
                f"The nearest, `{nearest}`, takes {ratios[nearest]['ratio']:.2f}× as long "
                f"(95% interval {low:.2f}–{high:.2f}): more than the {margin} margin, so this "
                "is a real difference, not noise."
            )
        return lines + busy_lines(busy_share, won=True)
    noise = [n for n in winner["tied_with"] if n not in phased_ties(winner) and n in ratios]
    lines = [f"**Tie.** `{winner['variant']}` had the lowest median over the run"]
    if noise:
        lines[0] += ", but not by enough to name it alone:"
        budget = budget_flag(winner)
        lines += [
            f"`{name}`: {tie_words(ratios[name], winner['margin'], budget)}." for name in noise
        ]
    else:
        lines[0] += ", but not all through it."
    lines += phase_lines(winner)
    lines.append(code_words(winner))
    return lines + busy_lines(busy_share)


def machine_name(text: object) -> str:
    """A machine's name from a file, safe inside Markdown: host-name characters only."""
    return re.sub(r"[^A-Za-z0-9._-]", "?", str(text))[:80] or "?"


def reported_lines(winner: dict) -> list[str]:
    """A verdict from a file not measured here: whose word it is, and what was checked."""
    who = machine_name(winner["reported_by"])
    tied = ", ".join(f"`{name}`" for name in winner["tied_with"])
    said = f"`{winner['variant']}` had the lowest median" + (f", tied with {tied}" if tied else "")
    return [
        f"**Reported by {who}, not measured here.** In that run, {said}. Its errors were "
        "re-checked against the tolerance and its times against the run's own ceiling on "
        "reading; measure it here (Run page, same settings) to know what is fastest on this "
        "machine."
    ]


def code_words(winner: dict) -> str:
    """Which code is shown, in a tie: the fastest measured first, then the simplest of the
    tied strategies with the reason (one block when they are the same)."""
    why = f" ({winner['simplest_reason']})" if winner.get("simplest_reason") else ""
    fastest, simplest = winner["variant"], winner["simplest"]
    if simplest == fastest:
        return (
            f"The code shown is **{fastest}**: the fastest measured, and the simplest of the "
            f"tied strategies{why}."
        )
    return (
        f"The code shown first is **{fastest}**, the fastest measured; then **{simplest}**, "
        f"the simplest of the tied strategies{why}, as fast within this run's noise."
    )


def phase_lines(winner: dict) -> list[str]:
    """Ties that a change of the machine's speed during the run made, in words."""
    phased = phased_ties(winner)
    if not phased:
        return []
    shown = "; ".join(
        f"`{name}` took {phase['before']:.2f}× the winner's time over the first "
        f"{phase['round']} rounds and {phase['after']:.2f}× after"
        for name, phase in phased.items()
    )
    return [
        f"The machine changed speed during the run, and not every strategy alike: {shown}. "
        "Which is fastest depends on the machine's state; run again, or use repetitions, "
        "before choosing between them."
    ]


def busy_lines(busy_share: float | None, won: bool = False) -> list[str]:
    """What a busy machine did to this answer: a clean win cleared the margin through the
    wider intervals; a tie may be the busy machine's, and what would tell them apart."""
    if not busy_share:
        return []
    if won:
        return [
            f"Other processes used {busy_share:.0%} of the CPU during the run, so the "
            "intervals are wider than on a quiet machine; the win clears the margin even so."
        ]
    return [
        f"The intervals are wider than on a quiet machine: other processes used "
        f"{busy_share:.0%} of the CPU during the run. Close other work and run again, or use "
        "repetitions, to tell close strategies apart."
    ]


def _profile_of(profiles: pd.DataFrame | None, variant: str) -> pd.Series | None:
    if profiles is None or profiles.empty:
        return None
    rows = profiles[(profiles["variant"] == variant) & (profiles["status"] == "ok")]
    return None if rows.empty or pd.isna(rows.iloc[0]["op_share"]) else rows.iloc[0]


def profile_lines(profiles: pd.DataFrame | None, variant: str) -> list[str]:
    """What the profiler measured, in words: the shown variant's ops per call and where its
    time goes, and the profiled variant that executes the most ops, for contrast."""
    mine = _profile_of(profiles, variant)
    if mine is None:
        return []
    spent = f"{format_seconds(mine['op_time_s'])} of {format_seconds(mine['wall_s'])}"
    if pd.isna(mine["ops_per_call"]):  # the device's own timer, no profile
        lines = [
            f"On the device, `{variant}` spends {mine['op_share']:.0%} of each timed block in "
            f"its kernels ({spent} per call); the rest is launch and synchronisation."
        ]
    else:
        lines = [
            f"Profiled, `{variant}` executes {mine['ops_per_call']:,.0f} op(s) per call and "
            f"spends {mine['op_share']:.0%} of its time in them ({spent}); the rest is Python, "
            "dispatch and waiting."
        ]
    if mine.get("first_call"):
        lines.append(f"A fresh copy's first call took {mine['first_call']}.")
    assert profiles is not None
    ok = profiles[(profiles["status"] == "ok") & profiles["ops_per_call"].notna()]
    busiest = ok.loc[ok["ops_per_call"].idxmax()] if not ok.empty else None
    if busiest is not None and busiest["ops_per_call"] >= 10 * max(1.0, mine["ops_per_call"]):
        outside = 1 - busiest["op_share"] if not pd.isna(busiest["op_share"]) else None
        share = f"; {outside:.0%} of its time is spent outside them" if outside is not None else ""
        lines.append(
            f"`{busiest['variant']}` executes {busiest['ops_per_call']:,.0f} ops per call{share}."
        )
    return lines


STREAMING = 0.7  # of the measured peak: above it, the memory system is kept busy


def one_launch_words(matrices: int, fraction: float | None, level: object = MEMORY) -> str:
    """What one batched launch buys, said only as far as the measured rate bears it out,
    against the ceiling of the level it read from (memory's, or a cache's)."""
    launch = f"It computes all {matrices:,} matrix-vector products in a single batched launch"
    if fraction is None or fraction != fraction:
        return f"{launch}: no per-matrix dispatch."
    source = "memory" if level == MEMORY or not isinstance(level, str) else f"the {level} cache"
    ceiling = "the measured peak" if source == "memory" else f"the {level} ceiling"
    if fraction >= STREAMING:
        return f"{launch}, and at {fraction:.0%} of {ceiling} it keeps {source} streaming."
    return (
        f"{launch}, so no per-matrix dispatch; at {fraction:.0%} of {ceiling} it leaves "
        f"{source} idle part of the time."
    )


def fastest_way(
    shown: pd.Series,
    winner: dict,
    config: BenchConfig,
    peak: float | None,
    profiles: pd.DataFrame | None = None,
    llc_bytes: int | None = None,
    busy_share: float | None = None,
) -> str:
    """Markdown subset (**bold**, `code`): what won (or tied), by how much, and why; the
    regime (overhead-bound, cache-resident, memory-bound) named from the measured numbers.

    Only engine-written text goes in here: strategy names come from the catalogue."""
    strategy, option = split_variant(shown["variant"])
    lines = verdict_lines(winner, busy_share)
    speedups = []
    for base in baseline_strategies():
        value = shown.get(f"speedup_vs_{base}")
        if base == strategy or value is None or value != value:  # absent or NaN
            continue
        low, high = shown[f"speedup_vs_{base}_low"], shown[f"speedup_vs_{base}_high"]
        speedups.append(speed_words(value, low, high, f"`{base}`"))
    if speedups:
        lines.append(f"`{shown['variant']}` is " + " and ".join(speedups) + ".")
    if is_known(strategy):
        info = strategy_info(strategy)
        measured_why = profile_lines(profiles, shown["variant"])
        lines.extend(measured_why or [info.why or WHY_BY_KIND[info.kind]])
        if info.launches == "one":
            lines.append(one_launch_words(config.matrices, *placed_fraction(shown)))
    if option == "xla":
        lines.append("XLA compiled the graph into fused machine code for this exact shape.")
    intensity = arithmetic_intensity(config.dim, config.columns, config.itemsize)
    median = shown.get("median_s")
    name, why = regime(
        int(shown["bytes"]),
        None if median is None or median != median else float(median),
        peak,
        input_set_bytes(config),
        llc_bytes,
        config.cache,
    )
    lines.append(
        f"A matvec does only {intensity:.2f} FLOP per byte moved, far fewer than any device "
        f"can compute while it reads a byte, so memory sets its pace. Here it is **{name}**: "
        f"{why} "
        f"({format_bytes(shown['bytes'])} per call)."
    )
    lines.extend(ceiling_lines(shown, peak))
    return "\n\n".join(lines)


def source_words(shown: pd.Series, column: str = "ceiling_source", lead: str = " (") -> str:
    """ " (this run's own probes)": the reading a ceiling is; "" for a file without it."""
    source = shown.get(column)
    if not isinstance(source, str) or not source:
        return ""
    return f"{lead}{source})" if lead == " (" else f"{lead}{source}"


def placed_fraction(shown: pd.Series) -> tuple[float | None, str]:
    """Its fraction of the level it read from, and that level (memory's for an old file)."""
    level = shown.get("ceiling_level")
    if isinstance(level, str):
        return shown.get("ceiling_fraction"), level
    return shown.get("roofline_fraction"), MEMORY


def ceiling_lines(shown: pd.Series, peak: float | None) -> list[str]:
    """Where its rate stands: against the ceiling of the level its working set lives in (a
    cache's, or memory's), each ceiling named with the reading it is (`ceiling_source`: this
    run's own probes, or this machine's best within the hour)."""
    level = shown.get("ceiling_level")
    fraction = shown.get("ceiling_fraction") if isinstance(level, str) else None
    memory = shown.get("roofline_fraction")
    rate = shown.get("gbytes_per_s")
    if isinstance(level, str) and level != MEMORY and fraction is not None and fraction == fraction:
        line = (
            f"It moved {rate:.1f} GB/s, {fraction:.0%} of the {rate / fraction:.1f} GB/s read "
            f"from the {level} cache, where its warm working set lives{source_words(shown)}"
        )
        if peak and memory is not None and memory == memory:
            memory_source = source_words(shown, "roofline_source", lead="; ")
            line += f" ({memory:.0%} of memory's {peak / 1e9:.1f} GB/s{memory_source})"
        return [line + "."]
    if not peak or memory is None or math.isnan(memory):
        return []
    lines = [
        f"It moved {rate:.1f} GB/s, {memory:.0%} of the {peak / 1e9:.1f} GB/s peak read from "
        f"memory{source_words(shown, 'roofline_source')}."
    ]
    if memory > 1.0:
        notes = str(shown.get("notes") or "").split("; ")
        cached = next((n for n in notes if n.startswith("above the measured DRAM")), None)
        lines.append(
            f"Above 100%: it is {cached}."
            if cached
            else "Above 100% although its inputs do not stay in the cache: the peak probes "
            "were disturbed; run it again on a quieter machine."
        )
    return lines


def answer_for(result: Any, best: pd.Series, chosen: dict, profiles: pd.DataFrame | None) -> str:
    """`fastest_way` for a whole run: its config, measured peak and the cache it ran with (the
    page, the report and the notebook all ask it so)."""
    text = fastest_way(
        best,
        chosen,
        result.config,
        result.peak_bytes_per_s,
        profiles,
        result.environment.last_level_cache_bytes,
        busy_share_that_widened(result),
    )
    reduced = reduced_precision_line(result.reduced_precision(), result.config.dtype)
    return in_page_words(text + (f"\n\n{reduced[0].upper()}{reduced[1:]}." if reduced else ""))


def busy_share_that_widened(result: Any) -> float | None:
    """Other processes' share of the CPU, when it widened this run's floor (else None)."""
    if result.machine_load is None or result.effective_floor == result.noise_floor:
        return None
    return result.machine_load.other_cpu_fraction


def comparison_method(floor: NoiseFloor, margin: float) -> str:
    """How the Compare page and report reach their verdicts, in one paragraph."""
    spread = math.exp(1.96 * floor.between_run_log_sd) - 1
    return in_page_words(
        "Each ratio is a run's typical time over the baseline's, with a 95% interval that "
        "includes the spread between runs: resampled where a side has several runs, and the "
        f"machine's noise floor (medians move about ±{spread:.0%} between fresh processes; "
        f"{floor.source}) where it has one. A strategy is called faster or slower only when the "
        f"interval excludes ±{margin:.0%}; same when it lies inside it; otherwise inconclusive."
        f"{own_spreads(floor)}"
    )


def own_spreads(floor: NoiseFloor) -> str:
    """ " Judged with their own spread between runs, from the history: `einsum` ±60%, ...":
    the variants whose earlier runs moved more than the machine's floor says."""
    if not floor.variant_log_sd:
        return ""
    shown = ", ".join(
        f"`{name}` ±{math.exp(1.96 * sd) - 1:.0%}" for name, sd in floor.variant_log_sd
    )
    return f" Judged with their own spread between runs, from the history: {shown}."

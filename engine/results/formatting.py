"""Human formatting, kept apart from the data (torch.utils.benchmark's select_unit idea)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from engine.catalogue.catalog import framework_label, is_known
from engine.results.ceiling_text import ceiling_words

TIME_UNITS: tuple[tuple[str, float], ...] = (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9))


def select_time_unit(seconds: float) -> tuple[str, float]:
    """The largest unit in which `seconds` is at least 1."""
    for unit, scale in TIME_UNITS:
        if seconds >= scale:
            return unit, scale
    return TIME_UNITS[-1]


def format_seconds(seconds: float | None, digits: int = 3) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    unit, scale = select_time_unit(abs(seconds))
    return f"{seconds / scale:.{digits}g} {unit}"


def sentence(text: str) -> str:
    """A note as a sentence on a page: its first letter capitalised ("the machine was busy"
    -> "The machine was busy"), unless it starts with a name (`numpy`, `jax_vmap`, a path),
    which keeps its case."""
    first = re.split(r"[\s:,]", text, maxsplit=1)[0]
    if not text[:1].islower() or is_known(first) or any(c in first for c in "_./"):
        return text
    return text[0].upper() + text[1:]


def format_number(value: float | None, fmt: str = ".3g") -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return format(value, fmt)


def format_interval(interval: Any) -> str:
    """`[low, high]` seconds as one range in the low end's unit."""
    if not isinstance(interval, list | tuple) or len(interval) != 2 or interval[0] is None:
        return "-"
    low, high = interval
    unit, scale = select_time_unit(abs(low) or abs(high))
    if f"{low / scale:.3g}" == f"{high / scale:.3g}":  # one sample, or all alike: no range
        return f"{low / scale:.3g} {unit} (no spread)"
    if high / scale >= 1000:  # "977–1.16e+03 us" reads better in the high end's unit
        unit, scale = select_time_unit(abs(high))
    return f"{low / scale:.3g}–{high / scale:.3g} {unit}"


def with_interval(seconds: float | None, interval: Any) -> str:
    """ "8.1 us (7.9–8.5 us)", "4 ms (no spread)"; the time alone without an interval."""
    shown = format_seconds(seconds)
    if not interval:
        return shown
    reach = format_interval(interval)
    return f"{shown} (no spread)" if reach.endswith("(no spread)") else f"{shown} ({reach})"


def winner_line(winner: Mapping[str, Any] | None) -> str:
    """ "fastest: X" or "tied: X, Y (within 5%)", and which code to copy and why."""
    if winner is None:
        return "no strategy produced a correct result"
    if winner.get("reported_by"):
        return f"{reported_words(winner['reported_by'])}: {measured_line(winner)}"
    return measured_line(winner)


def reported_words(machine: str) -> str:
    """How a verdict that is another file's word is introduced, everywhere."""
    return f"reported by {machine}, not measured here"


def measured_line(winner: Mapping[str, Any]) -> str:
    margin = f"{winner['margin']:.0%}"
    simplest = winner["simplest"]
    why = f" ({winner['simplest_reason']})" if winner.get("simplest_reason") else ""
    if not winner["tied_with"] and not winner.get("ratios"):
        return f"fastest: {winner['variant']} (the only variant with a correct result)"
    if not winner["tied_with"]:
        return f"fastest: {winner['variant']} (faster than every other by more than {margin})"
    names = ", ".join([winner["variant"], *winner["tied_with"]])
    ratios = winner.get("ratios") or {}
    told = "; ".join(
        f"{name} {tie_words(ratios[name], winner['margin'], budget_flag(winner))}"
        for name in winner["tied_with"]
        if name in ratios and "phase" not in ratios[name]
    )
    return (
        f"tied: {names} ({told}){phase_clause(winner)}; simplest to copy: {simplest}{why}"
        if told
        else f"tied: {names}{phase_clause(winner)}; simplest to copy: {simplest}{why}"
    )


def spread_words(log_sd: float) -> str:
    """A side's floor as the ± a fresh measurement moves by (95%)."""
    return f"±{math.exp(1.96 * log_sd) - 1:.0%}"


def budget_flag(winner: Mapping[str, Any]) -> str:
    """The flag whose budget stopped the sampling: a search's own, else each variant's."""
    return str(winner.get("budget_flag") or "--time-budget")


def tie_words(ratio: Mapping[str, Any], margin: float, budget: str = "--time-budget") -> str:
    """Why one variant is tied with the winner, and what would separate them, worded from its
    record (`tie_reason`, the ratio and its interval, the floor its sides carried); `budget`
    the flag a longer sampling takes (`budget_flag`)."""
    low, high = ratio["ratio_ci"]
    numbers = f"{ratio['ratio']:.2f}x the winner's time, {low:.2f}–{high:.2f}"
    reason = ratio.get("tie_reason")
    spread = spread_words(float(ratio.get("side_log_sd") or 0.0))
    if reason == "margin":
        return f"{numbers}: within the {margin:.0%} margin, as fast for this problem"
    if reason == "samples":
        return (
            f"{numbers}: its samples spread too widely to tell; a longer {budget} "
            "would narrow that, to apart or as fast"
        )
    if reason == "processes":
        return (
            f"{numbers}: its own samples set it apart, but it ran in another process and a "
            f"fresh process's time moves {spread} on this machine; --repetitions 5 measures "
            "that spread instead of assuming it"
        )
    if reason == "floor":
        return (
            f"{numbers}: its own samples set it apart, but ratios on this machine move "
            f"{spread} between runs; --repetitions 5 measures that spread instead of "
            "assuming it"
        )
    return f"{numbers}: its interval reaches within the {margin:.0%} margin"


def phased_ties(winner: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The ties that only a change of the machine's speed during the run made, each with its
    `phase` record ({changed, round, before, after}), in the order of `tied_with`."""
    ratios = winner.get("ratios") or {}
    return {
        name: ratios[name]["phase"]
        for name in winner["tied_with"]
        if "phase" in ratios.get(name, {})
    }


def phase_clause(winner: Mapping[str, Any]) -> str:
    """ ", or changed places when the machine changed speed (...)": the phase ties, with
    their ratios on both sides."""
    phased = phased_ties(winner)
    if not phased:
        return ""
    told = "; ".join(
        f"{name}: {phase['before']:.2f}x {winner['variant']}'s time over the first "
        f"{phase['round']} rounds, {phase['after']:.2f}x after"
        for name, phase in phased.items()
    )
    return f", or changed places when the machine changed speed during the run ({told})"


def reduced_precision_line(record: Mapping[str, Any] | None, dtype: str) -> str | None:
    """The reduced-precision trade beside the answer, never as the answer: its time over the
    winner's and both errors, side by side."""
    if not record:
        return None
    low, high = record["ratio_ci"]
    return (
        f"reduced precision, not the answer for {dtype}: {record['variant']} "
        f"({record['accuracy_class']}) takes {record['ratio_to_winner']:.2f}x the time of "
        f"{record['winner']} ({low:.2f}–{high:.2f}x), with a max relative error of "
        f"{format_number(record['max_rel_error'], '.1e')} against "
        f"{format_number(record['winner_max_rel_error'], '.1e')}; use it only where that "
        "error is acceptable"
    )


def verdict(status: str, correct: bool) -> str:
    """The one-word state users scan for: a wrong answer must never look like a result."""
    if status != "ok":
        return status
    return "ok" if correct else "WRONG"


def format_entry(entry: Mapping[str, Any]) -> dict[str, str]:
    """The human columns of one results-JSON entry, shared by the CLI and the dashboard."""
    interval = entry.get("median_ci_s")
    return {
        "strategy": entry["variant"],
        "framework": framework_label(entry["strategy"]),
        "status": verdict(entry["status"], entry["correct"]),
        "median": format_seconds(entry["median_s"]),
        "95% CI": format_interval(interval),
        "IQR": format_seconds(entry["iqr_s"]),
        "GB/s": format_number(entry["gbytes_per_s"], ".1f"),
        "GFLOP/s": format_number(entry["gflops_per_s"], ".1f"),
        "% roofline": ceiling_words(entry),
        "max rel error": format_number(entry["max_rel_error"], ".1e"),
    }


NUMBER = re.compile(r"\d[\d.,]*%?")


def times(ratio: float) -> str:
    """A ratio with the digits it deserves: 1.14, 23.3, 2245 (never 2245.24)."""
    if ratio >= 100:
        return f"{ratio:,.0f}"
    if ratio >= 10:
        return f"{ratio:.1f}"
    return f"{ratio:.2f}"


def speed_words(ratio: float, low: float, high: float, than: str) -> str:
    """ "1.14x slower than numpy (1.05–1.24x)", never "0.88x faster": `ratio` is the other's
    time over this one's (above 1: this one is faster); an interval across 1 is "about"."""
    if low <= 1 <= high:
        return f"about as fast as {than} ({low:.2f}–{high:.2f}x its speed)"
    if ratio >= 1:
        return f"{times(ratio)}x faster than {than} ({times(low)}–{times(high)}x)"
    return f"{times(1 / ratio)}x slower than {than} ({times(1 / high)}–{times(1 / low)}x)"


def entry_notes(entry: Mapping[str, Any]) -> list[str]:
    """What a result entry says beside its numbers: its error, warnings and a failed profile."""
    notes = [entry["error"]] if entry.get("error") else list(entry.get("warnings") or ())
    profile = entry.get("profile") or {}
    if profile.get("status") == "failed":
        notes.append(f"profile failed: {profile.get('error')}")
    return notes


def ranged(note: str, tokens: list[str]) -> str:
    """`note` with its one number written as the range the group spans ("IQR is 12–15% of
    the median"), never a placeholder a reader could take for an unfilled template."""

    def value(token: str) -> float:
        return float(token.rstrip("%").replace(",", ""))

    low, high = min(tokens, key=value), max(tokens, key=value)
    span = low if value(low) == value(high) else f"{low.rstrip('%')}–{high}"
    return NUMBER.sub(lambda _m: span, note, count=1)


def grouped_notes(notes: Iterable[tuple[str, str]]) -> list[str]:
    """(variant, note) pairs as lines, one per kind of note: the same note for several variants
    is one line naming them all, and notes that differ only in a number ("IQR is 12% of the
    median ...") are one line with each variant's number."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for variant, note in notes:
        shape = NUMBER.sub(lambda m: "N%" if m.group().endswith("%") else "N", note)
        groups.setdefault(shape, []).append((variant, note))
    lines = []
    for members in groups.values():
        variants = [variant for variant, _ in members]
        texts = {note for _, note in members}
        if len(texts) == 1:
            lines.append(f"{', '.join(dict.fromkeys(variants))}: {members[0][1]}")
            continue
        numbers = [NUMBER.findall(note) for _, note in members]
        if all(len(found) == 1 for found in numbers):
            each = ", ".join(f"{v} {n[0]}" for v, n in zip(variants, numbers))
            lines.append(f"{ranged(members[0][1], [n[0] for n in numbers])} ({each})")
        else:
            lines.extend(f"{variant}: {note}" for variant, note in members)
    return lines


ERROR_MAX_CHARS = 500
NOISE_PREFIXES = ("Graph execution error", "Detected at node", "Stack trace", "File ", "[[", "in ")


UNSUPPORTED_WORDS = (
    "no registered",
    "not supported",
    "unsupported",
    "invalid data type",
    "not implemented for",
)


def classify_error(error: BaseException) -> str:
    """`unsupported` when a framework says it lacks a kernel or a dtype (any framework's
    words for it), else `failed`: the status a variant's failure is recorded with."""
    text = str(error).lower()
    return "unsupported" if any(word in text for word in UNSUPPORTED_WORDS) else "failed"


def one_line(error: BaseException) -> str:
    """A failure in one line: framework errors (TensorFlow's above all) carry pages of graph
    context; users need the line that says why."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    useful = [line for line in lines if not line.startswith(NOISE_PREFIXES)]
    first = (useful or lines or [""])[0]
    return f"{type(error).__name__}: {first}"[:ERROR_MAX_CHARS]

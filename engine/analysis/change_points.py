"""When a series of runs changed: steps in one variant's typical time, found and explained.

A series is one machine, one problem (shape, dtype, mode, replicas, cache) and one variant's
medians over its stored runs, oldest first. Steps are found by binary segmentation on
log(median), as E-divisive means does it in Apache Otava (Hunter) and MongoDB's
signal-processing-algorithms: the split of a segment that best separates the means before and
after it (Welch's t statistic, SciPy), kept when a permutation test of that *best* split says
no arrangement of the same runs in random order separates them as well (p below `ALPHA`,
`PERMUTATIONS` shuffles: the search over every split is part of what is tested, so a steady
series does not find a step by looking everywhere); then each side is searched again. A step
smaller than `MIN_STEP` is not reported: below it a change does not matter here.

Each step carries its ratio (the mean after over the mean before, in time), a 95% interval of
that ratio (Welch's, SciPy), the run where it begins, and what differed in the environment
between the last run before it and the first after (framework versions, threads, flags, the
device, the label): the likely cause, named from the records.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.results.formatting import reported_words

ALPHA = 0.01  # a step is kept when its permutation p-value is below this
PERMUTATIONS = 499  # p resolution 1/500
MIN_SEGMENT = 3  # runs on each side of a step, at least
MIN_STEP = 0.02  # |ratio - 1| below this is not a step worth naming
SEED = 0  # the permutations are reproducible: the same history, the same steps


@dataclass(frozen=True)
class Step:
    """A change in a series: from run `index` on (0-based, in the series' order), the typical
    time is `ratio` times what it was before, with its 95% interval and p-value."""

    index: int
    ratio: float
    low: float
    high: float
    p_value: float
    before_runs: int
    after_runs: int
    changed: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    @property
    def slower(self) -> bool:
        return self.ratio > 1


def _best_split(values: np.ndarray) -> tuple[int, float]:
    """The split k (values[:k] | values[k:]) with the largest |Welch t|, and that |t|."""
    n = len(values)
    ks = np.arange(MIN_SEGMENT, n - MIN_SEGMENT + 1)
    if len(ks) == 0:
        return -1, 0.0
    total = np.cumsum(values)
    squares = np.cumsum(values**2)
    left_n, right_n = ks.astype(float), (n - ks).astype(float)
    left_mean = total[ks - 1] / left_n
    right_mean = (total[-1] - total[ks - 1]) / right_n
    left_var = (squares[ks - 1] - left_n * left_mean**2) / (left_n - 1)
    right_var = (squares[-1] - squares[ks - 1] - right_n * right_mean**2) / (right_n - 1)
    spread = np.sqrt(np.maximum(left_var / left_n + right_var / right_n, 1e-24))
    t = np.abs(right_mean - left_mean) / spread
    best = int(np.argmax(t))
    return int(ks[best]), float(t[best])


def _p_value(values: np.ndarray, observed: float, rng: np.random.Generator) -> float:
    """How often a random order of the same runs splits as well as the best split did."""
    as_good = sum(_best_split(rng.permutation(values))[1] >= observed for _ in range(PERMUTATIONS))
    return (as_good + 1) / (PERMUTATIONS + 1)


def _interval(before: np.ndarray, after: np.ndarray) -> tuple[float, float]:
    """95% Welch interval of mean(after) - mean(before) in log time, as a ratio."""
    from scipy.stats import ttest_ind

    found = ttest_ind(after, before, equal_var=False).confidence_interval(0.95)
    return math.exp(found.low), math.exp(found.high)


def find_steps(log_medians: Sequence[float]) -> list[Step]:
    """Every step of a series of log(median)s, in order (none for fewer than 2·MIN_SEGMENT).
    Each step's ratio and interval are between the segments on either side of it, once every
    step is known (a first split of three levels compares one level with two)."""
    values = np.asarray(log_medians, dtype=np.float64)
    rng = np.random.default_rng(SEED)
    splits: dict[int, float] = {}  # where a step begins -> its permutation p-value

    def search(start: int, stop: int) -> None:
        segment = values[start:stop]
        if len(segment) < 2 * MIN_SEGMENT:
            return
        split, t = _best_split(segment)
        if split < 0 or not math.isfinite(t):
            return
        if abs(math.exp(float(segment[split:].mean() - segment[:split].mean())) - 1) < MIN_STEP:
            return
        p = _p_value(segment, t, rng)
        if p >= ALPHA:
            return
        splits[start + split] = p
        search(start, start + split)
        search(start + split, stop)

    search(0, len(values))
    edges = [0, *sorted(splits), len(values)]
    steps = []
    for left, at, right in zip(edges, edges[1:], edges[2:]):
        before, after = values[left:at], values[at:right]
        ratio = math.exp(float(after.mean() - before.mean()))
        if abs(ratio - 1) < MIN_STEP:
            continue  # a split whose neighbours, once all are known, barely differ
        low, high = _interval(before, after)
        steps.append(Step(at, ratio, low, high, splits[at], len(before), len(after)))
    return steps


def flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    """Nested mappings as dotted keys ("frameworks.jax.version")."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            flatten(f"{prefix}.{key}" if prefix else str(key), inner, out)
    else:
        out[prefix] = value


# What a step is explained by; wall times, start times and the like move every run.
IGNORED = ("process.", "startup_s", "wall_s", "device_memory", "load_at_start")
DUPLICATES = ("tensorflow",)  # the top-level copy of frameworks.tensorflow.version


def environment_diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, tuple]:
    """The settings that differ between two runs' environments (and labels): (before, after)."""
    flat_before: dict[str, Any] = {}
    flat_after: dict[str, Any] = {}
    flatten("", before, flat_before)
    flatten("", after, flat_after)
    return {
        key: (flat_before.get(key), flat_after.get(key))
        for key in sorted(set(flat_before) | set(flat_after))
        if flat_before.get(key) != flat_after.get(key)
        and not any(part in key for part in IGNORED)
        and key not in DUPLICATES
    }


def step_words(step: Step) -> str:
    """ "1.30x slower from run 12 (1.24–1.37x, p 0.002); changed: threads.intra_op 1 → 2"."""
    way = f"{step.ratio:.2f}x slower" if step.slower else f"{1 / step.ratio:.2f}x faster"
    interval = f"{step.low:.2f}–{step.high:.2f}x the time before"
    changed = "; ".join(f"{key} {old} → {new}" for key, (old, new) in step.changed.items())
    return (
        f"{way} from run {step.index + 1} ({interval}, p {step.p_value:.3f}, "
        f"{step.before_runs} runs before, {step.after_runs} after)"
        + (f"; changed: {changed}" if changed else "; nothing in the environment changed")
    )


@dataclass(frozen=True)
class Series:
    """One machine's runs of one problem, for one variant: its medians in order, and steps."""

    machine: str
    problem: str
    variant: str
    run_ids: tuple[str, ...]
    created: tuple[str, ...]
    medians_s: tuple[float, ...]
    steps: tuple[Step, ...]
    # Runs this machine did not measure (files' words): their own series, never a gate's.
    reported: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "reported": self.reported,
            "problem": self.problem,
            "variant": self.variant,
            "runs": [
                {"run_id": r, "created_at": c, "median_s": m}
                for r, c, m in zip(self.run_ids, self.created, self.medians_s, strict=True)
            ],
            "steps": [
                {
                    "run_index": s.index,
                    "run_id": self.run_ids[s.index],
                    "ratio": s.ratio,
                    "ratio_ci": [s.low, s.high],
                    "p_value": s.p_value,
                    "changed": {k: list(v) for k, v in s.changed.items()},
                    "words": step_words(s),
                }
                for s in self.steps
            ],
        }


def problem_words(run: Any) -> str:
    c = run.config
    layout = c.mode if c.mode == "single" else f"{c.mode} over {c.replicas}"
    return f"{c.matrices}x{c.dim}x{c.columns} {c.dtype} {layout}, cache {c.cache}"


def environment_of(run: Any) -> dict[str, Any]:
    """What a step may be explained by: the run's environment, its label and threads."""
    return {
        **run.environment.to_dict(),
        "label": run.config.label,
        "threads_setting": run.config.threads,
    }


def series_of(runs: Sequence[Any]) -> list[Series]:
    """Every series in `runs` (any order): per machine, problem and variant, each correct,
    timed result in the order the runs were made, with its steps and their causes."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for run in sorted(runs, key=lambda r: r.created_at):
        env = run.environment
        machine = f"{env.hostname or 'an unnamed machine'} ({env.device_kind})"
        if run.reported_by:  # a file's word: a series of its own, said so wherever it shows
            machine = f"{machine}, {reported_words(run.reported_by)}"
        groups.setdefault((machine, problem_words(run)), []).append(run)
    found = []
    for (machine, problem), members in groups.items():
        variants = dict.fromkeys(r.variant for run in members for r in run.results)
        for variant in variants:
            points = [
                (run, entry.median_s)
                for run in members
                for entry in run.results
                if entry.variant == variant and entry.status == "ok" and entry.correct
                if entry.median_s
            ]
            steps = []
            for step in find_steps([math.log(median) for _, median in points]):
                before, after = points[step.index - 1][0], points[step.index][0]
                changed = environment_diff(environment_of(before), environment_of(after))
                steps.append(dataclasses.replace(step, changed=changed))
            found.append(
                Series(
                    machine,
                    problem,
                    variant,
                    tuple(run.run_id for run, _ in points),
                    tuple(run.created_at for run, _ in points),
                    tuple(median for _, median in points),
                    tuple(steps),
                    reported=members[0].reported_by is not None,
                )
            )
    return found


def latest_slowdown(series: Series, percent: float) -> Step | None:
    """The series' last step, when it is a slowdown confirmed beyond `percent` (its interval's
    low end above 1 + percent/100) and nothing has moved it back since: what a CI gate on the
    history fails on. A series of reported runs is never judged: its numbers are a file's word."""
    if not series.steps or series.reported:
        return None
    last = series.steps[-1]
    return last if last.low > 1 + percent / 100 else None

"""What this machine's history already knows about a run before it starts: which variants
were far slower than the best at this very problem.

A variant that every one of its recent runs of the same problem on this machine (at most
`PRIOR_RUNS`, from the last `PRIOR_DAYS` days) measured at least `PRIOR_SLOWER` times its
run's best is a *prior*: the next run spends one checked call and one timed block on it
instead of a warm-up, an autorange and full turns, and eliminates it when that block agrees
(`racing.confirmed_slower`); a block that does not agree sends it back to full measurement.
The history's ratio is said as the history's ("from history: …"), never shown as measured:
the run's own numbers for the variant are its one block's.

A sweep learns within itself too (`point_priors`, `for_more_matrices`): a variant that the
sweep's point of the same problem with fewer matrices measured far slower than its best is
confirmed by one block at a point of more, and said to come from that point ("from this
sweep: …").

A run made on a busy machine counts like any other: a load that slows one variant's samples
more than another's is what the block guards against (a prior it does not confirm costs one
dropped block), and a ratio of 4× or more is not a tie the busy widening was made for.
"""

from __future__ import annotations

import platform
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig

PRIOR_RUNS = 5  # the newest runs of a variant its prior reads
PRIOR_DAYS = 7  # older runs say nothing about today's machine and versions
# The least ratio to its runs' best that makes a prior: headroom over the `CONFIRMED_SLOWER`
# its one block must show, so a variant near that edge is not confirmed in one run and sent
# back to full measurement (a wasted block) in the next.
PRIOR_SLOWER = 4.0


@dataclass(frozen=True)
class Prior:
    """`variant` was at least `ratio` times its run's best (`best`, in the newest of those
    runs) in each of `runs` recent runs, the newest made at `newest`, where its median was
    `median_s` per call (what its confirming block's calls and re-warm are sized by, never a
    number shown as this run's). `matrices`: learnt in this sweep, at its point of that many
    matrices of the same problem (None: this very problem, in the history)."""

    variant: str
    ratio: float
    best: str
    runs: int
    newest: str
    median_s: float
    matrices: int | None = None

    def words(self) -> str:
        if self.matrices is not None:
            return (
                f"from this sweep: at least {self.ratio:.1f}× the best's time ({self.best}) "
                f"at its point of {self.matrices:,} matrices of this shape"
            )
        runs = "run" if self.runs == 1 else f"{self.runs} runs"
        return (
            f"from history: at least {self.ratio:.1f}× the best's time ({self.best}) at this "
            f"problem in {'its last' if self.runs == 1 else 'each of its last'} {runs} on "
            f"this machine"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ratio": self.ratio,
            "best": self.best,
            "runs": self.runs,
            "newest": self.newest,
            "median_s": self.median_s,
            **({"matrices": self.matrices} if self.matrices is not None else {}),
        }

    @classmethod
    def from_dict(cls, variant: str, data: dict[str, Any]) -> Prior:
        return cls(
            variant,
            float(data["ratio"]),
            str(data["best"]),
            int(data["runs"]),
            str(data["newest"]),
            float(data["median_s"]),
            None if data.get("matrices") is None else int(data["matrices"]),
        )


def run_ratios(run: RunResult) -> tuple[str, dict[str, float], dict[str, float]] | None:
    """Each correct variant's median over the run's fastest correct one (an accuracy class of
    its own is never the best), with that one's name, and the medians; None without two such
    variants."""
    medians = {
        r.variant: r.median_s
        for r in run.results
        if r.status == "ok" and r.correct and r.median_s and r.samples_s
    }
    candidates = {
        r.variant: r.median_s
        for r in run.results
        if r.variant in medians and not r.accuracy_class and r.median_s
    }
    if len(medians) < 2 or not candidates:
        return None
    best = min(candidates, key=lambda name: candidates[name])
    return best, {name: m / candidates[best] for name, m in medians.items()}, medians


def priors_from(runs: Iterable[RunResult], now: datetime | None = None) -> dict[str, Prior]:
    """The priors `runs` (this problem on this machine, newest first) give. Never a user's
    kernel's (its file may have changed under the same name), nor a reduced-precision
    point's: its one block has no best of its accuracy to be judged against, so it would be
    dropped and measured in full (`jax_einsum_bf16` in `run --search`)."""
    now = now or datetime.now(timezone.utc)
    since = now - timedelta(days=PRIOR_DAYS)
    seen: dict[str, list[tuple[float, str, str, float]]] = {}
    users: set[str] = set()  # and points of another accuracy: never judged against the best
    for run in runs:
        users |= {r.variant for r in run.results if r.user_kernel or r.accuracy_class}
        if created(run) < since:
            continue
        found = run_ratios(run)
        if found is None:
            continue
        best, ratios, medians = found
        for variant, ratio in ratios.items():
            readings = seen.setdefault(variant, [])
            if len(readings) < PRIOR_RUNS:  # the best of a run reads 1.0: no prior
                readings.append((ratio, best, run.created_at, medians[variant]))
    priors = {}
    for variant, readings in seen.items():
        if (
            variant not in users
            and readings
            and all(reading[0] >= PRIOR_SLOWER for reading in readings)
        ):
            _, best, newest, median_s = readings[0]
            least = min(reading[0] for reading in readings)
            priors[variant] = Prior(variant, least, best, len(readings), newest, median_s)
    return priors


def point_priors(run: RunResult) -> dict[str, Prior]:
    """What a sweep's point (`run`) will say to its later points of more matrices of the same
    problem: its variants far slower than its best, marked with its matrix count (kept as these
    few numbers, not the run, however many points the sweep has)."""
    return {
        name: replace(prior, matrices=run.config.matrices)
        for name, prior in priors_from([run]).items()
    }


def for_more_matrices(priors: dict[str, Prior], matrices: int) -> dict[str, Prior]:
    """A point's `point_priors` said to a point of `matrices` (more than its own; none else),
    each to be confirmed there by one block. A per-matrix loop's gap to a batched kernel
    usually widens with the matrix count (the batched kernel's fixed cost is spread wider);
    where it narrows instead, the block does not confirm it and the variant is measured in
    full. Its time per call, which sizes the block, is scaled by the matrix count (the work
    grows with it); the sampler takes its first call there instead where that is shorter
    (`measure/timing.py`)."""
    return {
        name: replace(prior, median_s=prior.median_s * matrices / prior.matrices)
        for name, prior in priors.items()
        if prior.matrices is not None and prior.matrices < matrices
    }


def stored_priors(history: Any, config: BenchConfig, device_kind: str) -> dict[str, Prior]:
    """The priors an opened history (`storage.history.History`) gives for `config`'s problem
    on this machine; none where it cannot be read (the run then measures everything in full)."""
    try:
        runs = history.problem_runs(config, platform.node(), device_kind, 4 * PRIOR_RUNS)
    except (OSError, ValueError):
        return {}
    return priors_from(runs)


def created(run: RunResult) -> datetime:
    """When the run was made (a time without a zone is UTC's)."""
    try:
        made = datetime.fromisoformat(run.created_at)
    except ValueError:
        return datetime.min.replace(tzinfo=timezone.utc)
    return made if made.tzinfo else made.replace(tzinfo=timezone.utc)

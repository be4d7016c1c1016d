"""The answer before measuring: what this machine's history says a run will find, said as a
prediction, then checked against what the run measures.

For each variant of the run, its time per call at the run's problem, with a 95% interval:

- **exact**: the history holds runs of this very problem (shape, dtype, mode, replicas, cache)
  on this machine: the geometric mean of their medians, the interval a prediction interval for
  one more run (Student's t over their spread between runs, never narrower than the machine's
  floor between processes; with fewer than three runs, the spread a fresh process's median
  is given where nothing is known of it, `compare_floor.DEFAULT_COMPARE_LOG_SD`);
- **model**: it holds runs of the same family (dtype, mode, replicas, cache) at other shapes:
  a fit of `median_s = fixed + per_matrix × B + per_byte × bytes` over them (relative least
  squares, as `scaling.fit_costs`), used only inside the range of matrix counts and bytes the
  history measured (never extrapolated), its interval the fit's relative residual spread and
  the floor together.

A variant with neither makes no prediction of the run: its winner would be a guess. The
predicted winner is the variant of the least predicted time; variants whose interval reaches
the winner's, or whose time is within the tie margin of it, are predicted tied with it.

A prediction never enters the measured record: it is kept beside it (`prediction` in the
results JSON), and once the run has measured, its outcome says whether the measured winner
was the predicted winner or one predicted tied with it (`confirmed`), and by how much the
predicted time of the measured winner missed (`time_error`: |log(predicted / measured)|).
The machine's record of outcomes (`TrackRecord`) is said with every prediction; where it is
poor, the prediction says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.catalogue.catalog import split_variant
from engine.measure.compare_floor import DEFAULT_COMPARE_LOG_SD
from engine.measure.roofline import traffic_bytes
from engine.measure.uncertainty import DEFAULT_MARGIN
from engine.run_settings.config import BenchConfig

MIN_MODEL_SHAPES = 4  # distinct shapes a fit needs: three coefficients and one degree to spare
# The least spread between processes a prediction carries: a fresh process's median moves
# this much on a shared host even where the history's runs happened to agree.
MIN_LOG_SD = 0.10
MIN_SPREAD_RUNS = 3  # fewer runs of a problem say nothing of its spread: the unknown one is used
POOR_RECORD = 0.6  # confirmed share below which a record of at least `RECORD_SAYS` is poor
RECORD_SAYS = 5


@dataclass(frozen=True)
class TrackRecord:
    """How this machine's predictions fared: made, confirmed, and the median time error."""

    made: int
    confirmed: int
    median_time_error: float | None

    @property
    def poor(self) -> bool:
        return self.made >= RECORD_SAYS and self.confirmed < POOR_RECORD * self.made

    def words(self) -> str:
        if not self.made:
            return "no earlier prediction on this machine to judge it by"
        missed = (
            f", predicted times off by {math.exp(self.median_time_error) - 1:.0%} (median)"
            if self.median_time_error is not None
            else ""
        )
        said = f"{self.confirmed} of {self.made} earlier predictions here confirmed{missed}"
        return f"{said}: a poor record, so read it as a guess" if self.poor else said

    def to_dict(self) -> dict[str, Any]:
        return {
            "made": self.made,
            "confirmed": self.confirmed,
            "median_time_error": self.median_time_error,
        }


@dataclass(frozen=True)
class Prediction:
    """The run's predicted answer: the winner, those tied with it, every variant's time as
    (low, mid, high) seconds per call, where it came from, and the record it carries."""

    winner: str
    tied_with: tuple[str, ...]
    times_s: Mapping[str, tuple[float, float, float]]
    source: str
    runs_used: int
    record: TrackRecord
    # whose history: this machine's, or (a team store) machines of the same kind, said so
    whose: str = "this machine's history"

    def words(self) -> str:
        """ "predicted from this machine's history, not measured: numpy (18.1 µs, 15.2–21.5),
        tied with numpy_einsum; exact: 4 runs of this problem; 3 of 4 earlier ... confirmed" """
        low, mid, high = self.times_s[self.winner]
        tied = f", tied with {', '.join(self.tied_with)}" if self.tied_with else ""
        return (
            f"predicted from {self.whose}, not measured: {self.winner} fastest "
            f"({seconds(mid)}, {seconds(low)}–{seconds(high)}){tied}; {self.source}; "
            f"{self.record.words()}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "tied_with": list(self.tied_with),
            "times_s": {name: list(times) for name, times in self.times_s.items()},
            "source": self.source,
            "runs_used": self.runs_used,
            "record": self.record.to_dict(),
            "whose": self.whose,
        }


@dataclass(frozen=True)
class NoPrediction:
    """Why the history predicts nothing for this run (said, never a guess)."""

    reason: str

    def words(self) -> str:
        return f"no prediction: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {"none": self.reason}


def seconds(value: float) -> str:
    """A time as a prediction says it (3 significant figures, its unit)."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


@dataclass(frozen=True)
class Point:
    """One stored run's correct median of one variant, at its shape."""

    variant: str
    matrices: int
    dim: int
    cols: int
    bytes: int
    median_s: float


def points_of(runs: Iterable[Any], config: BenchConfig, reported: bool = False) -> list[Point]:
    """Every correct, timed result of `runs` of a variant `config` runs (its strategies; +xla
    variants only when it asks for them), measured here (a reported run predicts nothing,
    unless `reported`: other machines' runs in a team store, said as theirs)."""
    wanted = set(config.strategies)
    found = []
    for run in runs:
        if getattr(run, "reported_by", None) and not reported:
            continue
        c = run.config
        for entry in run.results:
            strategy, option = split_variant(entry.variant)
            if strategy not in wanted or (option == "xla" and not config.xla):
                continue
            median = entry.median_s
            if entry.status != "ok" or not entry.correct or not median:
                continue
            found.append(
                Point(entry.variant, c.matrices, c.dim, c.columns, int(entry.bytes), median)
            )
    return found


def interval(mid_log: float, sd: float, freedom: float) -> tuple[float, float, float]:
    """(low, mid, high) seconds of a 95% prediction interval on the log scale."""
    from scipy.stats import t

    half = float(t.ppf(0.975, freedom)) * sd if math.isfinite(freedom) else 1.96 * sd
    return math.exp(mid_log - half), math.exp(mid_log), math.exp(mid_log + half)


def exact_time(points: Sequence[Point], floor_log_sd: float) -> tuple[float, float, float] | None:
    """(low, mid, high) from the medians of this very problem, or None without any: where
    one more run's median should fall."""
    if not points:
        return None
    logs = np.log([p.median_s for p in points])
    count, floor = len(logs), max(floor_log_sd, MIN_LOG_SD)
    if count >= MIN_SPREAD_RUNS:
        sd, freedom = max(float(np.std(logs, ddof=1)), floor), count - 1.0
    else:  # two runs that agree say little of the next: the spread nothing known gives
        sd, freedom = max(DEFAULT_COMPARE_LOG_SD, floor), math.inf
    return interval(float(np.mean(logs)), sd * math.sqrt(1 + 1 / count), freedom)


def model_time(
    points: Sequence[Point], matrices: int, bytes_: int, floor_log_sd: float
) -> tuple[tuple[float, float, float] | None, str]:
    """(low, mid, high) from the fitted cost across shapes, or None and why not."""
    shapes = {(p.matrices, p.dim, p.cols) for p in points}
    if len(shapes) < MIN_MODEL_SHAPES:
        return None, f"{len(shapes)} shape(s) in the history, {MIN_MODEL_SHAPES} needed for a fit"
    b = np.array([p.matrices for p in points], dtype=float)
    x = np.array([p.bytes for p in points], dtype=float)
    y = np.array([p.median_s for p in points], dtype=float)
    if not (b.min() <= matrices <= b.max() and x.min() <= bytes_ <= x.max()):
        return None, "outside the matrix counts and bytes the history measured (no extrapolation)"
    design = np.column_stack([np.ones_like(b), b, x])
    weights = 1.0 / y
    coefficients, *_ = np.linalg.lstsq(design * weights[:, None], y * weights, rcond=None)
    fitted = design @ coefficients
    predicted = float(np.array([1.0, matrices, bytes_]) @ coefficients)
    if predicted <= 0 or np.any(fitted <= 0):
        return None, "the cost fit is not positive across the history's shapes"
    residuals = np.log(y / fitted)
    freedom = max(1, len(y) - design.shape[1])
    model_sd = math.sqrt(float(np.sum(residuals**2)) / freedom * (1 + 1 / len(y)))
    sd = math.hypot(model_sd, max(floor_log_sd, MIN_LOG_SD))
    return interval(math.log(predicted), sd, float(freedom)), ""


def predict(
    config: BenchConfig,
    runs: Sequence[Any],
    record: TrackRecord,
    *,
    floor_log_sd: float = MIN_LOG_SD,
    margin: float = DEFAULT_MARGIN,
    whose: str = "",
) -> Prediction | NoPrediction:
    """The run's predicted answer from `runs` (this machine's runs of the same dtype, mode,
    replicas and cache; with `whose`, other machines' of the same kind, named so), or why
    there is none."""
    if config.kernels:
        return NoPrediction("a user's kernel is measured fresh, never predicted")
    if config.search:
        return NoPrediction("a search tries points the history may not have")
    points = points_of(runs, config, reported=bool(whose))
    if not points:
        return NoPrediction("no run of this kind (dtype, mode, cache) on this machine yet")
    target = (config.matrices, config.dim, config.columns)
    bytes_ = traffic_bytes(config.matrices, config.dim, config.columns, config.itemsize)
    variants = list(dict.fromkeys(p.variant for p in points))
    times: dict[str, tuple[float, float, float]] = {}
    exact_runs = [r for r in runs if (r.config.matrices, r.config.dim, r.config.columns) == target]
    kinds = set()
    for variant in variants:
        mine = [p for p in points if p.variant == variant]
        here = [p for p in mine if (p.matrices, p.dim, p.cols) == target]
        found = exact_time(here, floor_log_sd)
        if found is not None:
            kinds.add("exact")
        else:
            found, why = model_time(mine, config.matrices, bytes_, floor_log_sd)
            if found is None:
                return NoPrediction(f"{variant}: {why}")
            kinds.add("model")
        times[variant] = found
    missing = [s for s in config.strategies if not any(split_variant(v)[0] == s for v in times)]
    if missing:
        return NoPrediction(f"{missing[0]}: no run of it of this kind on this machine")
    winner = min(times, key=lambda name: times[name][1])
    _, mid_w, high_w = times[winner]
    tied = tuple(
        name
        for name, (low, mid, _) in times.items()
        if name != winner and (low <= high_w or mid <= mid_w * (1 + margin))
    )
    source = (
        f"exact: {len(exact_runs)} run(s) of this problem"
        if kinds == {"exact"}
        else f"cost fit over {len(runs)} run(s) of other shapes"
        if kinds == {"model"}
        else f"{len(exact_runs)} run(s) of this problem and a cost fit over {len(runs)}"
    )
    said = whose or "this machine's history"
    return Prediction(winner, tied, times, source, len(runs), record, said)


def outcome(
    prediction: Mapping[str, Any], winner: Mapping[str, Any] | None, results: Sequence[Any]
) -> dict[str, Any] | None:
    """How a prediction fared against the run's measured verdict (`winner`: the winner
    record): whether the measured winner was the predicted one or one predicted tied with it,
    and the predicted time's miss for the measured winner; None where nothing was predicted
    or nothing was measured."""
    if "winner" not in prediction or winner is None:
        return None
    measured = winner["variant"]
    predicted_set = {prediction["winner"], *prediction.get("tied_with", ())}
    median = next((r.median_s for r in results if r.variant == measured), None)
    times = prediction.get("times_s", {}).get(measured)
    error = abs(math.log(times[1] / median)) if times and median else None
    return {
        "confirmed": measured in predicted_set,
        "measured_winner": measured,
        "time_error": error,
        "within_interval": bool(times and median and times[0] <= median <= times[2]),
    }


def track_record(outcomes: Iterable[tuple[bool, float | None]]) -> TrackRecord:
    """The record of (confirmed, time error) outcomes, in one line's numbers."""
    found = list(outcomes)
    errors = sorted(e for _, e in found if e is not None)
    return TrackRecord(
        made=len(found),
        confirmed=sum(1 for ok, _ in found if ok),
        median_time_error=errors[len(errors) // 2] if errors else None,
    )


def prediction_words(prediction: Mapping[str, Any]) -> str:
    """A stored prediction in words (the record's `prediction`, made or not), with its
    outcome once the run measured."""
    if "winner" not in prediction:
        return f"no prediction: {prediction.get('none', 'nothing to predict from')}"
    times = {name: tuple(t) for name, t in prediction.get("times_s", {}).items()}
    made = Prediction(
        prediction["winner"],
        tuple(prediction.get("tied_with", ())),
        times,
        str(prediction.get("source", "")),
        int(prediction.get("runs_used", 0)),
        TrackRecord(
            **prediction.get("record", {"made": 0, "confirmed": 0, "median_time_error": None})
        ),
        str(prediction.get("whose", "this machine's history")),
    ).words()
    found = prediction.get("outcome")
    if not found:
        return made
    said = "confirmed" if found.get("confirmed") else "not confirmed"
    return f"{made}. Measured: {found.get('measured_winner')}, {said}"


def weakness(prediction: Prediction | NoPrediction) -> float:
    """How little a prediction says, for choosing the points that would most improve the
    history's: none made is the weakest (inf); else the widest interval of its variants, as
    log(high / low)."""
    if isinstance(prediction, NoPrediction):
        return math.inf
    return max(math.log(high / low) for low, _, high in prediction.times_s.values())


def weakest(
    configs: Sequence[BenchConfig], runs_of: Any, record: TrackRecord, count: int
) -> list[BenchConfig]:
    """The `count` configs whose prediction from the history (`runs_of(config)`: the runs a
    prediction of it reads) says least, weakest first: the points a sweep that fills gaps runs."""
    ranked = sorted(configs, key=lambda c: -weakness(predict(c, runs_of(c), record)))
    return ranked[:count]

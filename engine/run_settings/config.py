"""The benchmark configuration: one frozen spec of *what* is measured, validated on entry.

Every front end (CLI flags, dashboard widgets, URL parameters, Python callers, imported JSON)
funnels raw values through `BenchConfig.from_raw`, so a bad value gets the same message naming
the field and the allowed values wherever it came from. Each field is declared once, below,
with its default and its `Setting` (limits, help, flag, URL name): see `engine.run_settings.fields`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import Field, asdict, dataclass, field, fields
from typing import Any

from engine.catalogue.catalog import (
    installed_strategy_names,
    is_known,
    search_strategy_names,
    strategy_info,
    strategy_names,
)
from engine.run_settings import user_kernels  # also registers the `kernels` field's parser
from engine.run_settings.fields import ConfigError, Setting

DTYPES: tuple[str, ...] = ("float16", "bfloat16", "float32", "float64")
ITEMSIZE: dict[str, int] = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}
MODES: tuple[str, ...] = ("single", "replicated", "sharded")
CACHE_STATES: tuple[str, ...] = ("warm", "cold")
ORDERS: tuple[str, ...] = ("interleaved", "sequential")
SIZE_LIMITS = (1, 1_000_000)
SAMPLINGS = ("adaptive", "fixed")  # how each variant is sampled (engine.measure.racing)
DEFAULT_PRECISION = 0.03  # the adaptive stop: the median's 95% interval within ±3%
SEARCH_MIN_SHARE_S = 1.0  # the least sampling time any point of a search gets


def setting(default: Any, **spec: Any) -> Any:
    """A dataclass field whose metadata is its row of the field table."""
    return field(default=default, metadata={"setting": Setting(**spec)})


@dataclass(frozen=True)
class BenchConfig:
    """What to measure. Build with `from_raw` to validate untrusted values."""

    matrices: int = setting(
        3000,
        kind="int",
        limits=(1, 100_000_000),
        help="B: number of independent matrices",
        label="Matrices (B)",
    )
    dim: int = setting(
        100, kind="int", limits=SIZE_LIMITS, help="m: rows of each matrix", label="Rows (m = dim)"
    )
    cols: int | None = setting(
        None,
        kind="optional_int",
        limits=SIZE_LIMITS,
        help="n: columns of each matrix (empty: square, n = m)",
        label="Columns (n)",
    )
    dtype: str = setting(
        "float32", kind="choice", choices=DTYPES, help="element type", label="dtype"
    )
    # Before `strategies`: parsing a kernel registers it, so the strategies may name it.
    kernels: tuple[str, ...] = setting(
        (),
        kind="kernels",
        help="your own kernel, PATH.py:FUNCTION[@numpy|jax|torch], repeatable; measured "
        "beside the strategies (docs/user-kernels.md)",
        label="Your kernels",
        flag="--kernel",
        sweepable=False,
        browser=False,
    )
    strategies: tuple[str, ...] = setting(
        ("batched_matvec",),
        kind="strategies",
        choices=strategy_names,
        everything=installed_strategy_names,
        help="strategy names, repeatable or comma-separated, or 'all' (the installed ones)",
        label="Strategies",
        flag="--strategy",
        url="strategy",
        message_name="strategy",
        sweepable=False,
    )
    mode: str = setting(
        "single",
        kind="choice",
        choices=MODES,
        help="single device, replicated (every replica does everything) or sharded",
        label="Distribution mode",
    )
    replicas: int = setting(
        1,
        kind="int",
        limits=(1, 1024),
        help="replica devices (logical CPUs on a CPU-only machine)",
        label="Replicas",
        sweepable=False,  # one device layout per process, so one per sweep
    )
    xla: bool = setting(
        False,
        kind="bool",
        help="add a +xla variant of each TensorFlow graph strategy (compiled by XLA: "
        "tf.function(jit_compile=True))",
        label="Add +xla variants (TensorFlow compiled by XLA)",
    )
    cache: str = setting(
        "warm",
        kind="choice",
        choices=CACHE_STATES,
        help="warm re-uses one input set; cold rotates copies larger than the last-level cache",
        label="Cache",
    )
    warmup: int = setting(
        3, kind="int", limits=(0, 10_000), help="untimed warm-up calls", label="Warm-up calls"
    )
    repeats: int = setting(
        20,
        kind="int",
        limits=(1, 100_000),
        help="timed samples (adaptive sampling: the most any variant takes)",
        label="Samples (repeats)",
    )
    seed: int = setting(
        0, kind="int", limits=(0, 2**32 - 1), help="random seed of the inputs", label="Seed"
    )
    time_budget_s: float = setting(
        60.0,
        kind="seconds",
        limits=(0.1, 86_400.0),
        help="seconds per strategy variant before sampling stops early",
        label="Time budget per strategy (s)",
        flag="--time-budget",
        url="time_budget",
    )
    order: str = setting(
        "interleaved",
        kind="choice",
        choices=ORDERS,
        help="interleaved: every variant's timed blocks in a shuffled round-robin (seeded by "
        "seed), so a slow moment of the machine hits all alike; sequential: one after another",
        label="Sampling order",
    )
    sampling: str = setting(
        "adaptive",
        kind="choice",
        choices=SAMPLINGS,
        help="adaptive: each variant is sampled until its median is precise, and a variant "
        "confidently slower than the best is eliminated (racing); fixed: repeats samples each",
        label="Sampling",
    )
    precision: float = setting(
        DEFAULT_PRECISION,
        kind="seconds",
        unit="fraction",
        limits=(0.005, 0.5),
        help="adaptive sampling: stop a variant once its median's 95 percent interval is "
        "within this fraction of it (0.03: plus or minus 3 percent)",
        label="Target precision (± fraction of the median)",
    )
    threads: int | None = setting(
        None,
        kind="optional_int",
        limits=(1, 1024),
        help="TensorFlow intra-op and inter-op threads and NumPy's BLAS threads "
        "(empty: each framework's default)",
        label="Threads",
    )
    profile: bool = setting(
        False,
        kind="bool",
        help="after each variant's samples, profile a few more calls with its framework's "
        "profiler (TensorFlow, JAX, PyTorch: ops per call, time in ops vs the rest)",
        label="Profile (why it is fast or slow)",
        sweepable=False,
    )
    dataset_batch: int = setting(
        256,
        kind="int",
        limits=(1, 100_000_000),
        help="batch size of the dataset strategy (per replica)",
        label="Dataset batch",
    )
    search: bool = setting(
        False,
        kind="bool",
        help="search the implementation space: every installed framework's searchable "
        "points (expressions, compilers, batch splits), raced until the winner is decided",
        label="Search the implementation space",
        sweepable=False,
    )
    search_budget_s: float = setting(
        60.0,
        kind="seconds",
        limits=(5.0, 86_400.0),
        help="with search: the time the sampling of all points may take, shared between them",
        label="Search budget (s)",
        flag="--search-budget",
        url="search_budget",
        sweepable=False,
    )
    search_threads: bool = setting(
        False,
        kind="bool",
        help="with search on a CPU: also try each NumPy, JAX and PyTorch point on one thread, in "
        "a process held to one core (one more process per framework, and its compiles)",
        label="Search thread counts too",
        flag="--search-threads",
        url="search_threads",
        sweepable=False,
    )
    label: str = setting(
        "",
        kind="text",
        max_chars=200,
        help="free text stored with the run",
        label="Run label",
        sweepable=False,
    )

    def __post_init__(self) -> None:
        # Re-validate so a directly constructed config can never be invalid.
        for item in fields(self):
            parsed = setting_of(item).parse(item.name, getattr(self, item.name))
            object.__setattr__(self, item.name, parsed)
        kernel_names = tuple(user_kernels.kernel_name(spec) for spec in self.kernels)
        missing = tuple(name for name in kernel_names if name not in self.strategies)
        if missing:  # a kernel given is a kernel measured
            object.__setattr__(self, "strategies", self.strategies + missing)
        if self.search:
            self._widen_to_the_search_space()
        self._check_combination()

    def _widen_to_the_search_space(self) -> None:
        """A search measures every searchable point (and whatever else was asked), with
        +xla, each within its share of the search budget. Applying it again changes nothing,
        so a stored search config reads back as itself."""
        searched = [n for n in search_strategy_names() if self._may_run(n)]
        names = set(searched) | set(self.strategies)
        catalogue = strategy_names()
        ordered = tuple(name for name in catalogue if name in names) + tuple(
            name
            for name in self.strategies
            if name not in catalogue  # read from a result
        )
        share = max(SEARCH_MIN_SHARE_S, self.search_budget_s / max(1, 2 * len(ordered)))
        object.__setattr__(self, "strategies", ordered)
        object.__setattr__(self, "xla", True)
        object.__setattr__(self, "time_budget_s", min(self.time_budget_s, share))

    def _may_run(self, name: str) -> bool:
        """A reduced-precision point narrows float32 inputs: it runs when float32 was asked."""
        return not is_known(name) or not strategy_info(name).storage or self.dtype == "float32"

    def _check_combination(self) -> None:
        narrowing = [name for name in self.strategies if not self._may_run(name)]
        if narrowing:
            raise ConfigError(
                "strategy",
                f"{narrowing[0]} stores float32 inputs as {strategy_info(narrowing[0]).storage}: "
                "it runs with dtype float32",
            )
        if self.search and self.mode != "single":
            raise ConfigError("search", "searches run in mode single")
        if self.mode == "single" and self.replicas != 1:
            raise ConfigError("replicas", "must be 1 in mode single; use replicated or sharded")
        if self.mode != "single" and not any(
            strategy_info(s).distributable for s in self.strategies if is_known(s)
        ):
            raise ConfigError(
                "strategy",
                f"mode {self.mode} needs at least one distributable strategy (TensorFlow's "
                "graph strategies or dataset, or any NumPy, JAX, PyTorch or CuPy strategy)",
            )

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> BenchConfig:
        """Validate loosely typed values (CLI strings, URL parameters, JSON)."""
        known = {f.name for f in fields(cls)}
        values = dict(raw)
        if "strategy" in values and "strategies" not in values:
            values["strategies"] = values.pop("strategy")
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(unknown[0], f"is not a setting; allowed: {', '.join(sorted(known))}")
        return cls(**values)

    @property
    def columns(self) -> int:
        """n: columns of each matrix (= cols, or dim when square)."""
        return self.cols if self.cols is not None else self.dim

    @property
    def itemsize(self) -> int:
        """Bytes per element of `dtype`."""
        return ITEMSIZE[self.dtype]

    def to_dict(self) -> dict[str, Any]:
        """The results JSON `config` object: `cols` always resolved to n."""
        data = asdict(self)
        data["strategies"] = list(self.strategies)
        data["kernels"] = list(self.kernels)
        data["cols"] = self.columns
        return data


def setting_of(item: Field) -> Setting:
    return item.metadata["setting"]


def config_fields() -> Iterator[tuple[Field, Setting]]:
    """Every configuration field with its row of the field table, in declaration order."""
    for item in fields(BenchConfig):
        yield item, setting_of(item)


def browser_fields() -> Iterator[tuple[Field, Setting]]:
    """The fields a browser may set (widgets, link parameters): never the ones naming files
    on the server's machine (`kernels`)."""
    return ((item, setting) for item, setting in config_fields() if setting.browser)


def field_setting(name: str) -> Setting:
    return next(s for item, s in config_fields() if item.name == name)


def default_of(name: str) -> Any:
    return next(item.default for item, _ in config_fields() if item.name == name)


def flag_of(item: Field) -> str:
    return setting_of(item).flag or "--" + item.name.replace("_", "-")


def url_name_of(item: Field) -> str:
    return setting_of(item).url or item.name

"""The implementation space: stable point names with their axes and code, a search config that
covers every installed point, and a search summary that finds the known best and its ties."""

from __future__ import annotations

import dataclasses

from engine.catalogue.catalog import (
    code_to_copy,
    installed_strategy_names,
    sampling_process,
    search_strategy_names,
    strategies,
    strategy_info,
)
from engine.execution.plan.variants import plan_variants
from engine.results.run_result import RunResult
from engine.results.search import point_axes, search_lines, search_summary
from engine.run_settings.config import BenchConfig
from tests.factories import make_run

# The points' names are a contract: results and links name them.
POINTS = {
    "vectorized_map": ("tensorflow", "vectorized_map", "graph"),
    "batched_matvec": ("tensorflow", "matvec", "graph"),
    "batched_matmul": ("tensorflow", "matmul", "graph"),
    "einsum": ("tensorflow", "einsum", "graph"),
    "broadcast_reduce": ("tensorflow", "broadcast multiply and reduce", "graph"),
    "numpy": ("numpy", "matmul", "none"),
    "numpy_einsum": ("numpy", "einsum", "none"),
    "numpy_broadcast": ("numpy", "broadcast multiply and reduce", "none"),
    "numpy_split2": ("numpy", "matmul", "none"),
    "jax_vmap": ("jax", "vmap of a dot", "jit"),
    "jax_einsum": ("jax", "einsum", "jit"),
    "jax_broadcast": ("jax", "broadcast multiply and reduce", "jit"),
    "torch_bmm": ("torch", "matmul", "eager"),
    "torch_einsum": ("torch", "einsum", "eager"),
    "torch_broadcast": ("torch", "broadcast multiply and reduce", "eager"),
    "torch_bmm_compiled": ("torch", "matmul", "torch.compile"),
    "torch_broadcast_compiled": ("torch", "broadcast multiply and reduce", "torch.compile"),
    "broadcast_reduce_bf16": ("tensorflow", "broadcast multiply and reduce", "graph"),
    "jax_einsum_bf16": ("jax", "einsum", "jit"),
    "torch_broadcast_bf16_compiled": ("torch", "broadcast multiply and reduce", "torch.compile"),
    "torch_xla_bmm": ("torch_xla", "matmul", "xla (lazy tensors)"),
    "torch_xla_einsum": ("torch_xla", "einsum", "xla (lazy tensors)"),
    "cupy_matmul": ("cupy", "matmul", "none"),
    "cupy_einsum": ("cupy", "einsum", "none"),
}
REDUCED_PRECISION = {"broadcast_reduce_bf16", "jax_einsum_bf16", "torch_broadcast_bf16_compiled"}


def test_every_point_has_its_stable_name_axes_and_code_to_copy():
    searchable = {s.name for s in strategies() if s.searchable}
    assert searchable == set(POINTS)
    for name, (framework, expression, compiler) in POINTS.items():
        info = strategy_info(name)
        assert (info.framework, info.expression, info.compiler) == (framework, expression, compiler)
        assert code_to_copy(name), name
    assert strategy_info("numpy_split2").chunks == 2
    assert code_to_copy("torch_bmm_compiled").startswith("@torch.compile\ndef torch_bmm(")
    reduced = {name for name in POINTS if strategy_info(name).storage == "bfloat16"}
    assert reduced == REDUCED_PRECISION


def test_a_search_on_a_cpu_with_cores_tries_each_point_on_one_thread_when_asked():
    assert not any(o == "1thread" for _, o in plan_variants(BenchConfig(search=True), "CPU"))
    search = BenchConfig(search=True, search_threads=True, threads=2)
    planned = plan_variants(search, "CPU")
    one_thread = {name for name, option in planned if option == "1thread"}
    expected = {
        name
        for name in search.strategies
        if strategy_info(name).framework != "tensorflow" and strategy_info(name).chunks == 1
    }
    assert one_thread == expected
    assert "numpy_split2" not in one_thread  # it splits the batch on threads by itself
    assert all(strategy_info(n).framework != "tensorflow" for n in one_thread)
    assert not any(o == "1thread" for _, o in plan_variants(search, "GPU"))
    single_core = dataclasses.replace(search, threads=1)
    assert not any(o == "1thread" for _, o in plan_variants(single_core, "CPU"))
    no_search = BenchConfig(search_threads=True, threads=2)
    assert not any(o == "1thread" for _, o in plan_variants(no_search, "CPU"))


def test_a_one_thread_point_has_its_process_axes_and_code():
    assert sampling_process("numpy_einsum+1thread") == "numpy@1thread"
    assert sampling_process("torch_bmm+1thread") == "torch@1thread"
    assert sampling_process("torch_bmm") == "torch" and sampling_process("numpy_einsum") == ""
    assert sampling_process("einsum+xla") == "" and sampling_process("not_registered") == ""
    assert point_axes("torch_bmm+1thread")["threads"] == 1
    assert point_axes("torch_bmm")["threads"] is None
    assert code_to_copy("torch_bmm+1thread").startswith("torch.set_num_threads(1)")
    assert code_to_copy("torch_bmm+1thread").endswith(code_to_copy("torch_bmm"))
    assert "threadpool_limits(1)" in code_to_copy("numpy_einsum+1thread")
    assert "sched_setaffinity" in code_to_copy("jax_einsum+1thread")


def test_points_only_a_search_tries_are_not_in_all():
    everything = set(installed_strategy_names())
    assert "broadcast_reduce" not in everything and "numpy_split2" not in everything
    assert "python_loop" in everything or not strategy_info("python_loop").installed


def test_a_search_config_covers_every_installed_point_with_xla_within_its_budget():
    config = BenchConfig(search=True, search_budget_s=60, strategies=("python_loop",))
    assert set(search_strategy_names()) <= set(config.strategies)
    assert "python_loop" in config.strategies  # what was asked stays
    assert config.xla is True
    assert config.time_budget_s <= 60 / len(config.strategies)
    again = BenchConfig.from_raw({k: v for k, v in config.to_dict().items() if k != "cols"})
    assert again == config  # applying the search again changes nothing


def search_run(times: dict[str, float]) -> RunResult:
    run = make_run({name: [t * (1 + 0.001 * i) for i in range(8)] for name, t in times.items()})
    return dataclasses.replace(run, config=dataclasses.replace(run.config, search=True))


def test_the_summary_finds_the_known_best_its_ties_and_each_frameworks_best():
    run = search_run(
        {"numpy_split2": 0.0026, "numpy": 0.0042, "einsum": 0.0027, "broadcast_reduce": 0.012}
    )
    summary = search_summary(run)
    assert summary["best"] == "numpy_split2"
    assert summary["tied_with"] == ["einsum"]  # 1.04x: within the noise
    assert summary["best_per_framework"] == {"numpy": "numpy_split2", "tensorflow": "einsum"}
    points = {p["point"]: p for p in summary["points"]}
    assert points["numpy_split2"]["ratio_to_best"] == 1.0
    assert 4.5 < points["broadcast_reduce"]["ratio_to_best"] < 4.7
    assert points["numpy_split2"]["chunks"] == 2 and points["einsum"]["compiler"] == "graph"
    assert points["numpy"]["code"].startswith("def numpy(")
    assert any(line.startswith("  best: numpy_split2") for line in search_lines(summary))
    assert run.to_dict()["search"]["best"] == "numpy_split2"


def test_the_search_table_lists_every_point_best_first():
    from dashboard.tables.search import search_table

    run = search_run({"numpy": 0.0042, "numpy_split2": 0.0026, "broadcast_reduce": 0.012})
    table = search_table(search_summary(run))
    assert list(table["point"]) == ["numpy_split2", "numpy", "broadcast_reduce"]
    assert next(iter(table["× best"])) == "1.00" and set(table["chunks"]) == {1, 2}

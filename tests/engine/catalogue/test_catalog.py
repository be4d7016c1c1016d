"""The catalogue: strategies describe themselves, and one registration reaches everything."""

import json

import pytest
from streamlit.testing.v1 import AppTest

import engine.catalogue.strategy_info as info_module
from engine import BenchConfig, run
from engine.catalogue.catalog import (
    StrategyInfo,
    baseline_strategies,
    code_to_copy,
    framework_label,
    interactive_strategies,
    kernel_source,
    missing_frameworks,
    register,
    strategies,
    strategy_info,
    strategy_names,
    unregister,
)
from engine.cli.main import main
from engine.execution.plan.variants import plan_variants
from tests.conftest import ROOT

PLUGIN = StrategyInfo(
    "broadcast_sum",
    "graph",
    "reduce_sum(A * x[:, None, :], axis=-1): a broadcast multiply and a row sum.",
    "tests.engine.catalogue.plugin_kernels:broadcast_sum",
    framework="tensorflow",
    launches="one",
    distribution="graph",
)


@pytest.fixture
def plugin():
    register(PLUGIN)
    yield PLUGIN
    unregister(PLUGIN.name)


def test_capabilities_are_read_from_the_entries():
    assert strategy_info("numpy").runs_on_host and not strategy_info("einsum").runs_on_host
    assert strategy_info("einsum+xla").supports_xla
    assert strategy_info("dataset").distribution == "dataset"
    assert strategy_info("python_loop").distribution is None
    assert set(baseline_strategies()) == {"python_loop", "numpy"}
    assert "python_loop" not in interactive_strategies()
    assert {s.framework for s in strategies()} == {
        "tensorflow",
        "numpy",
        "jax",
        "torch",
        "torch_xla",
        "cupy",
    }
    assert not strategy_info("jax_vmap").supports_xla  # +xla is TensorFlow's jit_compile
    assert strategy_info("jax_vmap").in_own_process and not strategy_info("numpy").in_own_process
    assert not set(interactive_strategies()) & {"jax_vmap", "torch_bmm"}  # each starts a process


def test_all_means_the_installed_strategies(monkeypatch):
    real = info_module.module_file
    monkeypatch.setattr(info_module, "module_file", lambda m: None if m == "jax" else real(m))
    chosen = BenchConfig.from_raw({"strategies": "all"}).strategies
    assert "jax_vmap" not in chosen and "einsum" in chosen
    assert "jax" in missing_frameworks()
    # Named explicitly, a missing peer is accepted: the run says `unsupported` with the hint.
    assert BenchConfig.from_raw({"strategies": "jax_vmap"}).strategies == ("jax_vmap",)


def test_the_code_to_copy_carries_the_wrapper_it_was_timed_with():
    assert code_to_copy("einsum").startswith("@tf.function\ndef einsum(")
    assert code_to_copy("einsum+xla").startswith("@tf.function(jit_compile=True)\n")
    assert code_to_copy("jax_vmap").startswith("@jax.jit\ndef jax_vmap(")
    assert code_to_copy("torch_bmm").startswith("def torch_bmm(")
    assert code_to_copy("numpy").startswith("def numpy(")
    assert framework_label("torch_bmm") == "PyTorch" and framework_label("nope") == "unknown"


def test_plan_reads_the_strategies_descriptions():
    config = BenchConfig(
        strategies=("dataset", "einsum", "numpy"), xla=True, mode="sharded", replicas=2
    )
    assert plan_variants(config) == [
        ("einsum", ""),
        ("einsum", "xla"),
        ("dataset", ""),
        ("dataset", "from_function"),
        ("numpy", ""),
    ]


def test_a_name_with_a_plus_or_comma_is_refused():
    with pytest.raises(ValueError, match="may not"):
        register(StrategyInfo("a+b", "graph", "", "x:y", framework="tensorflow"))


def test_a_strategy_must_name_its_framework():
    """It defaulted to TensorFlow: a new framework's strategy without `framework=` was filed
    under TensorFlow in silence."""
    with pytest.raises(TypeError, match="framework"):
        StrategyInfo("gluon", "eager", "x", "m:f")  # type: ignore[call-arg]


def test_a_registered_strategy_appears_in_the_cli_list(plugin, capsys):
    assert main(["strategies", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["broadcast_sum"]["framework"] == "tensorflow"
    assert rows["broadcast_sum"]["distributable"] is True
    assert "broadcast_sum" in strategy_names()
    assert "def broadcast_sum" in kernel_source("broadcast_sum+xla")


def test_a_registered_strategy_runs_checked_with_its_xla_variant(plugin):
    config = BenchConfig(
        matrices=12, dim=5, cols=3, strategies=("broadcast_sum",), xla=True, repeats=2, warmup=0
    )
    result = run(config)
    assert [r.variant for r in result.results] == ["broadcast_sum", "broadcast_sum+xla"]
    assert all(r.status == "ok" and r.correct for r in result.results), result.results


def test_a_registered_strategy_is_a_dashboard_choice(plugin, monkeypatch, tmp_path):
    monkeypatch.setenv("MATVEC_QUEUE_DIR", str(tmp_path / "queue"))
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=60)
    at.query_params["strategy"] = "broadcast_sum"
    at.run()
    assert not at.exception
    (chooser,) = [w for w in at.multiselect if w.label == "Strategies"]
    assert "broadcast_sum · TensorFlow" in chooser.options  # grouped by framework
    assert "jax_vmap · JAX" in chooser.options and "torch_bmm · PyTorch" in chooser.options
    assert chooser.value == ["broadcast_sum"]


def test_strategy_all_says_which_frameworks_it_left_out_and_what_to_install():
    from engine.catalogue.catalog import (
        framework_installed,
        installed_strategy_names,
        not_installed_note,
    )

    if framework_installed("cupy"):
        pytest.skip("CuPy is installed here: nothing of the catalogue is left out by it")
    note = not_installed_note(installed_strategy_names())
    assert note is not None and note.startswith("not installed here, so not in this run: ")
    assert "CuPy (2 strategies): " in note and "cupy" in note.split("CuPy (2 strategies): ")[1]
    assert not_installed_note(("numpy",)) is None  # a chosen list left nothing out

"""A framework is one folder: the registry finds every `engine/backends/<name>/declaration.py`,
and a declaration imports no framework (every process, the dashboard's included, reads it)."""

from __future__ import annotations

import ast
import sys
import textwrap

import pytest

from engine.backends import declare_folders
from engine.catalogue import strategy_info as registry
from engine.catalogue.catalog import code_to_copy, framework_info, frameworks, strategy_info
from tests.conftest import ROOT

BACKENDS = ROOT / "engine" / "backends"
FRAMEWORK_MODULES = {"tensorflow", "keras", "jax", "jaxlib", "torch", "torch_xla", "cupy"}


def test_every_folder_with_a_runtime_declares_itself():
    folders = {p.parent.name for p in BACKENDS.glob("*/runtime.py")} | {"tensorflow"}
    assert {f.name for f in frameworks()} == folders


@pytest.mark.parametrize(
    "path", sorted(BACKENDS.glob("*/declaration.py")), ids=lambda p: p.parent.name
)
def test_a_declaration_imports_no_framework(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    assert not {name.split(".")[0] for name in imported} & FRAMEWORK_MODULES
    # The engine's own modules only; that none of them loads a framework either is held by
    # importing the catalogue (every declaration) in a fresh interpreter, in test_layering.py.
    assert all(name == "__future__" or name.startswith("engine.") for name in imported), imported


def test_each_strategy_belongs_to_the_folder_that_declares_it():
    for framework in frameworks():
        for info in (*framework.strategies, *framework.search_points):
            assert info.framework == framework.name, info.name
            assert info.kernel.startswith(f"engine.backends.{framework.name}.kernels:"), info.name


def test_the_declared_policies_read_as_before():
    assert framework_info("tensorflow").process == "run"
    assert framework_info("numpy").process == "host"
    assert {framework_info(n).process for n in ("jax", "torch", "cupy")} == {"own"}
    assert strategy_info("batched_matvec").supports_xla
    assert not strategy_info("jax_vmap").supports_xla
    assert strategy_info("torch_bmm").in_own_process and not strategy_info("numpy").in_own_process
    assert code_to_copy("batched_matvec+xla").startswith("@tf.function(jit_compile=True)\n")
    assert code_to_copy("jax_vmap").startswith("@jax.jit\n")
    assert code_to_copy("torch_bmm_compiled").startswith("@torch.compile\n")
    assert code_to_copy("numpy+1thread").startswith("from threadpoolctl import")


def test_a_new_folder_is_a_new_framework(tmp_path, monkeypatch):
    package = tmp_path / "more_backends" / "abacus"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "declaration.py").write_text(
        textwrap.dedent(
            """
            from engine.catalogue.strategy_info import FrameworkInfo, StrategyInfo

            FRAMEWORK = FrameworkInfo(
                name="abacus",
                label="Abacus",
                module="abacus_not_installed",
                install_hint="`pip install abacus`",
                rank=7,
                strategies=(
                    StrategyInfo("beads", "host", "By hand.", "abacus:beads", framework="abacus"),
                ),
                user_kind="host",
            )
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_DECLARED", {})
    try:
        declare_folders("more_backends", [str(package.parent)])
        (found,) = registry.frameworks()
        assert found.label == "Abacus" and not found.installed
        assert found.package == "more_backends.abacus"
        assert not registry.framework_installed("abacus")
        assert found.strategies[0].in_own_process  # the default policy: a process of its own
    finally:
        sys.modules.pop("more_backends", None)
    monkeypatch.undo()
    assert "tensorflow" in {f.name for f in registry.frameworks()}


def test_a_declaration_named_for_another_folder_is_refused(tmp_path, monkeypatch):
    package = tmp_path / "odd_backends" / "here"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "declaration.py").write_text(
        "from engine.catalogue.strategy_info import FrameworkInfo\n"
        "FRAMEWORK = FrameworkInfo(name='there', label='T', module='t', install_hint='', rank=1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_DECLARED", {})
    with pytest.raises(ValueError, match="declares 'there', not its folder's name"):
        declare_folders("odd_backends", [str(package.parent)])


def test_a_strategy_of_a_framework_no_folder_declares_is_refused_at_the_door():
    from engine.catalogue.catalog import StrategyInfo, register

    with pytest.raises(ValueError, match="framework 'mxnet' of 'gluon' has no folder"):
        register(StrategyInfo("gluon", "eager", "x", "m:f", framework="mxnet"))

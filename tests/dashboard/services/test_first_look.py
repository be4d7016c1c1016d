"""Which variants a first look measures while a warm worker starts TensorFlow."""

from __future__ import annotations

from dashboard.services.first_look import first_look_config
from engine.run_settings.config import BenchConfig


def test_it_takes_the_runs_numpy_variants_with_nothing_stored_or_profiled():
    config = BenchConfig(
        matrices=300, dim=20, strategies=("einsum", "numpy", "while_loop"), profile=True
    )
    look = first_look_config(config)
    assert look is not None
    assert look.strategies == ("numpy",) and look.profile is False
    assert (look.matrices, look.dim, look.dtype, look.seed) == (300, 20, "float32", config.seed)


def test_there_is_none_without_a_numpy_variant_or_beside_nothing_else():
    assert first_look_config(BenchConfig(strategies=("einsum", "while_loop"))) is None
    assert first_look_config(BenchConfig(strategies=("numpy",))) is None  # the run is the look


def test_there_is_none_for_a_run_over_several_replicas():
    config = BenchConfig(strategies=("einsum", "numpy"), mode="replicated", replicas=2)
    assert first_look_config(config) is None


def test_a_users_kernel_is_never_part_of_it(tmp_path):
    source = tmp_path / "mine.py"
    body = "    return np.matmul(a, x[..., None])[..., 0]\n"
    source.write_text("import numpy as np\n\ndef mine(a, x):\n" + body)
    config = BenchConfig.from_raw(
        {"kernels": [f"{source}:mine@numpy"], "strategies": ["einsum", "numpy", "mine"]}
    )
    look = first_look_config(config)
    assert look is not None and look.strategies == ("numpy",) and look.kernels == ()

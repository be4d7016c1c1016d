import pytest

from engine.measure.memory import (
    PROBE_BYTES_VARIABLE,
    PreflightError,
    bandwidth_buffer_bytes,
    cold_copies,
    estimate,
    format_bytes,
    input_set_bytes,
    preflight,
    probe_size_warning,
)
from engine.run_settings.config import BenchConfig

MIB = 2**20


def test_input_set_bytes_counts_a_and_x():
    config = BenchConfig(matrices=10, dim=3, cols=5, dtype="float64")
    assert input_set_bytes(config) == 8 * 10 * (3 * 5 + 5)


def test_cold_cache_rotates_enough_copies_to_exceed_the_llc():
    warm = BenchConfig(matrices=3000, dim=100)
    cold = BenchConfig(matrices=3000, dim=100, cache="cold")
    assert cold_copies(warm, 32 * MIB) == 1
    copies = cold_copies(cold, 512 * MIB)
    assert copies * input_set_bytes(cold) >= 4 * 512 * MIB
    assert cold_copies(cold, 1 * MIB) == 2  # never fewer than two


def test_a_check_set_of_its_own_is_counted_only_where_a_users_kernel_is_in_the_run():
    from tests.engine.execution.test_user_kernels import FIXTURES

    catalogue = BenchConfig(matrices=1000, dim=50, strategies=("numpy",))
    spec = f"{FIXTURES / 'numpy_kernels.py'}:mine"
    with_kernel = BenchConfig.from_raw(
        {"matrices": 1000, "dim": 50, "strategies": "numpy", "kernels": [spec]}
    )
    assert "check inputs" not in estimate(catalogue, 32 * MIB).parts  # the timed set's
    assert estimate(with_kernel, 32 * MIB).parts["check inputs"] == 2 * input_set_bytes(with_kernel)


def test_estimate_grows_with_cold_copies_and_replicas():
    base = BenchConfig(matrices=1000, dim=50)
    cold = BenchConfig(matrices=1000, dim=50, cache="cold")
    replicated = BenchConfig(
        matrices=1000, dim=50, mode="replicated", replicas=4, strategies=("einsum",)
    )
    llc = 32 * MIB
    assert estimate(cold, llc).total_bytes > estimate(base, llc).total_bytes
    assert estimate(replicated, llc).total_bytes > estimate(base, llc).total_bytes


def test_preflight_refuses_with_estimate_and_limit(monkeypatch):
    monkeypatch.setattr(
        "engine.measure.memory.available_bytes", lambda kind: (100 * MIB, "test limit")
    )
    config = BenchConfig(matrices=100_000, dim=100)
    with pytest.raises(PreflightError) as caught:
        preflight(config, "CPU", 32 * MIB)
    message = str(caught.value)
    assert message.startswith("memory:")
    assert "100.0 MiB" in message and "test limit" in message and "GiB" in message


def test_preflight_passes_small_runs_and_skips_unknown_devices(monkeypatch):
    assert preflight(BenchConfig(matrices=10, dim=4), "CPU", 32 * MIB).total_bytes > 0
    monkeypatch.setattr("engine.measure.memory.available_bytes", lambda kind: (None, "unknown"))
    assert preflight(BenchConfig(matrices=10**8, dim=1000), "TPU", 32 * MIB).total_bytes > 0


def test_bandwidth_buffer_is_several_times_the_llc(monkeypatch):
    monkeypatch.delenv(PROBE_BYTES_VARIABLE, raising=False)
    assert bandwidth_buffer_bytes(32 * MIB) >= 4 * 32 * MIB
    assert bandwidth_buffer_bytes(1 * MIB) == 256 * MIB
    assert probe_size_warning(32 * MIB) is None


@pytest.mark.parametrize("raw", ["", "abc", "1024", str(4 * 2**30)])
def test_a_probe_size_out_of_range_is_refused_naming_it(monkeypatch, raw):
    """Once silently replaced by the default; now a bad value is named, like a bad flag."""
    from engine.run_settings.fields import ConfigError

    monkeypatch.setenv(PROBE_BYTES_VARIABLE, raw)
    with pytest.raises(ConfigError, match=PROBE_BYTES_VARIABLE):
        bandwidth_buffer_bytes(32 * MIB)


def test_an_unset_probe_size_is_the_default(monkeypatch):
    monkeypatch.delenv(PROBE_BYTES_VARIABLE, raising=False)
    assert bandwidth_buffer_bytes(32 * MIB) == 256 * MIB


def test_a_configured_probe_size_is_used_and_said_when_it_fits_in_cache(monkeypatch):
    monkeypatch.setenv(PROBE_BYTES_VARIABLE, str(16 * MIB))
    assert bandwidth_buffer_bytes(32 * MIB) == 16 * MIB
    warning = probe_size_warning(32 * MIB)
    assert warning is not None and "16 MiB buffer" in warning and "cache's bandwidth" in warning
    monkeypatch.setenv(PROBE_BYTES_VARIABLE, str(512 * MIB))
    assert probe_size_warning(32 * MIB) is None  # large enough to read memory


def test_format_bytes():
    assert format_bytes(512) == "512 B"
    assert format_bytes(3 * 2**30) == "3.0 GiB"

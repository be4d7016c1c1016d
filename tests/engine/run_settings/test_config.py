import math

import pytest

from engine.catalogue.catalog import installed_strategy_names, strategy_names
from engine.run_settings.config import BenchConfig, ConfigError


def test_defaults_are_the_documented_problem():
    config = BenchConfig()
    assert (config.matrices, config.dim, config.columns) == (3000, 100, 100)
    assert config.dtype == "float32" and config.mode == "single"


def test_cols_defaults_to_dim_and_rectangular_is_kept():
    assert BenchConfig(dim=7).columns == 7
    config = BenchConfig.from_raw({"dim": "7", "cols": "3"})
    assert (config.dim, config.columns) == (7, 3)


def test_strings_from_cli_or_url_are_parsed():
    config = BenchConfig.from_raw(
        {"matrices": "12", "repeats": "5", "xla": "true", "strategy": "einsum,numpy"}
    )
    assert config.matrices == 12 and config.repeats == 5 and config.xla is True
    assert config.strategies == ("einsum", "numpy")


def test_all_expands_to_every_strategy_in_catalogue_order():
    everything = BenchConfig.from_raw({"strategy": ["all"]}).strategies
    assert everything == installed_strategy_names()  # the search's own points are not in it
    assert list(everything) == [n for n in strategy_names() if n in everything]
    assert BenchConfig.from_raw({"strategy": ["numpy", "python_loop"]}).strategies == (
        "python_loop",
        "numpy",
    )


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("matrices", 0, "from 1 to"),
        ("matrices", -5, "from 1 to"),
        ("matrices", 2.5, "got 2.5"),
        ("matrices", math.nan, "got nan"),
        ("matrices", "12abc", "got '12abc'"),
        ("matrices", 10**12, "100,000,000"),
        ("matrices", True, "got True"),
        ("matrices", [3], "got list"),
        ("dim", 0, "from 1 to"),
        ("cols", -1, "from 1 to"),
        ("warmup", -1, "from 0 to"),
        ("repeats", 0, "from 1 to"),
        ("seed", "x", "integer"),
        ("seed", -1, "from 0 to"),
        ("dtype", "int8", "float16, bfloat16, float32, float64"),
        ("dtype", 32, "float16, bfloat16, float32, float64"),
        ("cache", "hot", "warm, cold"),
        ("mode", "parallel", "single, replicated, sharded"),
        ("xla", "maybe", "true or false"),
        ("time_budget_s", 0, "seconds"),
        ("time_budget_s", math.inf, "seconds"),
        ("time_budget_s", "soon", "seconds"),
        ("strategies", ["fast_one"], "unknown 'fast_one'"),
        ("strategies", [], "at least one"),
        ("strategies", 7, "list of names"),
        ("label", 5, "text"),
        ("label", "x" * 500, "at most"),
    ],
)
def test_each_bad_value_names_its_field_and_what_is_allowed(field, value, fragment):
    with pytest.raises(ConfigError) as caught:
        BenchConfig.from_raw({field: value})
    message = str(caught.value)
    expected_field = "strategy" if field == "strategies" else field
    assert message.startswith(f"{expected_field}:")
    assert fragment in message
    assert "\n" not in message


def test_unknown_setting_is_refused():
    with pytest.raises(ConfigError, match="bogus: is not a setting"):
        BenchConfig.from_raw({"bogus": 1})


def test_direct_construction_is_validated_too():
    with pytest.raises(ConfigError, match="dim"):
        BenchConfig(dim=0)


def test_replicas_need_a_distributed_mode():
    with pytest.raises(ConfigError, match="replicas: must be 1 in mode single"):
        BenchConfig.from_raw({"replicas": 2})
    with pytest.raises(ConfigError, match="distributable"):
        BenchConfig.from_raw({"mode": "sharded", "replicas": 2, "strategy": ["python_loop"]})
    split = BenchConfig.from_raw({"mode": "sharded", "replicas": 2, "strategy": ["numpy"]})
    assert split.replicas == 2  # every framework but TensorFlow splits over host threads


def test_to_dict_has_every_field_and_explicit_cols():
    data = BenchConfig(dim=4).to_dict()
    assert data["cols"] == 4 and data["strategies"] == ["batched_matvec"]
    assert BenchConfig.from_raw(data) == BenchConfig(dim=4, cols=4)


def test_label_whitespace_is_collapsed_but_text_kept():
    assert BenchConfig(label="  <b>laptop</b>\n run ").label == "<b>laptop</b> run"

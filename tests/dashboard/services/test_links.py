from dashboard.services.links import (
    config_from_settings,
    defaults,
    params_from_settings,
    settings_from_params,
)
from engine.cli.flags import cli_args, config_from_args
from engine.cli.main import build_parser
from engine.run_settings.config import BenchConfig

DEFAULTS = defaults()


def test_defaults_give_an_empty_link_and_back():
    assert params_from_settings(DEFAULTS) == {}
    assert settings_from_params({}).settings == DEFAULTS


def test_link_round_trip_keeps_every_setting():
    settings = {
        **DEFAULTS,
        "matrices": 500,
        "dim": 32,
        "cols": 8,
        "dtype": "bfloat16",
        "strategies": ["einsum", "numpy"],
        "mode": "sharded",
        "replicas": 3,
        "xla": True,
        "cache": "cold",
        "warmup": 0,
        "repeats": 7,
        "seed": 9,
        "time_budget_s": 12.5,
        "label": "laptop & <tpu>",
    }
    params = params_from_settings(settings)
    assert params["strategy"] == "einsum,numpy" and params["time_budget"] == "12.5"
    parsed = settings_from_params(params)
    assert parsed.notices == []
    assert parsed.settings == settings


def test_bad_link_values_are_ignored_with_a_notice_each():
    parsed = settings_from_params(
        {"matrices": "-4", "dtype": "int8", "repeats": "5", "evil": "1", "strategy": "x,einsum"}
    )
    assert parsed.settings["matrices"] == DEFAULTS["matrices"]
    assert parsed.settings["dtype"] == "float32"
    assert parsed.settings["repeats"] == 5
    assert parsed.settings["strategies"] == DEFAULTS["strategies"]
    text = " ".join(parsed.notices)
    assert len(parsed.notices) == 4
    assert "matrices='-4'" in text and "dtype='int8'" in text and "'evil'" in text
    assert "unknown 'x'" in text


def test_replicas_in_single_mode_are_reset_with_a_notice():
    parsed = settings_from_params({"replicas": "4"})
    assert parsed.settings["replicas"] == 1
    assert parsed.notices and "replicas=4" in parsed.notices[0]
    assert settings_from_params({"replicas": "4", "mode": "sharded"}).settings["replicas"] == 4


def test_repeated_parameters_count_like_a_comma_list():
    parsed = settings_from_params({"strategy": ["einsum", "numpy"]})
    assert parsed.settings["strategies"] == ["einsum", "numpy"] and parsed.notices == []


def test_all_with_a_bogus_name_is_a_notice_not_silence():
    parsed = settings_from_params({"strategy": "all,bogus"})
    assert parsed.settings["strategies"] == DEFAULTS["strategies"]
    assert "unknown 'bogus'" in parsed.notices[0]


def test_cli_args_reproduce_the_config_exactly():
    settings = {**DEFAULTS, "matrices": 11, "cols": 3, "xla": True, "label": "-starts with dash"}
    config = config_from_settings(settings)
    args = build_parser().parse_args(["run", *cli_args(config)])
    assert config_from_args(args) == config
    assert isinstance(config, BenchConfig) and config.columns == 3


def test_every_field_of_the_config_has_a_url_name_and_round_trips():
    from engine.run_settings.config import config_fields

    names = {item.name for item, setting in config_fields() if setting.browser}
    assert set(DEFAULTS) == names
    assert {item.name for item, setting in config_fields() if not setting.browser} == {"kernels"}
    settings = {**DEFAULTS, "dataset_batch": 17}
    assert settings_from_params(params_from_settings(settings)).settings == settings


def test_many_unknown_parameters_are_one_notice_naming_a_few_and_counting_the_rest():
    params = {f"junk{i}": "1" for i in range(300)}
    params["matrices"] = "500"
    parsed = settings_from_params(params)
    assert parsed.settings["matrices"] == 500
    (notice,) = parsed.notices
    assert notice.startswith("Ignored unknown link parameters 'junk0', 'junk1'")
    assert "and 295 more" in notice


def test_one_unknown_parameter_is_named_alone():
    (notice,) = settings_from_params({"nonsense": "x"}).notices
    assert notice == "Ignored unknown link parameter 'nonsense'."


def test_the_longest_link_the_app_writes_stays_short():
    """Every strategy and the longest label: far below what the server takes (docs say 2 KB)."""
    from urllib.parse import urlencode

    from engine.catalogue.catalog import strategy_names

    settings = defaults()
    settings["strategies"] = list(strategy_names())
    settings["label"] = "é" * 200
    assert len(urlencode(params_from_settings(settings))) < 2048


def test_a_page_job_parameter_is_not_a_setting():
    parsed = settings_from_params({"job": ["abc"], "sweep_job": ["def"], "matrices": ["12"]})
    assert parsed.notices == [] and parsed.settings["matrices"] == 12

"""The field table: each setting declared once, everything else generated from it."""

import argparse
import json
from dataclasses import fields

import pytest

from engine.cli.flags import add_config_flags, cli_args, config_from_args, sweep_cli_args
from engine.run_settings.config import BenchConfig, config_fields, flag_of, url_name_of
from engine.run_settings.fields import ConfigError, shown
from engine.run_settings.sweep import SweepSpec


def test_every_config_field_has_a_setting_with_help_and_a_label():
    assert [item.name for item, _ in config_fields()] == [f.name for f in fields(BenchConfig)]
    for item, setting in config_fields():
        assert setting.help and setting.label, item.name
        if setting.kind in ("int", "optional_int", "seconds"):
            assert setting.limits is not None, item.name
        assert flag_of(item).startswith("--") and url_name_of(item)


def test_flags_are_generated_with_the_tables_defaults_in_their_help():
    parser = argparse.ArgumentParser()
    add_config_flags(parser)
    helps = {a.dest: a.help for a in parser._actions}
    assert "(default 3000)" in helps["matrices"]
    assert "(default 60)" in helps["time_budget_s"]
    assert "warm, cold" in helps["cache"]
    defaults = parser.parse_args([])
    assert config_from_args(defaults) == BenchConfig()


def every_field_set() -> BenchConfig:
    return BenchConfig(
        matrices=11,
        dim=5,
        cols=3,
        dtype="float64",
        strategies=("einsum", "dataset"),
        mode="sharded",
        replicas=3,
        xla=True,
        cache="cold",
        warmup=0,
        repeats=7,
        seed=9,
        time_budget_s=12.5,
        dataset_batch=17,
        label="-looks like a flag, with a comma",
    )


def test_every_field_survives_the_trip_through_cli_args():
    config = every_field_set()
    parser = argparse.ArgumentParser()
    add_config_flags(parser)
    assert config_from_args(parser.parse_args(cli_args(config))) == config


def test_every_field_survives_the_trip_through_json():
    """The form a config travels in to a peer's process and is stored in a result: the same
    field table writes it (`to_dict`) and reads it back (`from_raw`, the one validator)."""
    config = every_field_set()
    assert BenchConfig.from_raw(json.loads(json.dumps(config.to_dict()))) == config


def test_a_sweep_survives_the_trip_through_its_cli_args():
    spec = SweepSpec.from_raw(
        {
            "matrices": "8,16",
            "dim": "4",
            "xla": "false,true",
            "mode": "single,sharded",
            "replicas": 2,
            "strategies": ["einsum"],
            "label": "x",
        }
    )
    parser = argparse.ArgumentParser()
    add_config_flags(parser, lists=True)
    from engine.cli.flags import raw_settings

    again = SweepSpec.from_raw(raw_settings(parser.parse_args(sweep_cli_args(spec))))
    assert again == spec and again.sweep_id == spec.sweep_id


def test_a_huge_bad_value_is_not_echoed_whole():
    with pytest.raises(ConfigError) as caught:
        BenchConfig.from_raw({"dtype": "x" * 100_000})
    assert len(str(caught.value)) < 300 and "100,002 characters" in str(caught.value)
    assert len(shown("y" * 10)) == 12

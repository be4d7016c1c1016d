"""The TensorFlow import check: a child process that is ended from outside, a success
remembered per install, a failure checked again, and a record that is not a plain file
ignored."""

import os
import sys

import pytest

from engine.backends.tensorflow import import_guard as tensorflow_import
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture
def checked(tmp_path, monkeypatch):
    """A private cache, no TensorFlow in this process, and one install key."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delitem(sys.modules, "tensorflow", raising=False)
    monkeypatch.setattr(tensorflow_import, "install_key", lambda: "this install")
    return tensorflow_import.checked_file()


def use_fixture(monkeypatch, name: str) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(FIXTURES / name), str(ROOT)]))


def test_an_import_that_finishes_is_remembered_and_not_checked_again(checked, monkeypatch):
    use_fixture(monkeypatch, "instant_tensorflow")
    assert tensorflow_import.import_problem() is None
    assert tensorflow_import.remembered() == ["this install"]

    def no_child(*_args, **_kwargs):
        raise AssertionError("a remembered install is not checked again")

    monkeypatch.setattr(tensorflow_import, "Child", no_child)
    assert tensorflow_import.import_problem() is None


def test_an_import_that_never_finishes_is_ended_and_checked_again_next_time(checked, monkeypatch):
    use_fixture(monkeypatch, "hanging_tensorflow")
    monkeypatch.setenv(tensorflow_import.LIMIT_VARIABLE, "1.5")
    problem = tensorflow_import.import_problem()
    assert problem is not None and problem.startswith(
        "TensorFlow's import did not finish within 1.5 s"
    )
    assert tensorflow_import.remembered() == []


def test_an_import_that_raises_says_why(checked, monkeypatch):
    use_fixture(monkeypatch, "raising_tensorflow")
    problem = tensorflow_import.import_problem()
    assert problem == (
        "TensorFlow cannot be imported here (RuntimeError: libtensorflow_framework.so.2: cannot "
        "open shared object file (for tests))"
    )
    assert tensorflow_import.remembered() == []


def test_a_record_that_is_a_link_is_not_read_and_not_followed(checked, tmp_path):
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('["this install"]')
    checked.parent.mkdir(parents=True)
    checked.symlink_to(elsewhere)
    assert tensorflow_import.remembered() == []
    tensorflow_import.remember("another")
    assert elsewhere.read_text() == '["this install"]'  # replaced the link, not written through
    assert not checked.is_symlink() and tensorflow_import.remembered() == ["another"]


@pytest.mark.parametrize("raw", ["", "soon", "-1", "0"])
def test_a_limit_that_is_not_a_positive_number_is_refused_naming_it(raw, monkeypatch):
    """It was silently replaced by the default; a bad value is now named, like a bad flag."""
    from engine.run_settings.fields import ConfigError

    monkeypatch.setenv(tensorflow_import.LIMIT_VARIABLE, raw)
    with pytest.raises(ConfigError, match=tensorflow_import.LIMIT_VARIABLE):
        tensorflow_import.import_limit_s()


def test_an_unset_limit_is_the_default(monkeypatch):
    monkeypatch.delenv(tensorflow_import.LIMIT_VARIABLE, raising=False)
    assert tensorflow_import.import_limit_s() == tensorflow_import.DEFAULT_LIMIT_S

"""Both front doors of the command, the console script pip writes from pyproject.toml and
`python -m engine`, end a Ctrl-C made while the CLI's modules import in one line and exit 130,
never a KeyboardInterrupt traceback (`engine/cli/entry.py`).

The signal is sent by the child itself at the moment `engine.cli.main` starts to import, so
the test does not depend on how fast this machine imports pandas and SciPy."""

from __future__ import annotations

import subprocess
import sys

import pytest
import tomllib

from tests.conftest import ROOT

STARTING_LINE = "error: interrupted while starting; nothing was measured\n"
INTERRUPTED_AT_MAIN = """
import importlib.abc, os, signal, sys

class InterruptAtMain(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "engine.cli.main":  # a Ctrl-C while the CLI's modules import
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, InterruptAtMain())
sys.argv = ["matvec-profiler", "run", "--strategy=numpy", "--matrices=4", "--dim=4", "--no-history"]
"""


def console_target() -> tuple[str, str]:
    """The module and function pyproject.toml names for `matvec-profiler`."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        target = tomllib.load(file)["project"]["scripts"]["matvec-profiler"]
    module, function = target.split(":")
    return module, function


def console_script() -> str:
    """What pip's wrapper for `matvec-profiler` runs: import the target module, call it."""
    module, function = console_target()
    return f"from {module} import {function}\nsys.exit({function}())\n"


FRONT_DOORS = {
    "console script": console_script,
    "python -m engine": lambda: "import runpy\nrunpy.run_module('engine', run_name='__main__')\n",
}


@pytest.mark.parametrize("door", sorted(FRONT_DOORS))
def test_ctrl_c_while_the_cli_imports_ends_in_one_line_with_130(door):
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_AT_MAIN + FRONT_DOORS[door]()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 130, done.stderr[-2000:]
    assert done.stderr == STARTING_LINE
    assert done.stdout == ""


def test_the_console_script_imports_no_engine_module_before_its_handler():
    """Its target's module is the entry module, which imports nothing of the CLI at its top
    but its exit code and line: what pip's wrapper imports before calling the target is
    over in milliseconds."""
    module, _ = console_target()
    loaded = "import sys\nprint(sorted(m for m in sys.modules if m.startswith('engine.')))"
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}\n{loaded}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # the catalogue's registry (the standard library only), not yet the frameworks' folders
    assert done.stdout.strip() == (
        "['engine.catalogue', 'engine.catalogue.strategy_info', 'engine.cli', "
        "'engine.cli.entry', 'engine.cli.exit_codes']"
    )

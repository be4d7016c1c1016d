"""The environments the docs name, built as a user builds them, once per test session.

- `full`: the README's: every requirement, TensorFlow included, and the package installed in
  the same venv (the README's two commands both install it, so `.venv/bin/matvec-profiler`
  is there); the suite's own interpreter.
- `no-tensorflow`: a GPU box's or Colab's (docs/install.md, docs/hardware.md):
  `pip install ".[dashboard,notebook]"` and the peers (`requirements-peers.txt`), with the
  notebook runner Colab has (nbclient, ipykernel); no TensorFlow.
- `numpy-only`: `pip install ".[dashboard]"`, nothing else.

Each is a fresh venv made from a copy of the source (`tests/environments.py`); the fixtures
share it between the session's workers. A door that fails in one of them fails the suite,
naming the door and the environment (the test ids).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, once_per_session
from tests.environments import make_venv, pip_install, source_copy


@dataclass(frozen=True)
class Environment:
    """One documented environment: its name (as the test ids say it) and its venv's bin."""

    name: str
    bin_dir: Path
    has_tensorflow: bool

    def command(self, *args: str) -> list[str]:
        """The console command, as a user types it in this environment."""
        return [str(self.bin_dir / "matvec-profiler"), *args]

    @property
    def python(self) -> str:
        return str(self.bin_dir / "python")


def pinned(requirements: str, name: str) -> str:
    """`name==version` as a requirements file of this repository pins it."""
    for line in (ROOT / requirements).read_text().splitlines():
        if line.split("==")[0].strip() == name:
            return line.strip()
    raise LookupError(f"{requirements} pins no {name}")


# What each built environment installs, from the files a user installs from.
RECIPES: dict[str, tuple[str, ...]] = {
    "no-tensorflow": (
        "{source}[dashboard,notebook]",
        "-r",
        "{source}/requirements-peers.txt",
        pinned("requirements-dev.txt", "nbclient"),
        pinned("requirements-dev.txt", "ipykernel"),
    ),
    "numpy-only": ("{source}[dashboard]",),
}


def built(tmp_path_factory, name: str) -> Environment:
    """The environment `name`, made once for the session (a fresh venv, the package from a
    copy of the source), then checked to be what its name says."""
    with once_per_session(tmp_path_factory, f"journey-env-{name}") as folder:
        ready = folder / "ready"
        if not ready.exists():
            bin_dir = make_venv(folder / "venv")
            source = source_copy(folder)
            pip_install(bin_dir, *(part.format(source=source) for part in RECIPES[name]))
            ready.write_text(name)
    environment = Environment(name, folder / "venv" / "bin", has_tensorflow=False)
    found = subprocess.run(
        [environment.python, "-c", "import importlib.util as u; print(u.find_spec('tensorflow'))"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert found.stdout.strip() == "None", f"{name} has TensorFlow: {found.stdout}{found.stderr}"
    return environment


@pytest.fixture(scope="session")
def full_environment() -> Environment:
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "matvec-profiler").exists():
        pytest.fail(
            f"the console command is not installed in {bin_dir.parent}: the README's test "
            "command installs the package with the test requirements (`-e .`)"
        )
    return Environment("full", bin_dir, has_tensorflow=True)


@pytest.fixture(scope="session")
def no_tensorflow_environment(tmp_path_factory) -> Environment:
    return built(tmp_path_factory, "no-tensorflow")


@pytest.fixture(scope="session")
def numpy_only_environment(tmp_path_factory) -> Environment:
    return built(tmp_path_factory, "numpy-only")


def environments(*names: str) -> list:
    """Parameters of a journey: one per environment, each environment's journeys on one
    worker (its venv is built once, by the first of them)."""
    return [pytest.param(name, marks=pytest.mark.xdist_group(f"journey-{name}")) for name in names]


EVERY_ENVIRONMENT = environments("full", "no-tensorflow", "numpy-only")


@pytest.fixture(autouse=True)
def named_journey(request) -> None:
    """Each journey's door (its `journey` mark's argument) and environment, carried in its
    report: the session's summary names every door x environment and how it went."""
    mark = request.node.get_closest_marker("journey")
    door = mark.args[0] if mark and mark.args else request.node.originalname
    where = getattr(request.node, "callspec", None)
    name = where.params.get("environment", "") if where else ""
    request.node.user_properties.append(("journey", f"{door} · {name}" if name else door))


@pytest.fixture
def environment(request) -> Environment:
    """The environment a journey is parametrised with (`environments`, indirect)."""
    return request.getfixturevalue(f"{request.param.replace('-', '_')}_environment")

"""Project contracts: the README's two quick-start commands and CI running the same one."""

import inspect
import re

from tests.conftest import ROOT


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_quick_start_has_exactly_two_commands():
    commands = quick_start_commands()
    assert len(commands) == 2
    assert "streamlit run dashboard/server.py" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert quick_start_commands()[1] in ci.splitlines()


def test_streamlit_listens_on_localhost_without_usage_stats():
    config = (ROOT / "dashboard" / ".streamlit" / "config.toml").read_text()
    assert 'address = "localhost"' in config
    assert "gatherUsageStats = false" in config


def test_requirements_are_pinned():
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "-r", "-e")):
                assert "==" in line, f"{name}: {line} is not pinned"


def test_the_cli_version_is_the_packages():
    import tomllib

    from engine.cli.parser import CHECKOUT_VERSION

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert declared == CHECKOUT_VERSION


def test_version_and_help_name_every_command(capsys):
    import pytest

    from engine.cli.main import build_parser

    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["--version"])
    assert stop.value.code == 0 and "0." in capsys.readouterr().out
    text = build_parser().format_help()
    for command in ("run", "compare", "calibrate", "serve", "dashboard", "sweep", "devices"):
        assert command in text


def test_every_code_block_of_the_readme_is_one_that_runs():
    """The README's only blocks are the Quick start's two commands: the second is CI's own
    (above), the first's server is the one the browser tests start (`benchmarks/server.py`),
    and every command it installs from is a file here."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(\w*)\n(.*?)\n```", readme, flags=re.S)
    assert [text for _, text in blocks] == quick_start_commands()
    launch = quick_start_commands()[0]
    server = (ROOT / "benchmarks" / "server.py").read_text()
    assert "streamlit run dashboard/server.py" in launch
    assert '"streamlit",\n            "run",\n            script,' in server
    from benchmarks.server import streamlit_server

    script = inspect.signature(streamlit_server.__wrapped__).parameters["script"].default
    assert script == "dashboard/server.py"
    for requirements in re.findall(r"-r (\S+)", " ".join(quick_start_commands())):
        assert (ROOT / requirements).is_file(), requirements


def test_the_readme_links_only_to_files_that_are_here():
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if not t.startswith(("http://", "https://"))]
    assert local and all((ROOT / t).exists() for t in local), [
        t for t in local if not (ROOT / t).exists()
    ]
    assert "<repo URL>" not in readme


def test_the_python_the_readme_names_is_one_every_pin_supports():
    """It said 3.10+ while the pinned NumPy, SciPy, pandas and Streamlit need 3.11."""
    from importlib import metadata

    from packaging.specifiers import SpecifierSet

    readme = (ROOT / "README.md").read_text()
    lowest = re.search(r"Python (3\.\d+)\+", readme).group(1)
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        name, _, version = line.partition("==")
        if not version:
            continue
        try:
            if metadata.version(name) != version:
                continue  # another version installed here: its metadata says nothing of the pin
            needs = metadata.metadata(name).get("Requires-Python") or ""
        except metadata.PackageNotFoundError:
            continue
        assert SpecifierSet(needs).contains(f"{lowest}.0"), f"{name}=={version}: {needs}"


def test_the_cpu_only_pytorch_line_installs_the_pinned_version():
    """A CPU-only box takes PyTorch's CPU build of the pinned version before the Quick start,
    so the test requirements never pull the CUDA build; the README and docs/install.md say
    the command, and it must name the version the requirements pin."""
    pinned = next(
        line.split("==")[1]
        for line in (ROOT / "requirements-peers.txt").read_text().splitlines()
        if line.startswith("torch==")
    )
    for doc in ("README.md", "docs/install.md"):
        text = " ".join((ROOT / doc).read_text().split())
        line = f"-m pip install torch=={pinned} --index-url https://download.pytorch.org/whl/cpu"
        assert line in text, doc
    readme = " ".join((ROOT / "README.md").read_text().split())
    # before the two commands: a newcomer running them in order gets the CPU build first
    assert readme.index("--index-url https://download.pytorch.org/whl/cpu") < readme.index("```")


def test_the_quick_start_works_in_a_venv_of_its_own():
    """Debian's Python refuses a system-wide pip install: both commands make and use .venv,
    and the first installs the console command there."""
    launch, tests = quick_start_commands()
    for command in (launch, tests):
        assert command.startswith("python3 -m venv .venv && .venv/bin/python -m pip install")
    assert " -e . " in launch and "matvec-profiler" in (ROOT / "README.md").read_text()
    assert ".venv/" in (ROOT / ".gitignore").read_text().split()


def pins(xla: bool = False) -> dict[str, str]:
    """Every `name==version` of the requirements files (with `xla`, of PyTorch/XLA's own
    environment, which pins an older PyTorch on purpose)."""
    found = {}
    for path in ROOT.glob("requirements*.txt"):
        if ("xla" in path.name) != xla:
            continue
        for line in path.read_text().splitlines():
            name, _, version = line.strip().partition("==")
            if version and not name.startswith("#"):
                found[name.split("[")[0].lower()] = version
    return found


def test_every_install_hint_names_packages_by_the_pinned_version_not_this_project():
    """A hint works wherever the tool came from: no file of a clone (requirements-*.txt), no
    package name an index does not have (`batched-matvec-profiler[...]`)."""
    from engine.backends.tensorflow.availability import INSTALL_HINT, tensorflow_install_hint
    from engine.backends.tensorflow.profile import XPROF_HINT
    from engine.catalogue.catalog import frameworks
    from engine.cli.dashboard import INSTALL_HINT as DASHBOARD_HINT

    hints = [f.install_hint for f in frameworks()] + [INSTALL_HINT, XPROF_HINT, DASHBOARD_HINT]
    hints += [tensorflow_install_hint(kind, False) for kind in ("CPU", "GPU", "TPU")]
    known = pins()
    for hint in hints:
        assert "batched-matvec-profiler" not in hint and "requirements" not in hint, hint
        pinned = pins(xla=True) if "torch_xla" in hint else known
        for name, version in re.findall(r"([A-Za-z][\w-]*)==([\w.]+)", hint):
            assert pinned.get(name.lower()) == version, (name, version, hint)
    assert "torch==" + known["torch"] in " ".join(hints)
    assert "streamlit==" + known["streamlit"] in DASHBOARD_HINT


def test_ci_lints_and_holds_functions_to_a_readable_size_before_the_suite():
    """`ruff check` and `ruff format --check` run in CI before the tests, with the complexity
    and statement bounds the project holds (pyproject.toml)."""
    import tomllib

    ci = (ROOT / ".ci" / "run").read_text()
    lint = ci.index("ruff check . && .lint/bin/ruff format --check .")
    assert lint < ci.index("python -m pytest")
    lint_settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert {"C901", "PLR0915"} <= set(lint_settings["select"])
    assert lint_settings["mccabe"]["max-complexity"] <= 12
    assert lint_settings["pylint"]["max-statements"] <= 50

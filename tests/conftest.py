"""Shared test setup: quiet TensorFlow logs and the repo root on sys.path."""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# Tests never touch the user's real run history or queue: every process they start inherits.
_SCRATCH = Path(tempfile.mkdtemp(prefix="matvec-tests-"))
atexit.register(shutil.rmtree, _SCRATCH, True)
os.environ["MATVEC_HISTORY"] = str(_SCRATCH / "history.sqlite3")
os.environ["MATVEC_QUEUE_DIR"] = str(_SCRATCH / "queue")
os.environ["MATVEC_PROFILES"] = str(_SCRATCH / "profiles")
# The read probes of every run the tests start read 16 MiB, not 4x the last-level cache: a
# second of each run otherwise, and no test judges the ceiling's value (each run warns that it
# is the cache's). The tests of the probe's own size clear it.
os.environ["MATVEC_PROBE_BUFFER_BYTES"] = str(16 * 2**20)
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


import contextlib  # noqa: E402
import fcntl  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _keep_main_module():
    """Streamlit's AppTest leaves its temporary script as `sys.modules["__main__"]`; a later
    test that starts a `spawn` process (the history's and the queue's concurrency tests) would
    then re-run that script in the child, which dies before doing its work. Each test gets the
    `__main__` it started with back."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


@contextlib.contextmanager
def once_per_session(tmp_path_factory, name: str):
    """A directory shared by every xdist worker of this session (one `pytest` call), held
    under a lock: what one worker makes there, the others find made."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the session's base directory, above each worker's own
    folder = shared / name
    folder.mkdir(exist_ok=True)
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield folder
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def real_result_path(tmp_path_factory) -> Path:
    """A results JSON from a real, small CLI run (shared by chart, report and app tests, and
    made once for all the session's workers)."""
    with once_per_session(tmp_path_factory, "real-run") as folder:
        path = folder / "results.json"
        if not path.exists():
            make_real_result(path)
    return path


def make_real_result(path: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "engine",
        "run",
        "--matrices",
        "64",
        "--dim",
        "8",
        "--cols",
        "6",
        "--strategy",
        "python_loop",
        "--strategy",
        "einsum",
        "--strategy",
        "batched_matvec",
        "--strategy",
        "numpy",
        "--xla",
        "--repeats",
        "4",
        "--warmup",
        "1",
        "--label",
        "<b>ci</b> & <script>x</script>",
        "--progress",
        "none",
        "--json",
        str(path),
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    json.loads(path.read_text())


@pytest.fixture(scope="session")
def real_result(real_result_path):
    from engine.results.run_result import RunResult

    return RunResult.from_json(real_result_path.read_text())


# Tests that share a module- or session-scoped fixture defined beside them (a real run, a
# probe process per framework, a Streamlit server) run on one xdist worker, so the fixture is
# made once, not once per worker. The root fixtures above are cheap enough to make per worker.
SHARED_SCOPES = ("module", "package", "session")


def shared_fixture_group(item: pytest.Item) -> str | None:
    for name in item.fixturenames:
        for definition in item._fixtureinfo.name2fixturedefs.get(name, ()):
            if definition.scope in SHARED_SCOPES and definition.baseid not in ("", "tests"):
                return f"{definition.baseid}::{name}"
    return None


def heavy(item: pytest.Item) -> bool:
    """Real engine processes, a browser, or a fixture shared by a group: the long units."""
    return any(item.get_closest_marker(name) for name in ("slow", "e2e", "xdist_group"))


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the test ids
def pytest_collection_modifyitems(config, items):
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        group = shared_fixture_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    # The long units first, the many short tests after them: the workers then end together
    # instead of one waiting while the other runs a long test that was collected last.
    items.sort(key=lambda item: not heavy(item))


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium, one per worker: the browser tests and the journeys' (a
    fixture of the root, so it ties no test to a group of its own)."""
    from benchmarks.server import CHROMIUM_ARGS, chromium_path

    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests: install Debian's chromium (.ci/run does)")
        pytest.skip("chromium not installed (apt-get install chromium); CI installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


JOURNEYS: dict[str, str] = {}


def pytest_runtest_logreport(report):
    """Remember each journey's outcome (`tests/journeys/`, named by its door x environment)."""
    named = dict(report.user_properties).get("journey")
    if named and (report.when == "call" or report.outcome != "passed"):
        JOURNEYS[named] = "passed" if report.outcome == "passed" else report.outcome.upper()


def pytest_terminal_summary(terminalreporter):
    """Every door x environment the journeys walked, and how each went."""
    if JOURNEYS:
        terminalreporter.section("journeys: door · environment")
        for named, outcome in sorted(JOURNEYS.items()):
            terminalreporter.write_line(f"{outcome:>8}  {named}")


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server for this worker's tests (`tests/postgres_server.py`): skipped
    with the reason where none can be started, failed instead under MATVEC_REQUIRE_POSTGRES=1."""
    from tests.postgres_server import REQUIRED, PostgresServer, missing

    reason = missing()
    if reason is not None:
        if REQUIRED:
            pytest.fail(f"MATVEC_REQUIRE_POSTGRES=1 but {reason}")
        pytest.skip(f"no PostgreSQL server for the team-store tests: {reason}")
    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    """A fresh, empty database on the test server, as a --history URL."""
    return postgres_server.database()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request, tmp_path) -> str:
    """The same history test on both stores: an SQLite file and a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "h.sqlite3")
    return request.getfixturevalue("postgres_url")

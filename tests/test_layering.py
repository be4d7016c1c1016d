"""The layering rules, checked by walking the packages (docs/architecture.md).

- A file's path says whether it may import a framework: only the framework folders,
  `engine/backends/<framework>/`, import TensorFlow (or JAX, PyTorch); the orchestration in
  `engine/execution/` and the harness in `engine/harness/` import none, even when imported.
- Only the dashboard's `views/`, `components/`, `app.py` and `server.py` import Streamlit;
  plotly is for `dashboard/figures/` and `dashboard/report/`; the engine imports neither.
- The dashboard never reaches the framework layers of the engine.
- No import circles between the project's modules, however the imports are written (imports
  only for type checking included), and no arrow back up: a layer imports only layers below it.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

FRAMEWORKS = {"tensorflow", "keras", "jax", "jaxlib", "torch", "torch_xla", "cupy"}
FRAMEWORK_PACKAGES = ("engine/backends/",)
STREAMLIT_PLACES = (
    "dashboard/views/",
    "dashboard/components/",
    "dashboard/app.py",
    "dashboard/server.py",
)
PLOTLY_PLACES = ("dashboard/figures/", "dashboard/report/", "dashboard/run_view.py")


def project_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, type_only: bool = False) -> set[str]:
    """Every module a file imports, at any depth; those under `if TYPE_CHECKING:` only when
    `type_only` (they never load a framework, but they still tie two modules together)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) and not type_only:
            skipped.update(id(child) for child in ast.walk(node))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def top_levels(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


ALL_FILES = project_files("engine") + project_files("dashboard")


def test_the_walk_sees_the_whole_project():
    names = {relative(p) for p in ALL_FILES}
    assert "engine/backends/tensorflow/kernels.py" in names
    assert "dashboard/views/run.py" in names
    assert len(names) > 40


@pytest.mark.parametrize("path", ALL_FILES, ids=relative)
def test_a_files_path_tells_which_frameworks_it_may_import(path):
    where = relative(path)
    used = top_levels(imports_of(path))
    if not where.startswith(FRAMEWORK_PACKAGES):
        assert not used & FRAMEWORKS, f"{where} imports {used & FRAMEWORKS}"
    if not where.startswith(STREAMLIT_PLACES):
        assert "streamlit" not in used, f"{where} imports streamlit"
    if not where.startswith(PLOTLY_PLACES):
        assert "plotly" not in used, f"{where} imports plotly"
    if where.startswith("dashboard/"):
        reached = {
            m for m in imports_of(path) if m.startswith(("engine.backends", "engine.execution"))
        }
        assert not reached, f"{where} reaches the framework layers: {reached}"


def test_no_import_circles():
    modules = {module_name(p): p for p in ALL_FILES}
    graph = {
        name: {m for m in imports_of(path, type_only=True) if m in modules and m != name}
        for name, path in modules.items()
    }
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for nxt in sorted(graph[name]):
            # A package's __init__ importing its own children is not a circle.
            if name.startswith(nxt + ".") or nxt.startswith(name + "."):
                continue
            if state.get(nxt) == 1:
                cycles.append([*trail[trail.index(nxt) :], nxt] if nxt in trail else [name, nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


# The house from the ground up: a layer may import its own and those before it, never one after.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("engine.machine", "engine.process"),
    ("engine.catalogue",),
    ("engine.run_settings",),
    ("engine.measure",),
    ("engine.results",),
    ("engine.analysis",),
    ("engine.storage",),
    ("engine.harness",),
    ("engine.backends",),
    # execution's rooms, from the ground up: a room imports its own and those before it
    ("engine.execution", "engine.execution.replicas"),
    ("engine.execution.plan",),
    ("engine.execution.sampling",),
    ("engine.execution.peers",),
    ("engine.execution.run",),
    ("engine.cli",),
    ("dashboard.text", "dashboard.tables", "dashboard.services"),
    ("dashboard.figures",),
    ("dashboard.run_view",),
    ("dashboard.report", "dashboard.notebook"),
    ("dashboard.components",),
    ("dashboard.views", "dashboard.app", "dashboard.server"),
    ("engine", "engine.__main__", "engine.notebook", "dashboard"),  # the front doors
)


def layer_of(module: str) -> int:
    """The index of the most specific layer that holds `module`."""
    best, found = -1, -1
    for index, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, found = len(name), index
    assert found >= 0, f"{module} is in no layer: add it to LAYERS"
    return found


def test_no_arrow_runs_back_up():
    modules = {module_name(p): p for p in ALL_FILES}
    upward = [
        f"{name} -> {target}"
        for name, path in modules.items()
        for target in imports_of(path, type_only=True)
        if target in modules and layer_of(target) > layer_of(name)
    ]
    assert upward == []


PURE_IMPORT_CHECK = """
import importlib, pkgutil, sys
import engine, dashboard
skip = ("engine.backends", "dashboard.views", "dashboard.app", "dashboard.server",
        "engine.__main__", "dashboard.report.__main__")
for package in (engine, dashboard):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not info.name.startswith(skip):
            importlib.import_module(info.name)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in %r)
print(loaded)
"""


def test_every_pure_module_imports_without_loading_a_framework():
    done = subprocess.run(
        [sys.executable, "-c", PURE_IMPORT_CHECK % (sorted(FRAMEWORKS),)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_no_docstring_points_outside_the_repository():
    for path in ALL_FILES:
        assert "DESIGN.md" not in path.read_text(encoding="utf-8"), relative(path)


FRAMEWORK_NAMES = {"tensorflow", "numpy", "jax", "torch", "torch_xla", "cupy"}
# The framework folders say what they are; the registry reads their declarations.
MAY_NAME_FRAMEWORKS = ("engine/backends/", "engine/catalogue/strategy_info.py")


def framework_branches(path: Path) -> list[str]:
    """Comparisons of anything with a framework's name (`x == "jax"`, `x in ("torch", ...)`,
    `"tensorflow" in sys.modules`): each is a branch on a framework outside its folder."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        for part in (node.left, *node.comparators):
            values = part.elts if isinstance(part, ast.Tuple | ast.Set | ast.List) else [part]
            named = {v.value for v in values if isinstance(v, ast.Constant)} & FRAMEWORK_NAMES
            if named:
                found.append(f"{relative(path)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_outside_the_framework_folders_branches_on_a_frameworks_name():
    branches = [
        line
        for path in ALL_FILES
        if not relative(path).startswith(MAY_NAME_FRAMEWORKS)
        for line in framework_branches(path)
    ]
    assert branches == []


def runtime_members(path: Path) -> dict[str, set[str]]:
    """Per runtime class in a framework's `runtime.py` (one whose body sets `framework`), its
    framework's name and the methods and properties it defines, read without importing it."""
    found: dict[str, set[str]] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.ClassDef):
            continue
        names = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        for item in node.body:
            if (
                isinstance(item, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "framework" for t in item.targets)
                and isinstance(item.value, ast.Constant)
            ):
                found[str(item.value.value)] = names
    return found


def test_each_runtime_has_exactly_the_capabilities_its_framework_declares():
    """A capability is declared where the framework lives, and its runtime holds every method
    of it; a runtime that holds all of one it does not declare is asked to declare it (so the
    declaration stays the list of what it can do)."""
    from engine.catalogue.strategy_info import framework_info
    from engine.harness.capabilities import CAPABILITIES, members

    checked = 0
    for path in sorted((ROOT / "engine" / "backends").glob("*/runtime.py")):
        for framework, names in runtime_members(path).items():
            declared = set(framework_info(framework).capabilities)
            lacking = [f"{c}: {m}" for c in declared for m in members(c) if m not in names]
            assert lacking == [], f"{relative(path)} lacks what {framework} declares: {lacking}"
            undeclared = [c for c in CAPABILITIES if c not in declared and set(members(c)) <= names]
            assert undeclared == [], f"{framework} has but does not declare {undeclared}"
            checked += 1
    assert checked >= 6


def test_a_runtime_missing_a_declared_capability_fails_registration():
    from engine.harness.capabilities import CapabilityMissing, checked

    class HalfAProbe:
        framework = "made_up"

        def probe_buffer(self, elements: int) -> None:
            return None

    with pytest.raises(CapabilityMissing, match="device_ceiling: probe_read"):
        checked(HalfAProbe(), "made_up", ("device_ceiling",))
    assert checked(HalfAProbe(), "made_up", ()) is not None


def test_a_framework_declaring_an_unknown_capability_is_refused():
    from engine.catalogue.strategy_info import CAPABILITY_NAMES, FrameworkInfo
    from engine.harness.capabilities import CAPABILITIES

    assert set(CAPABILITY_NAMES) == set(CAPABILITIES)
    with pytest.raises(ValueError, match="unknown capabilities \\['teleport'\\]"):
        FrameworkInfo("made_up", "Made up", "made_up", "", 99, capabilities=("teleport",))


def probes_of_a_runtime(path: Path) -> list[str]:
    """`file:line` of each `getattr(runtime, ...)` or `hasattr(runtime, ...)` in `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and node.args
            and isinstance(node.args[0], ast.Name)
            and "runtime" in node.args[0].id
        ):
            found.append(f"{relative(path)}:{node.lineno}")
    return found


def test_a_runtime_is_asked_through_its_capabilities_never_probed():
    """What a runtime can do is its declared capabilities (`harness/capabilities.py`, the one
    place that looks a member up by name); code that probes a runtime for an attribute grows a
    second list of what each one has."""
    allowed = ROOT / "engine" / "harness" / "capabilities.py"
    probes = [
        probe
        for path in sorted((ROOT / "engine").rglob("*.py"))
        if path != allowed
        for probe in probes_of_a_runtime(path)
    ]
    assert probes == []
    assert probes_of_a_runtime(allowed)  # the check sees the one place it allows


ROOM_MOST_MODULES = 12  # a room with more than this is two rooms


def test_execution_is_rooms_each_small_and_saying_what_it_holds():
    """No module lies flat in `engine/execution/`: each is in a room (`run/`, `peers/`, ...)
    whose docstring names every module in it, and no room holds more than 12."""
    execution = ROOT / "engine" / "execution"
    assert [p.name for p in execution.glob("*.py")] == ["__init__.py"]
    rooms = [p for p in execution.iterdir() if (p / "__init__.py").is_file()]
    assert {p.name for p in rooms} == {"plan", "replicas", "sampling", "peers", "run"}
    for room in rooms:
        modules = [p.stem for p in room.glob("*.py") if p.stem != "__init__"]
        assert len(modules) <= ROOM_MOST_MODULES, (room.name, len(modules))
        said = (room / "__init__.py").read_text(encoding="utf-8")
        assert all(f"`{name}.py`" in said for name in modules), (room.name, modules)


def test_only_the_stores_speak_to_a_database():
    """`sqlite3` and `psycopg` are `engine/storage/`'s: every other module reaches a history
    through `History` and catches one error (`HistoryUnavailable`, a ValueError) whatever kind
    of store keeps it."""
    speaking = [
        relative(path)
        for path in ALL_FILES
        if not relative(path).startswith("engine/storage/")
        and top_levels(imports_of(path)) & {"sqlite3", "psycopg"}
    ]
    assert speaking == []


def test_no_module_outside_the_framework_folders_imports_one_of_them():
    """TensorFlow's checks, devices and process are reached through its declaration and its
    folder's `process.py`, found by name (`own_process.run_framework_process`): no module
    outside `engine/backends/` imports a framework's folder."""
    reaching = [
        f"{relative(path)} -> {target}"
        for path in ALL_FILES
        if not relative(path).startswith("engine/backends/")
        for target in imports_of(path, type_only=True)
        if target.startswith("engine.backends.")
    ]
    assert reaching == []

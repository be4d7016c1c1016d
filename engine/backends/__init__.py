"""Framework code: one folder a framework (`tensorflow/`, `numpy/`, `jax/`, `torch/`,
`torch_xla/`, `cupy/`), each declaring itself in `declaration.py` (which imports no framework)
and holding its runtime and kernels. Importing `engine` declares every folder to the catalogue
(`declare_folders`), which never reaches up here to find them. Only this package imports a
framework, and no module outside it imports a framework's folder: the run framework's checks
are its declaration's (`FrameworkInfo.problem`), its devices and process its `process.py`'s,
found by the package it was declared with; `tests/test_layering.py` holds both rules.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import pkgutil
from collections.abc import Iterable

from engine.catalogue.strategy_info import declare


def declare_folders(package: str, path: Iterable[str]) -> None:
    """Declare to the catalogue every folder of `package` (at `path`) that has a
    `declaration.py`: adding a framework is adding a folder. Each declaration imports no
    framework, so this costs a module read a folder."""
    for folder in pkgutil.iter_modules(list(path)):
        where = f"{package}.{folder.name}"
        if folder.ispkg and importlib.util.find_spec(f"{where}.declaration"):
            info = importlib.import_module(f"{where}.declaration").FRAMEWORK
            declare(dataclasses.replace(info, package=where))


declare_folders(__name__, __path__)

"""TensorFlow, imported so that a broken optional package cannot take it down.

`import tensorflow` imports `jax` too (TFLite's helpers, `from jax import jit`), catching only
ImportError. A JAX that is installed but broken (it raises something else, or even calls
`sys.exit`) would then end the whole run, TensorFlow's and NumPy's variants included. The
run's own process never needs JAX (JAX variants run in a process of their own), so TensorFlow is
imported with `jax` hidden; the JAX variants then fail alone, in their process, with the reason.
Every engine module takes `tf` from here.
"""

from __future__ import annotations

import sys
from types import ModuleType

OPTIONAL_IMPORTS_HIDDEN = ("jax",)


def import_tensorflow() -> ModuleType:
    """`tensorflow`, first imported with the optional packages above hidden from it."""
    if "tensorflow" in sys.modules:
        return sys.modules["tensorflow"]
    hidden = [name for name in OPTIONAL_IMPORTS_HIDDEN if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import jax` -> ImportError
    try:
        import tensorflow
    finally:
        for name in hidden:
            if sys.modules.get(name, ModuleType(name)) is None:
                del sys.modules[name]
    return tensorflow


tf = import_tensorflow()

"""Framework code: one folder a framework (`tensorflow/`, `numpy/`, `jax/`, `torch/`,
`torch_xla/`, `cupy/`), each declaring itself in `declaration.py` (which imports no framework)
and holding its runtime and kernels. Only this package imports a framework, and nothing outside
it names TensorFlow's folder: the run framework's checks and devices are reached through its
declaration (`FrameworkInfo.usable`, `devices`); `tests/test_layering.py` holds both rules.
"""

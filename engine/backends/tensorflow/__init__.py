"""Everything that talks to TensorFlow: kernels, devices, sync, placement, probes.

This `__init__` imports nothing, so the catalogue can locate the kernels' source file without
starting TensorFlow.
"""

"""Running a configuration: one base module the modes share, an executor per mode, the runner
that picks one from a table, and sweeps. May import TensorFlow (through the backends).
"""

"""Running a configuration: the one orchestrator (`orchestrator.py`) over the run's own process
(TensorFlow's, `tensorflow_process.py`, with an executor per mode; or the host's,
`host_process.py`) and a process of its own per other framework (`peers.py`), and sweeps. Only
the TensorFlow modules here import TensorFlow (through the backends).
"""

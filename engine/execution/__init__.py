"""Running a configuration: the one orchestrator (`orchestrator.py`) over the run's own process
(the run framework's, from its folder's `process.py`, TensorFlow's with an executor per mode;
or the host's, `host_process.py`) and a process of its own per other framework (`peers.py`,
`peer_worker.py`), sampling, the splits of a batch over replicas, and sweeps. Nothing here
imports a framework at module level; the peer worker imports one runtime, by its folder's name.
"""

"""A run, from its one start to its record: the start (`start.py`: the run's own process, its
peers started early, the check set drawn while a framework imports), the orchestrator
(`orchestrator.py`, walking `measuring.py`'s phases) over the run's own process (the run
framework's, or the host's: `own_process.py`, `host_process.py`), and sweeps (`sweep.py`)."""

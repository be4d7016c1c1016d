"""The framework processes beside the run's own: the run's side (`parent.py`: requests out,
results merged), what one process is asked (`request.py`) and how it is spoken with
(`process.py`), the process itself (`worker.py`, `python -m engine.execution.peers.worker`)
with its runtime, inputs and device ceilings (`runtime.py`, `inputs.py`, `device_probes.py`),
and the processes kept between runs (`pool.py`, `kept.py`) and started early (`early_start.py`, and
`preparing.py`, which also holds what the process does around a variant's samples)."""

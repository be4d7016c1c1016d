"""What a run is asked to measure: its settings, each field declared once with its parser
(`config.py`, `fields.py`), a user's own kernels (`user_kernels.py`) and a sweep's points
(`run/sweep.py`).

Pure Python: nothing here imports TensorFlow or any other framework.
"""

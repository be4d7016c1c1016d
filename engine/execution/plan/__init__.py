"""What a run is, decided before any work: its plan (`run_plan.py`, the one typed record of
everything a run is decided by), what it reads from its history first (`history_reads.py`),
which variants its config runs (`variants.py`), which process each framework's variants run
in (`processes.py`), and the one order of phases every process goes through
(`phase_order.py`). Read by the sampling, the peers and the run alike; imports none of them."""

"""Running a configuration, in four rooms: `run/` (the plan, the one start, the orchestrator
over the run's own process, sweeps), `peers/` (a process of its own for each other framework,
and those kept between runs), `sampling/` (the loop, the race, confirmation, the answer so far)
and `replicas/` (modes replicated and sharded outside TensorFlow). Nothing here imports a
framework: each framework's folder in `engine/backends/` does."""

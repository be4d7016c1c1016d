"""Child processes: how the project starts, watches and ends them (framework-free)."""

"""Durable state on this machine: the SQLite run history and the machine-wide run queue."""

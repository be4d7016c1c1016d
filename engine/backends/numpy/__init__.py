"""NumPy as a runtime: the host, no framework. Its kernel is what the dashboard shows."""

"""What was measured: the typed result model, its one validating parser, human formatting and
the progress event types. No framework imports, so the dashboard can read results.
"""

"""The measurement harness every framework's code is run by, itself importing no framework:
the one prepare -> sample -> check path of a variant (`variant.py`), what a runtime must
supply to it (`runtime.py`), the fresh inputs and output check that a user's kernel cannot
fool (`untrusted.py`), and how a variant's result is recorded (`recording.py`,
`replica_record.py`). The framework folders (`engine/backends/`) and the orchestration above
them (`engine/execution/`) both build on it."""

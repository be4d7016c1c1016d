"""The command line: `python -m engine run|sweep|import|history|devices|strategies`.

Nothing here imports TensorFlow at module level; `run` and `sweep` load the execution layer
only after every input has been validated, so bad input fails in milliseconds.
"""

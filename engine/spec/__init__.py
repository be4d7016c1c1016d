"""What to measure: the configuration and its field table, the strategy catalogue, sweeps.

Pure Python: nothing here imports TensorFlow or any other framework.
"""

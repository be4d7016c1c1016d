"""Modes replicated and sharded for every framework but TensorFlow (whose own `tf.distribute`
runs them in `backends/tensorflow/`): the batch split over host threads (`host.py`: NumPy,
PyTorch and CuPy) or over a framework's own devices (`device.py`: JAX's `NamedSharding`)."""

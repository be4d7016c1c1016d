"""A strategy that is not part of the product: registered by a test to prove the catalogue is
the only place a new strategy needs (docs/adding-a-strategy.md)."""

import tensorflow as tf


def broadcast_sum(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    return tf.reduce_sum(A * x[:, None, :], axis=-1)

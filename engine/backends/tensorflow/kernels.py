"""One small kernel per strategy: y[i] = A[i] @ x[i] for A of shape (B, m, n), x of shape (B, n).

Each function body is what the dashboard shows users as "the code to copy", so keep them plain.
The catalogue (`engine.catalogue.catalog`) names each one; `build.build_kernel` wraps graph
kernels in `tf.function` (optionally `jit_compile=True`).
"""

from __future__ import annotations

from engine.backends.tensorflow.loader import tf


def python_loop(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    return tf.stack([tf.linalg.matvec(A[i], x[i]) for i in range(A.shape[0])])


def while_loop(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    count = tf.shape(A)[0]
    ys = tf.TensorArray(A.dtype, size=count, element_shape=A.shape[1:2])

    def body(i, ys):
        return i + 1, ys.write(i, tf.linalg.matvec(A[i], x[i]))

    _, ys = tf.while_loop(lambda i, _: i < count, body, (tf.constant(0), ys))
    return ys.stack()  # every y[i], not just the last one


def map_fn(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    return tf.map_fn(
        lambda pair: tf.linalg.matvec(pair[0], pair[1]),
        (A, x),
        fn_output_signature=A.dtype,
    )


def vectorized_map(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    return tf.vectorized_map(lambda pair: tf.linalg.matvec(pair[0], pair[1]), (A, x))


def batched_matvec(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    return tf.linalg.matvec(A, x)


def batched_matmul(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    return tf.matmul(A, x[..., None])[..., 0]


def einsum(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    return tf.einsum("bij,bj->bi", A, x)


def dataset(A: tf.Tensor, x: tf.Tensor, batch_size: int = 256) -> tf.Tensor:
    batches = tf.data.Dataset.from_tensor_slices((A, x)).batch(batch_size)
    return tf.concat([batched_step(a, v) for a, v in batches], axis=0)


@tf.function
def batched_step(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    return tf.linalg.matvec(A, x)


def broadcast_reduce(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    return tf.reduce_sum(A * x[:, None, :], axis=-1)


def broadcast_reduce_bf16(A: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
    """Inputs stored as bfloat16 (half the bytes read), products summed in float32."""
    widened = tf.cast(A, tf.float32) * tf.cast(x, tf.float32)[:, None, :]
    return tf.reduce_sum(widened, axis=-1)

"""JAX kernels: y[i] = A[i] @ x[i]. The runtime wraps each in `jax.jit`; the body is the code
the dashboard shows to copy (with `jax.jit` around it)."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def jax_vmap(A: jax.Array, x: jax.Array) -> jax.Array:
    return jax.vmap(jnp.matmul)(A, x)


def jax_einsum(A: jax.Array, x: jax.Array) -> jax.Array:
    return jnp.einsum("bij,bj->bi", A, x)


def jax_broadcast(A: jax.Array, x: jax.Array) -> jax.Array:
    return (A * x[:, None, :]).sum(axis=-1)


def jax_einsum_bf16(A: jax.Array, x: jax.Array) -> jax.Array:
    """Inputs stored as bfloat16 (half the bytes read), products summed in float32."""
    return jnp.einsum("bij,bj->bi", A, x, preferred_element_type=jnp.float32)

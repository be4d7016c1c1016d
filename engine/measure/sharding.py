"""How B matrices are split across N replicas: pure arithmetic, no TensorFlow.

Even split (sizes differ by at most one, B < N leaves some replicas empty) wherever devices
accept different shard shapes; padded split (every shard ceil(B/N), zero rows appended at the
end and dropped after the gather) where they must be equal, as on TPU.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shard:
    replica: int
    start: int  # first matrix (in the original order) this replica computes
    stop: int  # one past the last real matrix
    padded_size: int  # rows the replica actually holds (>= stop - start)

    @property
    def matrices(self) -> int:
        return self.stop - self.start

    @property
    def padding(self) -> int:
        return self.padded_size - self.matrices


def even_shards(matrices: int, replicas: int) -> list[Shard]:
    base, extra = divmod(matrices, replicas)
    shards, start = [], 0
    for replica in range(replicas):
        size = base + (1 if replica < extra else 0)
        shards.append(Shard(replica, start, start + size, size))
        start += size
    return shards


def padded_shards(matrices: int, replicas: int) -> list[Shard]:
    per = -(-matrices // replicas)  # ceil
    shards = []
    for replica in range(replicas):
        start = min(matrices, replica * per)
        stop = min(matrices, start + per)
        shards.append(Shard(replica, start, stop, per))
    return shards


def replicated_shards(matrices: int, replicas: int) -> list[Shard]:
    """Every replica holds the whole batch: the classic mistake, N times the work."""
    return [Shard(replica, 0, matrices, matrices) for replica in range(replicas)]


def load_imbalance(times_s: list[float]) -> float | None:
    """Slowest replica over the mean: 1.0 is perfectly balanced."""
    valid = [t for t in times_s if t is not None]
    if not valid or sum(valid) == 0:
        return None
    return max(valid) / (sum(valid) / len(valid))

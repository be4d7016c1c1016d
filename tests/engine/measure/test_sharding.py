import pytest

from engine.measure.sharding import (
    even_shards,
    load_imbalance,
    padded_shards,
    replicated_shards,
)


@pytest.mark.parametrize(("matrices", "replicas"), [(3000, 7), (10, 2), (9, 3), (2, 4), (1, 1)])
def test_even_shards_cover_every_matrix_once_in_order(matrices, replicas):
    shards = even_shards(matrices, replicas)
    assert len(shards) == replicas
    assert sum(s.matrices for s in shards) == matrices
    assert [s.start for s in shards[1:]] == [s.stop for s in shards[:-1]]
    assert max(s.matrices for s in shards) - min(s.matrices for s in shards) <= 1
    assert all(s.padding == 0 for s in shards)


def test_3000_over_7():
    assert [s.matrices for s in even_shards(3000, 7)] == [429, 429, 429, 429, 428, 428, 428]


def test_fewer_matrices_than_replicas_leaves_some_empty():
    assert [s.matrices for s in even_shards(2, 4)] == [1, 1, 0, 0]


@pytest.mark.parametrize(("matrices", "replicas"), [(10, 4), (2, 4), (5, 4), (12, 4), (3000, 7)])
def test_padded_shards_are_equal_and_real_rows_come_first(matrices, replicas):
    shards = padded_shards(matrices, replicas)
    assert len({s.padded_size for s in shards}) == 1
    assert sum(s.matrices for s in shards) == matrices
    # Concatenated in replica order, the real rows are exactly the first B rows.
    layout = []
    for s in shards:
        layout += list(range(s.start, s.stop)) + [None] * s.padding
    assert layout[:matrices] == list(range(matrices))
    assert all(v is None for v in layout[matrices:])
    assert len(layout) == replicas * shards[0].padded_size


def test_replicated_shards_hold_everything():
    shards = replicated_shards(10, 3)
    assert [(s.start, s.stop) for s in shards] == [(0, 10)] * 3


def test_load_imbalance():
    assert load_imbalance([1.0, 1.0]) == 1.0
    assert load_imbalance([1.0, 3.0]) == 1.5
    assert load_imbalance([]) is None

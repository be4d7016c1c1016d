"""Pure measurement: the timing method, statistics, roofline arithmetic, the float64 check,
shard arithmetic and the memory estimate. No framework imports: every piece is unit-tested
with plain Python callables and NumPy arrays.
"""

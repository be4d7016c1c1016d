"""The sampling of a run's prepared variants: the loop (`loop.py`: rounds or sequence, turns
and blocks), the rules it asks (`policy.py`: when a variant stops, how many blocks a turn
takes, whether a block is re-warmed, a round's order, the race after a turn and a round), one
look of the race (`race_round.py`), the variants confirmed in one block from the history
(`confirmation.py`), the answer so far (`provisional.py`), and the watch on a call that never
returns (`hang_watch.py`). The numbers the rules use (precision, the race's bounds, the
re-warm's length) are `measure/`'s."""

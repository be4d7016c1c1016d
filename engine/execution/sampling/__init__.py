"""The sampling of a run's prepared variants: the loop (`loop.py`: rounds or sequence, turns
and blocks), one look of the race after a round (`race_round.py`), the variants confirmed in
one block from the history (`confirmation.py`), the answer so far (`provisional.py`), and the
watch on a call that never returns (`hang_watch.py`). The rules they follow (when to stop,
eliminate, re-warm; a block's interval) are `measure/`'s."""

"""The strategies a run may name: each one's declaration (`strategy_info.py`: what it is, its
framework, its capabilities) and the catalogue that finds them (`catalog.py`).

Pure Python: nothing here imports TensorFlow or any other framework.
"""

"""CuPy: NumPy's interface on an NVIDIA GPU, in a process of its own."""

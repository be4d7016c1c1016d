"""Framework code. Only this package and `engine.execution` may import TensorFlow (or, later,
another framework); a test walks the packages to hold that rule.
"""

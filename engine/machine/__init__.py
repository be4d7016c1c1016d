"""Facts about this host read from the OS and the environment, without any framework.

They are needed before TensorFlow starts (memory preflight, device hints, cluster layout), so
nothing here imports TensorFlow.
"""

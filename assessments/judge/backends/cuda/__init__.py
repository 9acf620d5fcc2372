"""CUDA backend: real CuPy on a GPU, with launch recording and event timing."""

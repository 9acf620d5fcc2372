"""CUDA backend: real CuPy on a GPU, with launch recording and trustworthy timing.

wrap.py records kernels; timing.py is the child's timing harness; session.py the parent's side of
it; stats.py and crosscheck.py the pure statistics and checks; peaks.py the measured roofline
peaks; guard.py (with nvml.py) one submission per GPU at a time.
"""

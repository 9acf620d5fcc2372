"""The trusted parent's side of GPU timing (the child's side is backends/cuda/timing.py).

session.py drives the child's harness and turns raw event times into the report's timing;
plan.py picks slots, variants and re-checked repeats; stats.py the CI of the median and the
stopping rule; crosscheck.py the wall-clock cross-check and review flags; roofline.py the
roofline and the physical floor; peaks.py the device's measured peaks; guard.py (with nvml.py)
one submission per GPU at a time. Nothing here imports CuPy (peaks.py does only when run as its
own measuring process) or anything of the child.
"""

"""The CuPy kind: a Python file whose `solve(...)` writes its outputs with CuPy (RawKernel,
ElementwiseKernel, ReductionKernel, cupyx.jit, array code), judged on arrays from the task bank
(gpu_tasks) on the `cpu` backend (the emulator) or the `cuda` backend (a GPU, timed).

`kind.py` is what the core sees (`KIND`), `stages.py` the stages. This package imports nothing:
the child's modules live here too, and a child must not load the parent's side."""

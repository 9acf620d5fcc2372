"""CUDA backend, child side: real CuPy on a GPU, with launch recording and the timing harness.

child.py sets the backend up in the child; wrap.py records kernels; timing.py is the child's
timing harness. The parent's side of timing (session, peaks, guard...) is assessments/judge/kinds/cupy/timing/.
"""

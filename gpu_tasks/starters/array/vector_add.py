import cupy as cp

# Compute c[i] = a[i] + b[i] for every i < n (float32). c arrives filled with NaN.
# Array-level CuPy fits this task well: each expression runs as one or more GPU kernels that
# CuPy generates. Write the result into c in place (c[...] = expr, or a ufunc's out=c):
# rebinding the name c inside solve changes nothing the caller sees.


def solve(a, b, c, n):
    # TODO: compute the sum with array expressions and store it into c
    pass

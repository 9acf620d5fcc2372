import cupy as cp

# y (m) = a (m x n, row-major) @ x (n), float32. y arrives filled with NaN.
# Array-level CuPy fits this task well: its matrix-vector product calls cuBLAS, which reads a
# once at close to full bandwidth. Write into y in place (y[...] = ..., or out=y): rebinding
# the name y inside solve changes nothing the caller sees.


def solve(a, x, y, m, n):
    # TODO: store the matrix-vector product into y
    pass

import cupy as cp

# c (m x n) = a (m x k) @ b (k x n), float32, row-major. Note the argument order m, n, k.
# c arrives filled with NaN.
# Array-level CuPy fits this task well: its matrix product calls cuBLAS (TF32 tensor cores are
# accurate enough here; float16 is not). Write into c in place (c[...] = ..., or out=c):
# rebinding the name c inside solve changes nothing the caller sees.


def solve(a, b, c, m, n, k):
    # TODO: store the matrix product into c
    pass

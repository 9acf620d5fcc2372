import cupy as cp

# c (m x n) = a (m x k) @ b (k x n), float32, row-major. Note the argument order m, n, k.
# c arrives filled with NaN. Entries reach 256 in magnitude: accumulate in float32, not half.
# ElementwiseKernel fits this task moderately: one thread per element of c computing a dot
# product over `raw` inputs is correct, but it cannot share tiles of a and b through shared
# memory, so it stays far from the roofline. Array code (cuBLAS) or a tiled RawKernel/cupyx.jit
# kernel is much faster. In the operation, `i` is the flat index of the current element of c.
_kernel = cp.ElementwiseKernel(
    "raw float32 a, raw float32 b, int32 n, int32 k",  # raw: indexed by hand, not per element
    "float32 c",  # output: the loop runs over c's elements
    """
    // TODO: from i, find this element's row and column in c (m x n), then accumulate the
    // dot product of that row of a with that column of b over k in a float
    """,
    "matmul",
)


def solve(a, b, c, m, n, k):
    _kernel(a, b, n, k, c)  # inputs in declaration order, then the output

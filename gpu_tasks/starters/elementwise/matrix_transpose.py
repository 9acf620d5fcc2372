import cupy as cp

# a is rows x cols (row-major); write its transpose into b (cols x rows):
# b[j * rows + i] = a[i * cols + j]. b arrives filled with NaN.
# ElementwiseKernel fits this task moderately: one thread per element of b, and a `raw` input
# can be indexed freely. It cannot stage a tile in shared memory, so either the reads or the
# writes are strided: correct, but slower than a tiled RawKernel or cupyx.jit kernel.
# In the operation, `i` is the flat index of the current element of b.
_kernel = cp.ElementwiseKernel(
    "raw float32 a, int32 rows, int32 cols",  # raw: a is indexed by hand (a[...]), not per element
    "float32 b",  # output: the loop runs over b's elements
    """
    // TODO: recover this element's row and column in b (cols x rows) from i, then read the
    // matching element of a
    """,
    "transpose",
)


def solve(a, b, rows, cols):
    _kernel(a, rows, cols, b)  # inputs in declaration order, then the output

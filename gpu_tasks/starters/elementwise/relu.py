import cupy as cp

# Compute y[i] = max(x[i], 0) for every i < n (float32). y arrives filled with NaN.
# ElementwiseKernel fits this task well: CuPy runs the operation once per element, chooses the
# grid itself and handles the bounds. In the operation, x and y name the current element.
_kernel = cp.ElementwiseKernel(
    "float32 x",  # input, read-only
    "float32 y",  # output, written in place when passed to the call
    """
    // TODO: set y from x (checked exactly; for x == 0 either zero is accepted)
    """,
    "relu",
)


def solve(x, y, n):
    _kernel(x, y)  # passing y makes the kernel write into it instead of a new array

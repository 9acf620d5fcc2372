import cupy as cp

# y[i] = sum over j < k of x[i + j] * w[j], for i < n - k + 1 (valid cross-correlation, no
# flipping of w). y has n - k + 1 elements and arrives filled with NaN.
# ReductionKernel fits this task poorly: each output is a reduction over its window, but the
# kernel only sees arrays element by element (no raw inputs on the CPU backend), so the
# (n - k + 1, k) windows must first be built with array code, k times the size of x.
# Fine for the CPU tests; for the GPU sizes prefer an ElementwiseKernel, RawKernel or
# cupyx.jit kernel that indexes x directly.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_kernel = cp.ReductionKernel(
    "float32 xv, float32 wv",  # one element of a window and the matching tap of w
    "float32 yv",  # output: one value per window
    "0",  # TODO map_expr: what one tap contributes
    "a",  # TODO reduce_expr: combine two partials a and b
    "yv = a",  # post_map_expr: store the reduced value
    "0",  # TODO identity: the neutral start of reduce_expr
    "conv1d",
)


def solve(x, w, y, n, k):
    out_n = n - k + 1
    # TODO: row i of the windows must hold x[i:i + k] (e.g. fancy indexing with an (out_n, k)
    # array of indices); this placeholder repeats x[i] across the row instead.
    windows = x[:out_n].reshape(out_n, 1)
    _kernel(windows, w, axis=1, out=y)  # w broadcasts along each row; axis=1 reduces the taps

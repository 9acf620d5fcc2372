import cupy as cp

# y[i, j] = sum over a, b < k of x[i + a, j + b] * w[a, b] for the (rows - k + 1) x
# (cols - k + 1) valid outputs (float32, row-major, no flipping of w). y arrives filled with NaN.
# ReductionKernel fits this task poorly: each output is a reduction over its k x k window,
# but the kernel only sees arrays element by element (no raw inputs on the CPU backend), so
# the windows must first be built with array code, k * k times the size of x. Fine for the CPU
# tests; for the GPU sizes prefer an ElementwiseKernel, RawKernel or cupyx.jit kernel.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_kernel = cp.ReductionKernel(
    "float32 xv, float32 wv",  # one element of a window and the matching tap of w
    "float32 yv",  # output: one value per window
    "0",  # TODO map_expr: what one tap contributes
    "a",  # TODO reduce_expr: combine two partials a and b
    "yv = a",  # post_map_expr: store the reduced value
    "0",  # TODO identity: the neutral start of reduce_expr
    "conv2d",
)


def solve(x, w, y, rows, cols, k):
    out_rows, out_cols = rows - k + 1, cols - k + 1
    # TODO: windows[i, j] must be the k x k block x[i:i + k, j:j + k] (shape (out_rows,
    # out_cols, k, k)); this placeholder repeats x[i, j] across the window instead.
    windows = x[:out_rows, :out_cols].reshape(out_rows, out_cols, 1, 1)
    _kernel(windows, w, axis=(2, 3), out=y)  # w broadcasts over the windows; reduce the taps

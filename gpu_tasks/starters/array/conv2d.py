import cupy as cp

# y[i, j] = sum over a, b < k of x[i + a, j + b] * w[a, b] for the (rows - k + 1) x
# (cols - k + 1) valid outputs (float32, row-major, no flipping of w). y arrives filled with NaN.
# Array-level CuPy fits this task moderately: a loop over the k * k taps adding w[a, b] times
# a shifted slice of x is correct (k <= 31), but each tap is a kernel launch and a pass over
# y. Keep the arithmetic in float32 and write into y in place (y[...] = ..., y += ...).


def solve(x, w, y, rows, cols, k):
    # TODO: compute the valid 2-D cross-correlation of x with w and store it into y
    pass

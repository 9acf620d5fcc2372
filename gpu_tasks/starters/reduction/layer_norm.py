import cupy as cp

# Per row: y = (x - mean) / sqrt(var + eps) * gamma + beta, with the biased variance.
# y arrives filled with NaN. Rows carry a large common offset: compute the mean first, then
# the mean of squared deviations (not E[x^2] - E[x]^2).
# ReductionKernel fits the two row reductions (the sum of x, then the sum of (x - mean)^2)
# with axis=1; CuPy combines partials in a tree, which keeps float32 accurate. The final
# per-element step is array code or an ElementwiseKernel.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_row_sum = cp.ReductionKernel(
    "float32 x",
    "float32 s",
    "0",  # TODO map_expr
    "a",  # TODO reduce_expr
    "s = a",
    "0",  # TODO identity
    "layer_norm_row_sum",
)
_row_sq_dev = cp.ReductionKernel(
    "float32 x, float32 mean",  # mean: (rows, 1), broadcast along each row
    "float32 s",
    "0",  # TODO map_expr: the squared deviation of one element
    "a",  # TODO reduce_expr
    "s = a",
    "0",  # TODO identity
    "layer_norm_row_sq_dev",
)


def solve(x, gamma, beta, y, rows, cols, eps):
    mean = _row_sum(x, axis=1).reshape(rows, 1) / cols  # one value per row
    var = _row_sq_dev(x, mean, axis=1).reshape(rows, 1) / cols
    # TODO: write (x - mean) / sqrt(var + eps) * gamma + beta into y

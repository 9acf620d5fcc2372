import cupy as cp

# Per row: y = (x - mean) / sqrt(var + eps) * gamma + beta, with the biased variance.
# y arrives filled with NaN. Rows carry a large common offset: compute the mean first, then
# the mean of squared deviations (not E[x^2] - E[x]^2).
# ElementwiseKernel fits this task poorly on its own: the row mean and variance are
# reductions, which an elementwise kernel cannot compute. Use it for the last step, once per
# element, with the row statistics from array code (or a ReductionKernel). Shapes broadcast:
# (rows, 1) statistics along each row, gamma and beta (cols,) down each column.
_normalise = cp.ElementwiseKernel(
    "float32 x, float32 mean, float32 var, float32 gamma, float32 beta, float32 eps",
    "float32 y",  # output: the loop runs over the broadcast shape (rows, cols)
    """
    // TODO: set y from x, its row's mean and variance, eps, gamma and beta
    """,
    "layer_norm_normalise",
)


def solve(x, gamma, beta, y, rows, cols, eps):
    mean = cp.zeros((rows, 1), dtype=cp.float32)  # TODO: each row's mean
    var = cp.ones((rows, 1), dtype=cp.float32)  # TODO: each row's mean of (x - mean) ** 2
    _normalise(x, mean, var, gamma, beta, eps, y)  # eps: a Python float, converted to float32

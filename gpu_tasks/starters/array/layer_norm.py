import cupy as cp

# Per row: y = (x - mean) / sqrt(var + eps) * gamma + beta, with the biased variance.
# y arrives filled with NaN. Rows carry a large common offset: compute the mean first, then
# the mean of squared deviations (not E[x^2] - E[x]^2).
# Array-level CuPy fits this task well: row reductions take axis=1 (keepdims=True keeps a
# (rows, 1) shape that broadcasts along each row), and CuPy's reductions sum in a tree.
# Write into y in place (y[...] = ...): rebinding the name y changes nothing the caller sees.


def solve(x, gamma, beta, y, rows, cols, eps):
    # TODO: normalise each row of x, scale by gamma, shift by beta, and store it into y
    pass

import cupy as cp

# y (m) = a (m x n, row-major) @ x (n), float32. y arrives filled with NaN.
# ReductionKernel fits this task well: each y[i] is a reduction over a row, and x (n,)
# broadcasts against a (m, n); reducing axis 1 reads a once, row by row.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_kernel = cp.ReductionKernel(
    "float32 mat, float32 vec",  # inputs (not a, b: those are reduce_expr's names)
    "float32 dot",  # output: one value per row
    "0",  # TODO map_expr: what one element of the row contributes
    "a",  # TODO reduce_expr: combine two partials a and b
    "dot = a",  # post_map_expr: store the reduced value
    "0",  # TODO identity: the neutral start of reduce_expr
    "sgemv",
)


def solve(a, x, y, m, n):
    _kernel(a, x, axis=1, out=y)  # broadcast to (m, n), reduce each row into y

import cupy as cp

# out[0] = sum of x[0..n) (float32). out has one element and arrives holding NaN.
# ReductionKernel fits this task well: CuPy launches the blocks and combines partial results in
# a tree, which keeps float32 sums accurate.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_kernel = cp.ReductionKernel(
    "float32 x",  # input
    "float32 total",  # output: one value per reduced group
    "0",  # TODO map_expr: what one element contributes
    "a",  # TODO reduce_expr: combine two partials a and b
    "total = a",  # post_map_expr: store the reduced value
    "0",  # TODO identity: the neutral start of reduce_expr
    "reduce_sum",
)


def solve(x, out, n):
    # Reducing axis 1 of a (1, n) view gives shape (1,), the shape of out.
    _kernel(x.reshape(1, n), axis=1, out=out)

import cupy as cp

# Compute y[i] = max(x[i], 0) for every i < n (float32). y arrives filled with NaN.
# ReductionKernel fits this task poorly: there is nothing to reduce. ElementwiseKernel or array
# code is the natural choice. It still works on an (n, 1) view reduced over its length-1 axis:
# each output then "reduces" a single mapped element.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_kernel = cp.ReductionKernel(
    "float32 x",  # input
    "float32 y",  # output: one value per reduced group
    "0",  # TODO map_expr: what one element contributes
    "a",  # TODO reduce_expr: combine two partials a and b
    "y = a",  # post_map_expr: store the reduced value
    "0",  # identity: the neutral start of reduce_expr
    "relu",
)


def solve(x, y, n):
    # axis=1 reduces the length-1 axis, so the result has shape (n,) and lands in y.
    _kernel(x.reshape(n, 1), axis=1, out=y)

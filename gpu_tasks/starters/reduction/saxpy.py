import cupy as cp

# Compute out[i] = alpha * x[i] + y[i] for every i < n (float32). out arrives filled with NaN.
# ReductionKernel fits this task poorly: there is nothing to reduce. ElementwiseKernel or array
# code is the natural choice. It still works on (n, 1) views reduced over their length-1 axis:
# each output then "reduces" a single mapped element.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_kernel = cp.ReductionKernel(
    "float32 x, float32 y, float32 alpha",  # inputs: two arrays and a scalar
    "float32 z",  # output: one value per reduced group
    "0",  # TODO map_expr: what one element contributes
    "a",  # TODO reduce_expr: combine two partials a and b
    "z = a",  # post_map_expr: store the reduced value
    "0",  # identity: the neutral start of reduce_expr
    "saxpy",
)


def solve(x, y, out, alpha, n):
    # axis=1 reduces the length-1 axis, so the result has shape (n,) and lands in out.
    _kernel(x.reshape(n, 1), y.reshape(n, 1), alpha, axis=1, out=out)

import cupy as cp

# hist[v] = number of i < n with x[i] == v, for v < bins (int32). x values lie in [0, bins).
# hist arrives holding -123456789 in every bin.
# ReductionKernel fits this task poorly: counting one bin is a reduction over all of x, so
# every bin reads every element (n x bins work; the CPU backend also materialises the
# broadcast). It passes the small tests only: the larger ones run out of time. For a solution,
# count with atomics (RawKernel, cupyx.jit, an ElementwiseKernel with a raw output) or use
# array code; this skeleton shows the ReductionKernel API on the task's types.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_kernel = cp.ReductionKernel(
    "int32 x, int32 v",  # inputs: an element of x and the bin value it is compared with
    "int32 count",  # output: one value per bin
    "0",  # TODO map_expr: what one element contributes to bin v's count
    "a",  # TODO reduce_expr: combine two partials a and b
    "count = a",  # post_map_expr: store the reduced value
    "0",  # TODO identity: the neutral start of reduce_expr
    "histogram_count",
)


def solve(x, hist, n, bins):
    values = cp.arange(bins, dtype=cp.int32)
    # x as a row and the bin values as a column broadcast to (bins, n); axis=1 reduces over x.
    _kernel(x.reshape(1, n), values.reshape(bins, 1), axis=1, out=hist)

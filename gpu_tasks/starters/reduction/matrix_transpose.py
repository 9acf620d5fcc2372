import cupy as cp

# a is rows x cols (row-major); write its transpose into b (cols x rows):
# b[j, i] = a[i, j]. b arrives filled with NaN.
# ReductionKernel fits this task poorly: a transpose moves data and reduces nothing. Array code
# or a tiled RawKernel is the natural choice. It still works: reduce a trailing length-1 axis
# of a (cols, rows, 1) view of a whose [j, i, 0] is a[i, j]; each output "reduces" one element.
# Per output: map_expr on every element, reduce_expr combines partials `a` and `b` (starting
# from identity), post_map_expr stores the result `a` into the output.
_kernel = cp.ReductionKernel(
    "float32 v",  # input (not named a: `a` and `b` are reduce_expr's names)
    "float32 t",  # output: one value per reduced group
    "0",  # TODO map_expr: what one element contributes
    "a",  # TODO reduce_expr: combine two partials a and b
    "t = a",  # post_map_expr: store the reduced value
    "0",  # identity: the neutral start of reduce_expr
    "transpose",
)


def solve(a, b, rows, cols):
    # TODO: this reshape has b's shape but keeps a's element order; the view must hold a's
    # transpose (array code can make that view without copying).
    view = a.reshape(cols, rows, 1)
    _kernel(view, axis=2, out=b)  # axis=2 reduces the length-1 axis; the result lands in b
